// The alignment and translation views in Debian's Chromium: the model runs in a worker, the
// heatmap and the line view follow the typed sentences, colours match the weights, hover and the
// keyboard highlight, every link method runs with its links marked, errors clear what they no
// longer match, long work shows a busy indicator that can cancel it, and hostile text stays text.
// Screenshots go to build/screenshots/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import loadAttn from '../../web/dist/attn.mjs';
import { viridis } from '../../web/page/colormap.mjs';
import { readsOneMatrix } from '../../web/page/methods.mjs';
import { SCREENSHOTS, cellPixel, cssColour, figureOf, near, nextFrame, openPage, rgbOf, useBrowser } from './browser.mjs';

useBrowser();
// The library's alignment rules, which the page reads from the module too.
const rules = (await loadAttn({ warmUp: false })).alignment;

// Types into a field and waits until the heatmap shows `rows` x `cols` words.
async function typeAndWait(page, selector, text, rows, cols) {
  await page.fill(selector, text);
  await page.waitForFunction(([r, c]) => {
    const heatmap = document.getElementById('heatmap');
    return heatmap.dataset.rows === String(r) && heatmap.dataset.cols === String(c);
  }, [rows, cols], { timeout: 15000 });
}

const settled = (page) => page.waitForFunction(() => document.getElementById('align-view').dataset.state !== 'busy', null, { timeout: 20000 });

// Every link of a figure is outlined in the link colour, and its middle keeps the cell's colour.
async function checkLinkMarks(page, id) {
  const figure = await figureOf(page, id);
  const link = rgbOf(await cssColour(page, '--link'));
  assert.ok(figure.links.length > 0, `#${id} shows links`);
  for (const [s, t] of figure.links.slice(0, 6)) {
    const inset = figure.cell >= 10 ? 3 : 1;
    assert.ok(near(await cellPixel(page, id, t, s, { dx: inset, dy: figure.cell / 2 }), link, 6), `#${id}: link ${s}-${t} is outlined`);
    if (figure.cell >= 14) {
      const middle = await cellPixel(page, id, t, s);
      assert.ok(near(middle, viridis(figure.weights[t * figure.cols + s])), `#${id}: link ${s}-${t} keeps its cell's colour (${middle})`);
    }
  }
}

