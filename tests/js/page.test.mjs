// The page's pure modules under Node: labels by user-perceived characters (web/page/text.mjs), number
// checks that agree with an input's min, max and step (web/page/controls.mjs), the URL hash's encoding
// (web/page/state.mjs), the colour tables the heatmaps paint from (web/page/colormap.mjs), and how requests
// supersede each other (web/page/worker-client.mjs), and which tab a link opens (web/page/tabs.mjs).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bahdanau, colourInto, colourMap, colourTable, grayscale, viridis } from '../../web/page/colormap.mjs';
import { checkNumber, readableNumber } from '../../web/page/controls.mjs';
import { forwardModelName, reverseModelName } from '../../web/page/methods.mjs';
import { decodeState, encodeState } from '../../web/page/state.mjs';
import { graphemes, shortLabel, visibleLabel } from '../../web/page/text.mjs';
import { latestOnly } from '../../web/page/worker-client.mjs';
import { DEFAULT_VIEW, HASH_KEYS, VIEWS, idOfKey, viewOfHash } from '../../web/page/tabs.mjs';

describe('labels', () => {
  it('split text into user-perceived characters: emoji sequences and accents stay whole', () => {
    assert.deepEqual(graphemes('👨‍👩‍👧 ❤️ é'), ['👨‍👩‍👧', ' ', '❤️', ' ', 'é']);
    assert.deepEqual(graphemes('🇪🇸👍🏽'), ['🇪🇸', '👍🏽']);
  });

  it('shorten long words without cutting a character apart', () => {
    assert.equal(shortLabel('internationalization'), 'international…');  // 13 characters and the ellipsis
    assert.equal(shortLabel('👨‍👩‍👧'.repeat(20), 3), '👨‍👩‍👧👨‍👩‍👧…');
    assert.equal(shortLabel('café'), 'café');
  });

  it('show a token with nothing visible in it by its code points', () => {
    assert.equal(visibleLabel('\u200d'), 'U+200D');
    assert.equal(visibleLabel('\ufe0f'), 'U+FE0F');
    assert.equal(visibleLabel('\u200d\ufe0f'), 'U+200D U+FE0F');
    assert.equal(visibleLabel(''), '∅');
    assert.equal(visibleLabel('❤️'), '❤️');
    assert.equal(shortLabel('\u200d'), 'U+200D');
  });

  it('keep bidirectional text from reordering a label or its neighbours', () => {
    // a word's own override, embedding, isolate or mark is shown, not obeyed
    assert.equal(shortLabel('abc\u202edef'), 'abc⟨U+202E⟩def');
    assert.equal(shortLabel('x\u2067y\u200f', 30), 'x⟨U+2067⟩y⟨U+200F⟩');  // the markers count as shown
    assert.equal(shortLabel('\u202e'), 'U+202E');
    // right-to-left words are isolates, the ellipsis inside at their logical end
    assert.equal(shortLabel('שלום'), '\u2068שלום\u2069');
    assert.equal(shortLabel('مرحبا'.repeat(4), 5), '\u2068مرحب…\u2069');
    assert.equal(shortLabel('English'), 'English');  // left-to-right labels are left as they are
  });
});

describe('checkNumber', () => {
  const threshold = { name: 'threshold', min: 0, max: 1, step: '0.01' };

  it('takes a number in range on a step as it is', () => {
    assert.deepEqual(checkNumber('0.15', threshold), { value: 0.15, message: '' });
    assert.deepEqual(checkNumber(' 1 ', threshold), { value: 1, message: '' });
    assert.deepEqual(checkNumber('3', { name: 'beam', min: 1, max: 16, step: '1' }), { value: 3, message: '' });
  });

  it('clamps a number out of range, saying so', () => {
    assert.deepEqual(checkNumber('1.5', threshold), { value: 1, message: 'threshold 1.5 is above 1: using 1' });
    assert.deepEqual(checkNumber('-1', threshold), { value: 0, message: 'threshold -1 is below 0: using 0' });
    assert.deepEqual(checkNumber('17', { name: 'beam', min: 1, max: 16, step: '1' }), { value: 16, message: 'beam 17 is above 16: using 16' });
  });

  it('rounds to the step, counted from the minimum', () => {
    assert.deepEqual(checkNumber('0.123', threshold), { value: 0.12, message: 'threshold 0.123 is not a step of 0.01: using 0.12' });
    assert.deepEqual(checkNumber('1.6', { name: 'layer', min: 0, max: 3, step: '1' }), { value: 2, message: 'layer 1.6 is not a whole number: using 2' });
    assert.deepEqual(checkNumber('0.12', { name: 'temperature', min: 0.05, max: 20, step: '0.05' }),
      { value: 0.1, message: 'temperature 0.12 is not a step of 0.05: using 0.1' });
    assert.deepEqual(checkNumber('0.123456', { name: 'x', step: 'any' }), { value: 0.123456, message: '' });
  });

  it('refuses text that is no number', () => {
    assert.deepEqual(checkNumber('abc', threshold), { value: null, message: 'threshold needs a number from 0 to 1, not “abc”' });
    assert.deepEqual(checkNumber('', threshold), { value: null, message: 'threshold needs a number from 0 to 1' });
    assert.deepEqual(checkNumber('Infinity', { name: 'head', min: 0 }), { value: null, message: 'head needs a number 0 or more, not “Infinity”' });
    // no "-Infinity or more" for an input without bounds
    assert.deepEqual(checkNumber('x', { name: 'token' }), { value: null, message: 'token needs a number, not “x”' });
    assert.deepEqual(checkNumber('', { name: 'top', max: 3 }), { value: null, message: 'top needs a number up to 3' });
  });
});

