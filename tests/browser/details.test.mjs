// The explorer's details (issue 27, "Hands, phones and details") in Debian's Chromium: a tap reads
// a cell on a touch screen; link marks can be hidden and gold links differ from links in shape
// (tests/browser/byo.test.mjs); the line view has a legend; Bahdanau's white-on-black colour map;
// "link to this view" copies the link and says so; the threshold box is live only for methods that
// read it (the rule's readsThreshold, tests/js/models.test.mjs) and keeps what was typed; numbers
// print as people read them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { cellPixel, cssColour, figureOf, near, openPage, redrawn, rgbOf, useBrowser } from './browser.mjs';

useBrowser();

// The alignment view's figure once it has answered.
async function aligned(page) {
  await page.waitForSelector('#align-view[data-state="ok"]', { timeout: 60000 });
  return figureOf(page, 'heatmap');
}

describe('details', () => {
  test('a tap on a phone reads the cell under the finger', async () => {
    const { page, problems } = await openPage('', { width: 390, height: 844, touch: true });
    const figure = await aligned(page);
    assert.equal(await page.textContent('#heatmap-readout'), '');
    const box = await page.evaluate(async () => {
      const { heatmapOf } = await import('./views.mjs');
      const heatmap = heatmapOf(document.getElementById('heatmap'));
      const { cell, left, top } = heatmap.layout;
      const host = heatmap.host.getBoundingClientRect();
      heatmap.host.scrollIntoView();
      const again = heatmap.host.getBoundingClientRect();
      return { x: again.left + left + 1.5 * cell - heatmap.host.scrollLeft, y: again.top + top + 0.5 * cell - heatmap.host.scrollTop, host };
    });
    await page.touchscreen.tap(box.x, box.y);
    await page.waitForFunction(() => document.getElementById('heatmap-readout').textContent.length > 0);
    const readout = await page.textContent('#heatmap-readout');
    const value = figure.weights[1].toFixed(3);
    assert.match(readout, new RegExp(`^${figure.rowLabels[0]} ← ${figure.colLabels[1]}: ${value.replace('.', '\\.')}`), readout);
    assert.match(readout, /row 1 of \d+, column 2 of \d+/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('on a phone, two fingers pinch the heatmap\'s cells larger and smaller, and the zoom buttons work there too', async () => {
    const { page, problems } = await openPage('', { width: 390, height: 844, touch: true });
    await aligned(page);
    const cell = async () => Number(await page.getAttribute('#heatmap', 'data-cell'));
    const before = await cell();
    const middle = await page.evaluate(() => {
      const host = document.getElementById('heatmap');
      host.scrollIntoView();
      const box = host.getBoundingClientRect();
      return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
    });
    const cdp = await page.context().newCDPSession(page);
    const fingers = (spread) => [
      { x: middle.x - spread, y: middle.y, id: 1 }, { x: middle.x + spread, y: middle.y, id: 2 }];
    const pinch = async (from, to) => {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(from) });
      for (let step = 1; step <= 8; step++) {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(from + ((to - from) * step) / 8) });
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    };
    await pinch(30, 90);  // fingers apart: larger cells
    const larger = await cell();
    assert.ok(larger > before * 2, `pinched out: ${before} -> ${larger} px cells`);
    await page.waitForFunction(() => /(^#|&)z=/.test(location.hash));  // the link keeps the zoom, told once the fingers lift
    assert.equal(await page.evaluate(() => window.visualViewport.scale), 1, 'the page itself did not zoom');
    await pinch(90, 30);  // together: smaller again
    const smaller = await cell();
    assert.ok(smaller < larger / 2, `pinched in: ${larger} -> ${smaller} px cells`);
    // the buttons, tapped
    const tapButton = async (name) => {
      const frame = page.locator('.figure-frame', { has: page.locator('#heatmap') });
      const box = await frame.locator(`.zoom button[aria-label="${name}"]`).boundingBox();
      await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
    };
    const was = await cell();
    await tapButton('zoom in');
    await page.waitForFunction((c) => Number(document.getElementById('heatmap').dataset.cell) > c, was);
    assert.ok(Math.abs(await cell() - was * 1.5) < 1, 'zoom in: one and a half times');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('link marks can be hidden, in the URL too, while the links stay listed', async () => {
    const { page, problems } = await openPage();
    let figure = await aligned(page);
    assert.ok(figure.links.length > 0);
    const [s, t] = figure.links[0];
    const link = rgbOf(await cssColour(page, '--link'));
    const outline = { dx: 3, dy: figure.cell / 2 };
    assert.ok(near(await cellPixel(page, 'heatmap', t, s, outline), link, 6), 'a link is outlined');
    const pharaoh = await page.textContent('#pharaoh');
    await redrawn(page, 'heatmap', () => page.uncheck('#show-links'));
    figure = await figureOf(page, 'heatmap');
    assert.ok(!near(await cellPixel(page, 'heatmap', t, s, outline), link, 30), 'no outline once hidden');
    assert.equal(await page.textContent('#pharaoh'), pharaoh, 'the links are still listed');
    assert.equal(await page.getAttribute('#heatmap', 'data-links'), String(figure.links.length));
    await page.waitForFunction(() => /(^|[#&])marks=0(&|$)/.test(location.hash));
    const legend = await page.getAttribute('#heatmap-legend', 'aria-label');
    assert.doesNotMatch(legend ?? '', /links are outlined/);
    // the URL brings the choice back
    const again = await openPage(`#${await page.evaluate(() => location.hash.slice(1))}`);
    assert.equal(await again.page.isChecked('#show-links'), false);
    await again.page.close();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the line view says what its lines and colours mean', async () => {
    const { page, problems } = await openPage();
    await aligned(page);
    const legend = page.locator('#lines + .line-legend');
    assert.equal(await legend.isVisible(), true);
    const text = await legend.textContent();
    assert.match(text, /joins the 3 source words \(above\) it attends to most/);
    assert.match(text, /the darker the line, the more attention/);
    assert.match(text, /an alignment link/);
    assert.match(text, /attention only/);
    const colours = await page.$$eval('#lines + .line-legend .swatch', (swatches) => swatches.map((s) => getComputedStyle(s).backgroundColor));
    assert.deepEqual(colours.map((c) => rgbOf(c)), [rgbOf(await cssColour(page, '--link')), rgbOf(await cssColour(page, '--accent'))]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('Bahdanau\'s colour map draws high attention white on black', async () => {
    const { page, problems } = await openPage();
    let figure = await aligned(page);
    await redrawn(page, 'heatmap', () => page.selectOption('#colormap', 'bahdanau'));
    figure = await figureOf(page, 'heatmap');
    const strongest = figure.weights.indexOf(Math.max(...figure.weights));
    const weakest = figure.weights.indexOf(Math.min(...figure.weights));
    // a corner of the cell, inside any link outline and away from the value printed in its middle
    const at = (i) => cellPixel(page, 'heatmap', Math.floor(i / figure.cols), i % figure.cols, { dx: 6, dy: 6 });
    const high = Math.round(255 * figure.weights[strongest]), low = Math.round(255 * figure.weights[weakest]);
    assert.ok(near(await at(strongest), [high, high, high], 4), `the strongest cell is near white: ${await at(strongest)}`);
    assert.ok(near(await at(weakest), [low, low, low], 4), `the weakest cell is near black: ${await at(weakest)}`);
    assert.match(await page.getAttribute('#heatmap-legend', 'aria-label'), /black is 0, white is 1/);
    assert.match(await page.evaluate(() => location.hash), /c=bahdanau/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('"link to this view" copies the link and says so', async () => {
    const { page, problems } = await openPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await aligned(page);
    await page.click('#share');
    await page.waitForFunction(() => document.getElementById('share-status').textContent === 'link copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.evaluate(() => location.href));
    assert.equal(await page.getAttribute('#share-status', 'role'), 'status');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the shift box is disabled where it does nothing, saying why; the chosen method is named in full', async () => {
    const { page, problems } = await openPage();
    await page.waitForFunction(() => document.getElementById('align-view').dataset.state === 'ok'
      && /method hybrid/.test(document.getElementById('align-model').textContent)
      && !/^Shown while/.test(document.getElementById('align-model').textContent), null, { timeout: 60000 });
    await page.waitForFunction(() => document.getElementById('shift').disabled);
    assert.match(await page.textContent('#shift-note'), /^Shift does nothing here: this model is always read there: its aligning head was trained on those rows \(alignment_shift 1\)\.$/);
    const before = await figureOf(page, 'heatmap');
    await redrawn(page, 'heatmap', () => page.selectOption('#method', 'hmm'));
    assert.match(await page.textContent('#shift-note'), /hmm reads no attention/);
    assert.match(await page.$eval('#shift', (box) => box.parentElement.title), /hmm reads no attention/);
    assert.match(await page.textContent('#method-note'), /^hmm — dev AER 0\.\d{3}: /);
    await redrawn(page, 'heatmap', () => page.selectOption('#method', 'hybrid'));
    assert.equal(await page.isDisabled('#shift'), true);
    assert.deepEqual((await figureOf(page, 'heatmap')).weights, before.weights);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the threshold box is live only for methods that read it, and keeps what was typed', async () => {
    const { page, problems } = await openPage();
    await aligned(page);
    assert.equal(await page.isDisabled('#threshold'), true, 'the pair\'s default, the hybrid, reads no threshold');
    assert.match(await page.$eval('#threshold', (box) => box.parentElement.title), /hybrid does not read a threshold/);
    await redrawn(page, 'heatmap', () => page.selectOption('#method', 'soft-threshold'));
    assert.equal(await page.isDisabled('#threshold'), false);
    const before = Number(await page.getAttribute('#heatmap', 'data-links'));
    await redrawn(page, 'heatmap', () => page.fill('#threshold', '0.001'));
    assert.equal(await page.inputValue('#threshold'), '0.001');
    assert.equal(await page.isVisible('#threshold-error'), false, 'no rounding message');
    assert.ok(Number(await page.getAttribute('#heatmap', 'data-links')) > before, 'a lower threshold links more');
    await redrawn(page, 'heatmap', () => page.selectOption('#method', 'argmax'));
    assert.equal(await page.isDisabled('#threshold'), true);
    assert.equal(await page.inputValue('#threshold'), '0.001', 'kept while disabled');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the playground prints numbers as people read them and names what a token needs', async () => {
    const { page, problems } = await openPage();
    await page.fill('#token-0-0', '1e14');
    await page.waitForFunction(() => document.getElementById('scores').textContent.includes('× 10'));
    const tables = await page.textContent('#scores') + await page.textContent('#output');
    assert.doesNotMatch(tables, /e\+|e-\d|Infinity|NaN/, tables);
    await page.fill('#token-0-0', '');
    const box = page.locator('#token-0-0-error');
    await box.waitFor();
    const message = await box.textContent();
    assert.doesNotMatch(message, /Infinity/, message);
    assert.match(message, /needs a number/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('what drew each figure', () => {
  test('the alignment, comparison, translation and large model-view figures each name their model and link its model-card section', async () => {
    const { page, problems } = await openPage();
    const TRANSFORMER = /^Drawn by the multilingual Transformer \(English ↔ 12 languages\) \(3\+3 layers/;
    const cardSection = async (id) => page.$eval(`#${id} a`, (a) => [a.title, new URL(a.href).hash]);
    assert.deepEqual(await cardSection('align-model'),
      ['model card: The multilingual Transformer (English ↔ twelve languages)', '#the-multilingual-transformer-english--twelve-languages']);
    const href = await page.$eval('#align-model a', (a) => a.href);
    // the translation view's heatmap
    await page.waitForSelector('#translate-view[data-state="ok"]', { state: 'attached', timeout: 60000 });  // in its tab, not shown
    const translated = await page.textContent('#translate-model-line');
    assert.match(translated, TRANSFORMER);
    assert.match(translated, /encoder–decoder attention \(layer \d, head \d, the head it aligns with\) while translating with beam 4 · /);
    assert.equal((await cardSection('translate-model-line'))[1], '#the-multilingual-transformer-english--twelve-languages');
    // the comparison with the general-attention RNN
    await page.check('#compare');
    await page.waitForSelector('#compare-figure:not([hidden])', { timeout: 60000 });
    await page.waitForFunction(() => /general attention/.test(document.getElementById('compare-model').textContent), null, { timeout: 60000 });
    assert.match(await page.textContent('#compare-model'), /^Drawn by the RNN with general attention \(en-es\) \(encoder 192, decoder 256, 3\.7 M parameters, 33 CPU minutes/);
    assert.deepEqual(await cardSection('compare-model'),
      ['model card: The attentional RNNs (English ↔ Spanish)', '#the-attentional-rnns-english--spanish']);
    await page.uncheck('#compare');
    // the model view's large map
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => Number(document.getElementById('model-view').dataset.layers) > 0, null, { timeout: 60000 });
    await page.click('#model-view [data-layer="1"][data-head="2"]');
    await page.waitForSelector('#head-figure:not([hidden])');
    const large = await page.textContent('#head-model');
    assert.match(large, TRANSFORMER);
    assert.match(large, /· encoder–decoder attention, layer 1, head 2 · /);  // counted from 0, as everywhere on the page
    // the link opens the model card as a page, at that section (a raw .md would be downloaded)
    const response = await page.goto(href);
    assert.match(response.headers()['content-type'], /text\/html/);
    assert.equal(await page.evaluate(() => document.getElementById(location.hash.slice(1))?.tagName), 'H2');
    assert.match(await page.evaluate(() => document.getElementById(location.hash.slice(1)).textContent), /^The multilingual Transformer/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('bidirectional text', () => {
  test('a word\'s own bidi controls are shown, not obeyed, on the heatmap, the line view and the SVG export; Hebrew stays an isolate', async () => {
    const { page, problems } = await openPage();
    // a right-to-left override inside a word would draw "abcfed" and reverse what follows it
    const hostile = 'abc\u202edef';  // ‮: RIGHT-TO-LEFT OVERRIDE
    await page.fill('#source', `The ${hostile} walks .`);
    await page.fill('#target', 'El שלום camina .');
    let figure = null;
    for (let tries = 0; tries < 100 && !(figure?.rowLabels[1] === 'שלום' && figure.colLabels.some((w) => w.includes('\u202e'))); tries++) {
      await page.waitForTimeout(100);
      figure = await figureOf(page, 'heatmap');
    }
    // the library splits the control off the word as a token of its own: drawn as its code point
    const at = figure.colLabels.findIndex((word) => word.includes('\u202e'));
    assert.ok(at >= 0, JSON.stringify(figure.colLabels));
    assert.match(figure.colText[at], /U\+202E/);
    const CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
    const obeyed = [...figure.colText, ...figure.rowText].filter((text) => CONTROLS.test(text.replace(/^\u2068(.*)\u2069$/su, '$1')));
    assert.deepEqual(obeyed, [], 'no label carries a bidi control that the canvas would obey');
    assert.ok(figure.rowText.includes('\u2068שלום\u2069'), `a right-to-left word is isolated from its neighbours: ${JSON.stringify(figure.rowText)}`);
    const lines = await page.$eval('#lines', (host) => host.textContent + (host.getAttribute('aria-label') ?? ''));
    assert.ok(!lines.includes('\u202e'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
    const svg = await readFile(await download.path(), 'utf8');
    assert.ok(!svg.includes('\u202e'), 'no raw override in the SVG');
    assert.match(svg, /U\+202E/, 'the SVG shows it as the page does');
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('before a model is there', () => {
  test('the method list and the exports are disabled until the module and an aligner are in', async () => {
    const hold = () => {
      let release;
      const held = new Promise((resolve) => { release = resolve; });
      return { release, route: async (route) => { await held; await route.continue(); } };
    };
    const module = hold(), aligner = hold();
    const { page, problems } = await openPage('', {
      ready: false, routes: [['**/*.wasm', module.route], ['**/hmm-en-es.safetensors', aligner.route]],
    });
    const controls = ['#method', '#copy', '#export-svg', '#export-png', '#export-json', '#export-links'];
    const disabled = () => Promise.all(controls.map((selector) => page.isDisabled(selector)));
    assert.deepEqual(await disabled(), controls.map(() => true), 'before the module is in');
    // the module is in and the methods are listed: a method can be chosen, nothing to export yet
    module.release();
    await page.waitForFunction(() => document.getElementById('method').options.length > 0, null, { timeout: 30000 });
    assert.deepEqual(await disabled(), [false, true, true, true, true, true]);
    aligner.release();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    assert.deepEqual(await disabled(), controls.map(() => false), 'a figure is there: every export');
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('the loading counter', () => {
  test('counts the seconds of a download on a slow line, not from each progress event', async () => {
    let cdp = null;
    const { page, problems } = await openPage('', {
      ready: false,
      before: async (fresh) => {
        cdp = await fresh.context().newCDPSession(fresh);
        await cdp.send('Network.enable');
        // 16 MiB of en-es's first view at 20 Mbit/s: several seconds, a progress event every chunk
        await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: 20e6 / 8, uploadThroughput: 20e6 / 8 });
      },
    });
    const seconds = async () => {
      const text = await page.locator('#align-view .busy-text').textContent();
      const match = /Loading .*… (\d+\.\d) s/.exec(text ?? '');
      return match ? Number(match[1]) : null;
    };
    await page.waitForFunction(() => /Loading .*MiB/.test(document.querySelector('#align-view .busy-text')?.textContent ?? ''), null, { timeout: 30000 });
    const first = await seconds();
    await page.waitForTimeout(1500);
    const later = await seconds();
    assert.ok(first !== null && later !== null, 'still loading');
    assert.ok(later >= first + 1, `the counter went from ${first} s to ${later} s in 1.5 s`);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.waitForSelector('#align-view[data-state="ok"]', { timeout: 60000 });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