describe('alignment view', () => {
  test('shows the prefilled pair as a heatmap (rows = Spanish words) and a line view', async () => {
    const { page, problems } = await openPage();
    assert.equal(await page.getAttribute('#heatmap', 'data-rows'), '8');   // El anciano camina al mercado cada mañana .
    assert.equal(await page.getAttribute('#heatmap', 'data-cols'), '10');  // The old man walks to the market every morning .
    const figure = await figureOf(page, 'heatmap');
    assert.equal(figure.weights.length, 80);
    for (let t = 0; t < 8; t++) {  // each Spanish word's attention sums to at most 1 (the rest is the null column)
      const sum = figure.weights.slice(t * 10, t * 10 + 10).reduce((a, w) => a + w, 0);
      assert.ok(sum > 0 && sum <= 1.0001, `row ${t} sums to ${sum}`);
    }
    for (const [t, s] of [[0, 0], [3, 4], [7, 9], [5, 2]]) {
      assert.ok(near(await cellPixel(page, 'heatmap', t, s), viridis(figure.weights[t * 10 + s])), `colour of ${t},${s}`);
    }
    assert.ok(Number(await page.getAttribute('#lines', 'data-lines')) > 0);
    assert.match(await page.textContent('#pharaoh'), /^(\d+-\d+( \d+-\d+)*)?$/);
    assert.equal(await page.isVisible('#heatmap-general'), false);
    await page.screenshot({ path: new URL('align.png', SCREENSHOTS).pathname, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('typing updates the heatmap and the lines; hovering a cell highlights its row and says its value', async () => {
    const { page, problems } = await openPage();
    await typeAndWait(page, '#target', 'El gato duerme .', 4, 10);
    await typeAndWait(page, '#source', 'The cat sleeps .', 4, 4);
    const figure = await figureOf(page, 'heatmap');
    const before = await cellPixel(page, 'heatmap', 0, 1);
    const box = await page.$eval('#heatmap', (host) => {
      const r = host.getBoundingClientRect();
      return { x: r.left + host.clientLeft, y: r.top + host.clientTop };
    });
    const { cell, left, top } = await page.evaluate(async () => (await import('./views.mjs')).heatmapOf(document.getElementById('heatmap')).layout);
    await page.mouse.move(box.x + left + 1.5 * cell, box.y + top + 2.5 * cell);  // row 2, column 1
    await nextFrame(page);
    assert.match(await page.textContent('#heatmap-readout'), new RegExp(`^duerme ← cat: ${figure.weights[2 * 4 + 1].toFixed(3)}`));
    const highlighted = await page.evaluate(async () => (await import('./views.mjs')).heatmapOf(document.getElementById('lines')).spot.row);
    assert.equal(highlighted, 2, 'the line view highlights the same target word');
    const dimmed = await page.evaluate(async () => {
      const { heatmapOf } = await import('./views.mjs');
      const heatmap = heatmapOf(document.getElementById('heatmap'));
      const { cell: c, left: l, top: t } = heatmap.layout;
      return Array.from(heatmap.canvas.getContext('2d').getImageData(l + 1.5 * c, t + 0.5 * c, 1, 1).data.slice(0, 3));
    });
    assert.ok(!near(dimmed, before, 2), 'the other rows fade');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the page lists the library\'s methods and its default threshold, the pair\'s default (its best measured) selected first', async () => {
    const { page, problems } = await openPage();
    const listed = await page.$$eval('#method option', (options) => options.map((o) => o.value));
    assert.deepEqual(listed, rules.methods.map((m) => m.name));
    assert.equal(await page.inputValue('#method'), rules.defaults.method);  // en-es's, as `attn align` without --pair
    assert.equal(Number(await page.inputValue('#threshold')), rules.defaults.threshold);
    const hybrid = await page.textContent(`#method option[value="${rules.defaults.method}"]`);
    assert.match(hybrid, /attn align’s default/);
    const oneMatrix = rules.methods.filter(readsOneMatrix).map((m) => m.name);
    assert.deepEqual(await page.$$eval('#byo-method option', (options) => options.map((o) => o.value)), oneMatrix);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('every link method runs, and its links are the ones marked on the heatmap', async () => {
    const { page, problems } = await openPage();
    for (const { name } of rules.methods) {
      await page.selectOption('#method', name);
      await settled(page);
      assert.equal(await page.getAttribute('#align-view', 'data-state'), 'ok', name);
      const pharaoh = (await page.textContent('#pharaoh')).split(' ').filter(Boolean).sort();
      const figure = await figureOf(page, 'heatmap');
      assert.deepEqual(figure.links.map(([s, t]) => `${s}-${t}`).sort(), pharaoh, name);
      assert.equal(await page.getAttribute('#heatmap', 'data-links'), String(pharaoh.length), name);
    }
    await checkLinkMarks(page, 'heatmap');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('one tab stop per heatmap; arrow keys move between cells and the readout announces each', async () => {
    const { page, problems } = await openPage();
    await page.focus('#align-view .figure-toolbar button:last-of-type');  // "fit", just before the heatmap
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'heatmap');
    assert.equal(await page.getAttribute('#heatmap', 'data-focus-row'), '0');
    assert.equal(await page.getAttribute('#heatmap', 'data-focus-col'), '0');
    for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown']) await page.keyboard.press(key);
    assert.equal(await page.getAttribute('#heatmap', 'data-focus-row'), '1');
    assert.equal(await page.getAttribute('#heatmap', 'data-focus-col'), '2');
    const figure = await figureOf(page, 'heatmap');
    assert.equal(await page.getAttribute('#heatmap-readout', 'aria-live'), 'polite');
    assert.equal(await page.textContent('#heatmap-readout'),
      `anciano ← man: ${figure.weights[12].toFixed(3)}${figure.links.some(([s, t]) => s === 2 && t === 1) ? ' (link)' : ''} · row 2 of 8, column 3 of 10`);
    await page.keyboard.press('End');
    assert.equal(await page.getAttribute('#heatmap', 'data-focus-col'), '9');
    await page.keyboard.press('Tab');  // out of the figure at once: its cells are not tab stops
    assert.notEqual(await page.evaluate(() => document.activeElement.id), 'heatmap');
    assert.equal(await page.evaluate(() => document.getElementById('heatmap').contains(document.activeElement)), false);
    const stops = await page.$$eval('#heatmap [tabindex], #heatmap button, #heatmap a', (all) => all.length);
    assert.equal(stops, 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('zoom changes the cell size; the general-attention model compares side by side', async () => {
    const { page, problems } = await openPage();
    const cell = Number(await page.getAttribute('#heatmap', 'data-cell'));
    await page.click('#align-view .zoom button[aria-label="zoom out"]');
    assert.ok(Number(await page.getAttribute('#heatmap', 'data-cell')) < cell);
    await page.focus('#heatmap');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    assert.ok(Number(await page.getAttribute('#heatmap', 'data-cell')) > cell);
    assert.equal(await page.getAttribute('body', 'data-general-shipped'), 'true');
    await page.check('#compare');
    await page.waitForFunction(() => !document.getElementById('compare-figure').hidden, null, { timeout: 20000 });
    const general = await figureOf(page, 'heatmap-general'), additive = await figureOf(page, 'heatmap');
    assert.deepEqual([general.rows, general.cols], [additive.rows, additive.cols]);
    assert.notDeepEqual(general.weights, additive.weights, 'two different models give different attention');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('link marks are outlines over the colours, not black squares, in every heatmap that shows links', async () => {
    const { page, problems } = await openPage();
    await page.check('#compare');
    await page.waitForFunction(() => !document.getElementById('compare-figure').hidden, null, { timeout: 20000 });
    for (const id of ['heatmap', 'heatmap-general']) await checkLinkMarks(page, id);
    await page.screenshot({ path: new URL('link-marks.png', SCREENSHOTS).pathname, fullPage: true });
    const attention = { source: ['the', 'cat'], target: ['el', 'gato'], weights: [[0.9, 0.1], [0.2, 0.8]] };
    await page.setInputFiles('#byo-file', { name: 'attention.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(attention)) });
    await page.waitForFunction(() => document.getElementById('byo-heatmap').dataset.rows === '2');
    await checkLinkMarks(page, 'byo-heatmap');  // in its own tab, which the file chooser opened
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('200-word sentences, CJK, accents, right-to-left text and emoji sequences display', async () => {
    const { page, problems } = await openPage();
    const long = Array.from({ length: 200 }, (_, i) => ['the', 'old', 'house', 'near', 'river'][i % 5]).join(' ');
    await typeAndWait(page, '#source', long, 8, 200);
    assert.match(await page.getAttribute('#heatmap', 'data-overflow'), /right/, 'a wide heatmap scrolls inside its box');
    await typeAndWait(page, '#source', '東京 は 大きい Ñandú café مرحبا بالعالم', 8, 7);
    assert.deepEqual((await figureOf(page, 'heatmap')).colLabels, ['東京', 'は', '大きい', 'Ñandú', 'café', 'مرحبا', 'بالعالم']);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, 'the wide heatmap scrolls inside its box, not the page');
    // The tokenizer splits emoji sequences; no token may be drawn as nothing (a lone joiner or selector).
    await page.fill('#source', 'I ❤️ my 👨‍👩‍👧 .');
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.cols !== '7');
    await settled(page);
    const drawn = (await figureOf(page, 'heatmap')).colText;
    const invisible = drawn.filter((label) => /^[\p{Cf}\p{Mn}\p{Me}\p{Z}\p{Cc}]*$/u.test(label));
    assert.deepEqual(invisible, [], `labels drawn: ${JSON.stringify(drawn)}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('hostile text is shown as text and runs nothing', async () => {
    const { page, problems } = await openPage();
    await page.evaluate(() => { window.pwned = false; });
    await typeAndWait(page, '#source', '<img src=x onerror="window.pwned=true"> <script>window.pwned=true</script>', 8, 27);
    assert.equal(await page.evaluate(() => window.pwned), false);
    assert.equal(await page.$$eval('main img, main script', (n) => n.length), 0);
    const labels = (await figureOf(page, 'heatmap')).colLabels;
    assert.ok(labels.includes('img') && labels.includes('<'));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an error is said next to its control and clears the figures, links and exports it no longer matches', async () => {
    const { page, problems } = await openPage();
    await page.fill('#source', '   ');
    await page.waitForFunction(() => !document.getElementById('source-error').hidden, null, { timeout: 15000 });
    assert.match(await page.textContent('#source-error'), /source/i);
    assert.equal(await page.getAttribute('#source-error', 'role'), 'alert');
    assert.equal(await page.getAttribute('#source', 'aria-invalid'), 'true');
    assert.equal(await page.getAttribute('#heatmap', 'data-rows'), '0');
    assert.equal(await page.textContent('#pharaoh'), '');
    assert.equal(await page.isVisible('#heatmap'), false);
    assert.equal(await page.getAttribute('#lines', 'data-lines'), '0');
    for (const id of ['export-svg', 'export-png', 'export-json', 'export-links']) assert.equal(await page.isDisabled(`#${id}`), true, id);
    await typeAndWait(page, '#source', 'The cat sleeps .', 8, 4);
    assert.equal(await page.isVisible('#source-error'), false);
    assert.equal(await page.isDisabled('#export-svg'), false);
    // a threshold out of range is clamped and said so; no number at all is refused
    await page.selectOption('#method', 'threshold');
    await page.fill('#threshold', '1.5');
    assert.match(await page.textContent('#threshold-error'), /threshold 1\.5 is above 1: using 1/);
    await settled(page);
    assert.equal(await page.getAttribute('#heatmap', 'data-rows'), '8');
    await page.fill('#threshold', '-1');
    assert.match(await page.textContent('#threshold-error'), /threshold -1 is below 0: using 0/);
    await page.fill('#threshold', '');
    assert.match(await page.textContent('#threshold-error'), /threshold needs a number from 0 to 1/);
    assert.equal(await page.getAttribute('#heatmap', 'data-rows'), '0');
    assert.equal(await page.textContent('#pharaoh'), '');
    // the translation: an empty sentence and a beam out of range
    await page.fill('#translate-source', '');
    await page.click('#translate');
    await page.waitForFunction(() => !document.getElementById('translate-source-error').hidden, null, { timeout: 15000 });
    assert.equal(await page.getAttribute('#translate-heatmap', 'data-rows'), '0');
    assert.equal(await page.textContent('#translation'), '');
    await page.fill('#translate-source', 'The cat sleeps .');
    await page.fill('#beam', '17');
    await page.click('#translate');
    assert.match(await page.textContent('#beam-error'), /beam 17 is above 16: using 16/);
    await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok', null, { timeout: 20000 });
    assert.notEqual(await page.getAttribute('#translate-heatmap', 'data-rows'), '0');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('long work shows a busy indicator within a moment, and Cancel stops it', async () => {
    const { page, problems } = await openPage();
    // The longest source the models take, 1,000 words (about 1,300 pieces): en-es's Transformer
    // and HMM take ~2 s natively on the 2-core VM, longer here. (The RNN took ~10 s over one
    // 100 000-letter word; the Transformer refuses that many pieces at once, naming the limit.
    // 5 000 letters took ~0.35 s, short enough to end before the click: the indicator hid mid-click.)
    await page.fill('#source', Array(166).fill('the cat sleeps on the mat').join(' ') + ' now .');
    await page.waitForSelector('#align-view .busy:not([hidden])', { timeout: 2000 });
    assert.match(await page.textContent('#align-view .busy'), /Aligning… \d+\.\d s/);
    assert.equal(await page.getAttribute('#align-view', 'data-busy'), 'true');
    await page.click('#align-view .busy button.cancel');
    await page.waitForFunction(() => !document.getElementById('source-error').hidden);
    assert.match(await page.textContent('#source-error'), /Cancelled/);
    assert.equal(await page.getAttribute('#heatmap', 'data-rows'), '0');
    assert.equal(await page.isVisible('#align-view .busy'), false);
    await typeAndWait(page, '#source', 'The cat sleeps .', 8, 4);  // a fresh worker answers
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('how far a pair is from what the model learned', () => {
  // the line under a figure (web/page/familiarity.mjs): whether it shows, its level and its words
  const familiarityOf = async (page, id) => ({
    hidden: await page.$eval(`#${id}`, (p) => p.hidden), level: await page.getAttribute(`#${id}`, 'data-level'),
    text: await page.textContent(`#${id}`),
  });
  const waitForLevel = (page, id, level) => page.waitForFunction(([i, l]) => {
    const line = document.getElementById(i);
    return !line.hidden && line.dataset.level === l;
  }, [id, level], { timeout: 20000 });

  test('a software string is familiar, the same words scrambled far; a method without the model says nothing', async () => {
    const { page, problems } = await openPage();
    const first = await familiarityOf(page, 'align-familiarity');  // the default example: an everyday sentence
    assert.equal(first.hidden, false);
    assert.ok(['familiar', 'unusual', 'far'].includes(first.level), first.level);
    assert.match(first.text, /^This sentence pair is .* held-out sentence/);
    await page.fill('#source', 'Save the document before you close the window .');
    await page.fill('#target', 'Guarde el documento antes de cerrar la ventana .');
    await waitForLevel(page, 'align-familiarity', 'familiar');
    assert.match((await familiarityOf(page, 'align-familiarity')).text, /like what the model learned from the software help pages/);
    await page.fill('#target', 'ventana la cerrar de antes documento el Guarde .');
    await waitForLevel(page, 'align-familiarity', 'far');
    assert.match((await familiarityOf(page, 'align-familiarity')).text, /far from what the model learned/);
    await page.selectOption('#method', 'hmm');  // the HMM alone: no translation model reads the pair
    await page.waitForFunction(() => document.getElementById('align-familiarity').hidden, null, { timeout: 20000 });
    await page.fill('#translate-source', 'Save the document before you close the window .');
    await page.click('#translate');
    await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok', null, { timeout: 20000 });
    const translated = await familiarityOf(page, 'translate-familiarity');
    assert.equal(translated.hidden, false);
    assert.equal(translated.level, 'familiar', translated.text);
    assert.match(translated.text, /^This input is like what the model learned/);
    // an everyday idiom, which the model mistranslates ("Está enlazando cadas y perros ."), is far
    await page.fill('#translate-source', 'It is raining cats and dogs .');
    await page.click('#translate');
    await waitForLevel(page, 'translate-familiarity', 'far');
    assert.match((await familiarityOf(page, 'translate-familiarity')).text, /^This input is far from what the model learned/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('translation', () => {
  test('a short translation after a longer one fits: no scroll hint, no shaded edge, once the step outline has moved', async () => {
    const { page, problems } = await openPage();
    const chrome = () => page.evaluate(() => {
      const host = document.getElementById('translate-heatmap');
      return { hint: host.parentElement.querySelector('.scroll-hint').hidden, overflow: host.dataset.overflow };
    });
    // the view's example first: nine words from eight
    await page.locator('#tab-translate').click();
    await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok' && document.getElementById('translate-heatmap').dataset.cols === '8');
    await page.fill('#translate-source', 'Hello .');
    await page.click('#translate');
    await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok' && document.getElementById('translate-heatmap').dataset.cols === '2');
    await page.waitForTimeout(600);  // the outline's glide to the last row (180 ms) is over
    assert.deepEqual(await chrome(), { hint: true, overflow: '' });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('translates and steps through the output one word at a time', async () => {
    const { page, problems } = await openPage();
    await page.fill('#translate-source', 'The cat sleeps .');
    await page.click('#translate');
    await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok' && document.getElementById('translate-heatmap').dataset.cols === '4');
    const words = Number(await page.getAttribute('#step', 'max'));
    assert.ok(words > 0);
    assert.ok((await page.textContent('#translation')).length > 0);
    const rowSums = async () => {
      const { weights, rows, cols } = await figureOf(page, 'translate-heatmap');
      return Array.from({ length: rows }, (_, t) => weights.slice(t * cols, (t + 1) * cols).reduce((a, w) => a + w, 0));
    };
    await page.click('#step-back');
    await page.waitForFunction((step) => document.getElementById('translate-heatmap').dataset.step === step, String(words - 1));
    let sums = await rowSums();
    assert.equal(sums[words - 1], 0);  // the last word is not produced yet
    await page.fill('#step', '1');
    await page.dispatchEvent('#step', 'input');
    await page.waitForFunction(() => document.getElementById('translate-heatmap').dataset.step === '1');
    sums = await rowSums();
    assert.ok(sums[0] > 0);
    for (let t = 1; t < words; t++) assert.equal(sums[t], 0);
    assert.match(await page.textContent('#step-label'), /^1 of /);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