describe('the URL hash', () => {
  const defaults = { s: 'The cat .', th: '0.3', shift: '0', c: 'viridis' };

  it('keeps only what differs from the defaults, and gives the defaults back for what it lacks', () => {
    const values = { s: 'Ñandú & café = 100%', th: '0.15', shift: '0', c: 'gray' };
    const hash = encodeState(values, defaults);
    assert.equal(hash, 's=%C3%91and%C3%BA+%26+caf%C3%A9+%3D+100%25&th=0.15&c=gray');
    assert.deepEqual(decodeState(`#${hash}`, defaults), values);
    assert.equal(encodeState(defaults, defaults), '');
    assert.deepEqual(decodeState('', defaults), defaults);
  });

  it('ignores keys it does not know', () => {
    assert.deepEqual(decodeState('#th=0.5&bogus=1', defaults), { ...defaults, th: '0.5' });
  });
});

describe('the tab a link opens', () => {
  // which section holds each control, as index.html places them
  const SECTION = { source: 'align-view', method: 'align-view', 'translate-source': 'translate-view', beam: 'translate-view',
    'attention-kind': 'model-section', 'byo-method': 'byo-view', score: 'playground', 'byo-heatmap': 'byo-view' };
  const sectionOf = (id) => SECTION[id] ?? null;

  it('is the hash\'s view when it names one', () => {
    assert.equal(viewOfHash('#view=playground&s=a', sectionOf), 'playground');
    assert.equal(viewOfHash('view=images', sectionOf), 'images');
  });

  it('is, for a link without a view, the first section in page order that holds one of its keys', () => {
    assert.equal(viewOfHash('#tr=x&beam=3', sectionOf), 'translate');
    assert.equal(viewOfHash('#score=dot&s=a', sectionOf), 'align');
    assert.equal(viewOfHash('#bz=4', sectionOf), 'byo');
    assert.equal(viewOfHash('#kind=encoder&bm=itermax', sectionOf), 'model');
  });

  it('is the default for an empty hash, header settings only, or an unknown view', () => {
    assert.equal(viewOfHash('', sectionOf), DEFAULT_VIEW);
    assert.equal(viewOfHash('#c=gray&pair=en-de', sectionOf), DEFAULT_VIEW);
    assert.equal(viewOfHash('#view=nowhere', sectionOf), DEFAULT_VIEW);
  });

  it('keys name their controls once: each key to one id, and each view to one section', () => {
    assert.equal(idOfKey('s'), 'source');
    assert.equal(idOfKey('score'), 'score');
    assert.equal(new Set(Object.values(HASH_KEYS)).size, Object.keys(HASH_KEYS).length);
    assert.equal(new Set(VIEWS.map(([, section]) => section)).size, VIEWS.length);
    assert.ok(VIEWS.some(([view, section]) => view === 'images' && section === 'caption'));
  });
});

describe('readableNumber', () => {
  it('prints table numbers as people read them, not as 1.3226127786782054e+28', () => {
    assert.equal(readableNumber(0.5, 4), '0.5000');
    assert.equal(readableNumber(-12.25, 3), '-12.250');
    assert.equal(readableNumber(999999.5, 1), '999999.5');
    assert.equal(readableNumber(1.3226127786782054e+28, 3), '1.32 × 10²⁸');
    assert.equal(readableNumber(-2.5e6, 4), '-2.50 × 10⁶');
    assert.equal(readableNumber(1e-9, 4), '0.0000');
    assert.equal(readableNumber(Infinity, 3), '∞');
    assert.equal(readableNumber(-Infinity, 3), '−∞');
    assert.equal(readableNumber(NaN, 3), 'not a number');
  });
});

describe('colour tables', () => {
  it('give 256 steps of a map as RGBA pixels, and colour weights through them', () => {
    const table = new Uint8Array(colourTable('viridis').buffer);
    assert.deepEqual([...table.subarray(0, 4)], [...viridis(0), 255]);
    assert.deepEqual([...table.subarray(255 * 4)], [...viridis(1), 255]);
    const pixels = new Uint32Array(4);
    colourInto(pixels, Float32Array.from([0, 1, NaN, 2]), colourTable('gray'));
    const bytes = new Uint8Array(pixels.buffer);
    assert.deepEqual([...bytes.subarray(0, 4)], [...grayscale(0), 255]);
    assert.deepEqual([...bytes.subarray(4, 8)], [...grayscale(1), 255]);
    assert.deepEqual([...bytes.subarray(8, 12)], [...grayscale(0), 255], 'NaN takes the first step');
    assert.deepEqual([...bytes.subarray(12, 16)], [...grayscale(1), 255], 'above 1 takes the last');
  });

  it('draw attention as Bahdanau et al.\'s figures do: white where it is high, on black', () => {
    assert.equal(colourMap('bahdanau'), bahdanau);
    assert.deepEqual(bahdanau(0), [0, 0, 0]);
    assert.deepEqual(bahdanau(1), [255, 255, 255]);
    assert.deepEqual(bahdanau(0.5), [128, 128, 128]);
    assert.deepEqual(bahdanau(NaN), [0, 0, 0]);
    assert.deepEqual(grayscale(1), [0, 0, 0], 'the grey map stays black on white');
  });
});

describe('latestOnly', () => {
  // send() answers when told to, so that the test decides what arrives while what runs.
  function slowSender() {
    const sent = [], pending = [];
    const send = (settings) => new Promise((resolve) => { sent.push(settings); pending.push(() => resolve({ type: 'result', result: settings })); });
    return { send, sent, answer: async () => { pending.shift()(); await new Promise((r) => setImmediate(r)); } };
  }

  it('sends one request at a time, only the latest of those that waited, and supersedes older answers', async () => {
    const { send, sent, answer } = slowSender();
    const run = latestOnly(send);
    const first = run('a'), second = run('b'), third = run('c');
    assert.deepEqual(await second, { type: 'superseded' }, 'replaced while waiting: never sent');
    await answer();
    assert.deepEqual(await first, { type: 'superseded' }, 'answered after newer settings came');
    await answer();
    assert.deepEqual(await third, { type: 'result', result: 'c' });
    assert.deepEqual(sent, ['a', 'c']);
  });

  it('drop() makes what is out moot, for settings the view refused', async () => {
    const { send, answer } = slowSender();
    const run = latestOnly(send);
    const asked = run('a');
    run.drop();
    await answer();
    assert.deepEqual(await asked, { type: 'superseded' });
    const next = run('b');
    await answer();
    assert.deepEqual(await next, { type: 'result', result: 'b' });
  });

  it('turns a send() that throws into an error reply', async () => {
    const run = latestOnly(async () => { throw new Error('no worker'); });
    assert.deepEqual(await run('a'), { type: 'error', message: 'no worker' });
  });
});

describe('forwardModelName', () => {
  it('names a multilingual pair\'s English -> language direction as the worker does, else the file\'s stem', () => {
    const directionModels = { forward: 'en-es-transformer', reverse: 'es-en-transformer' };
    assert.equal(forwardModelName({ name: 'en-es', multilingual: true, directionModels, files: { forward: 'multilingual-transformer.safetensors' } }),
      'en-es-transformer');
    assert.equal(reverseModelName({ name: 'en-es', language: 'es', multilingual: true, directionModels, files: {} }), 'es-en-transformer');
    assert.equal(forwardModelName({ name: 'en-es', multilingual: false, files: { forward: 'en-es-additive.safetensors' } }),
      'en-es-additive');
    assert.equal(forwardModelName({ name: 'en-xx', multilingual: false, files: {} }), undefined);
  });
});

describe('the model card as a page (tools/build/card_html.mjs)', () => {
  it('gives every heading GitHub\'s anchor as its id, and escapes the text', async () => {
    const { cardHtml } = await import('../../tools/build/card_html.mjs');
    const { headingAnchor } = await import('../../web/page/text.mjs');
    assert.equal(headingAnchor('The multilingual Transformer (English ↔ twelve languages)'), 'the-multilingual-transformer-english--twelve-languages');
    const html = cardHtml('# Card <script>\n\n## Twelve language pairs\n\nA **bold\nline** with `code` and [a link](docs/X.md) and [no](javascript:alert(1)).\n- one\n- two\n\n| a | <b> |\n\n```\n<pre>\n```\n');
    assert.match(html, /<h1 id="card-script">Card &lt;script&gt;<\/h1>/);
    assert.match(html, /<h2 id="twelve-language-pairs">/);
    assert.match(html, /<strong>bold\nline<\/strong>/);
    assert.match(html, /<code>code<\/code>/);
    assert.match(html, /<a href="docs\/X.md">a link<\/a>/);
    assert.doesNotMatch(html, /href="javascript/);
    assert.match(html, /<br>\n- two/);
    assert.match(html, /<pre class="table">\| a \| &lt;b&gt; \|<\/pre>/);
    assert.match(html, /<pre>&lt;pre&gt;<\/pre>/);
    assert.doesNotMatch(html.split('</head>')[1], /<script|<b>/);
  });
});
