// Bring your own attention in Debian's Chromium: dropped matrices (.npy, JSON) are shown with
// their layer and head, special tokens and subwords handled, gold links scored and marked; every
// file or value the view cannot use is refused with a message next to its control that names the
// problem, and the last good matrix stays; large matrices arrive with zoom and an overview.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { npy } from '../js/npy.mjs';
import { SCREENSHOTS, cellPixel, cssColour, figureOf, near, openPage, redrawn, rgbOf, useBrowser } from './browser.mjs';

useBrowser();

const file = (name, content) => ({
  name, mimeType: /\.npy$/.test(name) ? 'application/octet-stream' : 'text/plain',
  buffer: Buffer.isBuffer(content) ? content : Buffer.from(typeof content === 'string' ? content : JSON.stringify(content)),
});
const choose = (page, ...files) => page.setInputFiles('#byo-file', files);
const shows = (page, rows, cols) => page.waitForFunction(([r, c]) => {
  const heatmap = document.getElementById('byo-heatmap');
  return heatmap.dataset.rows === String(r) && heatmap.dataset.cols === String(c);
}, [rows, cols], { timeout: 15000 });
// The problem said beside the file input about the file called `name`.
const fileProblem = (page, name) => page.waitForFunction((file) => {
  const box = document.getElementById('byo-file-error');
  return !box.hidden && box.textContent.startsWith(`${file}:`);
}, name).then(() => page.textContent('#byo-file-error'));
const settled = (page) => page.waitForFunction(() => document.getElementById('byo-view').dataset.state !== 'busy');


const SUBWORDS = {
  source: ['<s>', '▁The', '▁ca', 't', '</s>'],
  target: ['▁El', '▁gato', '</s>'],
  weights: [[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.3, 0.4, 0.1], [0.2, 0.2, 0.2, 0.2, 0.2]],
};

describe('bring your own attention', () => {
  test('a 4-D .npy shows the chosen layer and head, and the mean over heads; layer and head stay in range, saying so', async () => {
    const { page, problems } = await openPage();
    const values = Array.from({ length: 48 }, (_, i) => (i % 7) / 10);
    await choose(page, file('attention.npy', npy([2, 2, 3, 4], values)));
    await shows(page, 3, 4);
    const shown = async () => (await figureOf(page, 'byo-heatmap')).weights;
    await redrawn(page, 'byo-heatmap', () => page.fill('#byo-layer', '1'));
    let cells = await shown();
    values.slice(24, 36).forEach((v, i) => assert.ok(Math.abs(cells[i] - v) < 1e-6, `layer 1 head 0 cell ${i}`));
    await page.fill('#byo-layer', '5');
    await page.waitForFunction(() => !document.getElementById('byo-layer-error').hidden);
    assert.match(await page.textContent('#byo-layer-error'), /layer 5 is above 1: using 1/);
    await page.fill('#byo-head', '-1');
    await page.waitForFunction(() => /head -1 is below 0: using 0/.test(document.getElementById('byo-head-error').textContent));
    assert.equal(await page.getAttribute('#byo-head-error', 'role'), 'alert');
    await page.fill('#byo-head', '');
    await page.waitForFunction(() => /head needs a number from 0 to 1/.test(document.getElementById('byo-head-error').textContent));
    assert.equal(await page.getAttribute('#byo-heatmap', 'data-rows'), '3', 'the last good matrix stays');
    await redrawn(page, 'byo-heatmap', () => page.fill('#byo-head', '0'));
    await redrawn(page, 'byo-heatmap', () => page.selectOption('#byo-aggregate', 'mean'));
    assert.equal(await page.isVisible('#byo-head-error'), false);
    cells = await shown();
    for (let i = 0; i < 12; i++) {
      const mean = [0, 1, 2, 3].reduce((a, k) => a + values[k * 12 + i], 0) / 4;
      assert.ok(Math.abs(cells[i] - mean) < 1e-6, `mean cell ${i}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('JSON with special tokens and subwords, and a gold file scored live and marked', async () => {
    const { page, problems } = await openPage();
    await choose(page, file('attention.json', SUBWORDS));
    await shows(page, 2, 2);
    let figure = await figureOf(page, 'byo-heatmap');
    assert.deepEqual(figure.colLabels, ['The', 'cat']);
    assert.equal(await page.textContent('#byo-pharaoh'), '0-0 1-1');
    // renormalized without specials: row "gato" = (0.1, 0.3 + 0.4) / 0.8
    assert.ok(Math.abs(figure.weights[2] - 0.1 / 0.8) < 1e-6 && Math.abs(figure.weights[3] - 0.7 / 0.8) < 1e-6);
    await choose(page, file('gold.txt', '0-0 1-0\n'));
    await page.waitForFunction(() => document.getElementById('byo-score').textContent.length > 0);
    // A = {0-0, 1-1}, S = {0-0, 1-0}: AER = 1 - 2*1/4 = 0.5, precision 0.5, recall 0.5
    assert.match(await page.textContent('#byo-score'), /AER 0\.500 · precision 0\.500 · recall 0\.500 against gold\.txt/);
    assert.equal(await page.getAttribute('#byo-score', 'data-gold-shape'), 'fits');
    figure = await figureOf(page, 'byo-heatmap');
    assert.deepEqual(figure.gold, [[0, 0], [1, 0]]);
    const gold = rgbOf(await cssColour(page, '--gold'));
    // a gold link is a gold triangle in its cell's top-left corner; a link an outline: they differ
    // in shape, not only in colour
    const link = rgbOf(await cssColour(page, '--link'));
    assert.ok(near(await cellPixel(page, 'byo-heatmap', 0, 1, { dx: 2, dy: 2 }), gold, 6), 'gold in the corner of gold 1-0');
    for (const [dx, dy] of [[1, figure.cell / 2], [figure.cell - 3, figure.cell - 3]]) {
      const pixel = await cellPixel(page, 'byo-heatmap', 0, 1, { dx, dy });
      assert.ok(!near(pixel, gold, 30) && !near(pixel, link, 30), `no outline on a gold link that is not a link (${dx}, ${dy}): ${pixel}`);
    }
    assert.ok(near(await cellPixel(page, 'byo-heatmap', 1, 1, { dx: 3, dy: figure.cell / 2 }), link, 6), 'link 1-1 is outlined');
    await page.uncheck('#byo-merge');
    await shows(page, 2, 3);
    // a new matrix is checked against the gold file held: one it does not fit is shown, not scored
    await choose(page, file('one-row.json', { source: ['a'], target: ['b'], weights: [[1]] }));
    await shows(page, 1, 1);
    assert.equal(await page.textContent('#byo-score'), '');
    assert.match(await page.textContent('#byo-score-error'), /gold\.txt: gold link 1-0 is outside the matrix shown.*not scored/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('with special tokens shown, merging subwords keeps each special token its own row and column', async () => {
    const { page, problems } = await openPage();
    await page.uncheck('#byo-special');
    await choose(page, file('specials.json', {
      source: ['<s>', '▁The', '▁ca', 't', '▁sleeps', '.', '</s>'],
      target: ['▁El', '▁gato', '▁duerme', '</s>'],
      weights: [[0.1, 0.6, 0.1, 0.1, 0, 0, 0.1], [0, 0.1, 0.3, 0.4, 0.1, 0, 0.1], [0, 0, 0, 0, 0.7, 0.1, 0.2], [0, 0, 0, 0, 0.1, 0.1, 0.8]],
    }));
    await shows(page, 4, 5);
    const figure = await figureOf(page, 'byo-heatmap');
    assert.deepEqual(figure.colLabels, ['<s>', 'The', 'cat', 'sleeps.', '</s>']);
    assert.deepEqual(figure.rowLabels, ['El', 'gato', 'duerme', '</s>']);
    assert.ok(Math.abs(figure.weights[2 * 5 + 4] - 0.2) < 1e-6, 'duerme keeps its </s> weight apart');
    await choose(page, file('bert.json', { source: ['[CLS]', 'it', 'sl', '##eeps', '.', '[SEP]'], target: ['▁duerme', '.', '</s>'], weights: [[0, 0.1, 0.4, 0.4, 0, 0.1], [0, 0, 0, 0, 0.9, 0.1], [0.1, 0, 0, 0, 0.1, 0.8]] }));
    await shows(page, 2, 5);
    const bert = await figureOf(page, 'byo-heatmap');
    assert.deepEqual(bert.colLabels, ['[CLS]', 'it', 'sleeps', '.', '[SEP]']);
    assert.deepEqual(bert.rowLabels, ['duerme.', '</s>']);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the cell readout speaks of the matrix shown: a new one of the same shape reads its own value, another shape clears it', async () => {
    const { page, problems } = await openPage();
    await choose(page, file('first.json', { source: ['a', 'b'], target: ['x', 'y'], weights: [[0.25, 0.75], [0.5, 0.5]] }));
    await shows(page, 2, 2);
    await page.locator('#byo-heatmap').scrollIntoViewIfNeeded();
    const point = await page.evaluate(async () => {
      const { heatmapOf } = await import('./views.mjs');
      const heatmap = heatmapOf(document.getElementById('byo-heatmap'));
      const { cell, left, top } = heatmap.layout;
      const box = heatmap.host.getBoundingClientRect();
      return { x: box.left + heatmap.host.clientLeft + left + 1.5 * cell, y: box.top + heatmap.host.clientTop + top + 0.5 * cell };
    });
    await page.mouse.move(point.x, point.y);
    await page.waitForFunction(() => /x ← b: 0\.750/.test(document.getElementById('byo-heatmap-readout').textContent));
    await choose(page, file('second.json', { source: ['a', 'b'], target: ['x', 'y'], weights: [[0.9, 0.1], [0.5, 0.5]] }));
    await page.waitForFunction(() => /x ← b: 0\.100/.test(document.getElementById('byo-heatmap-readout').textContent));
    await choose(page, file('third.json', { source: ['a', 'b', 'c'], target: ['x'], weights: [[0.2, 0.3, 0.5]] }));
    await shows(page, 1, 3);
    assert.equal(await page.textContent('#byo-heatmap-readout'), '');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a gold file made for a smaller matrix is scored with a warning beside the score', async () => {
    const { page, problems } = await openPage();
    const size = 64;
    const values = new Float32Array(size * size).map((_, i) => ((i % size) === Math.floor(i / size) ? 0.9 : 0.1 / size));
    await choose(page, file('big.npy', npy([size, size], values)));
    await shows(page, size, size);
    await choose(page, file('gold.txt', '0-0 1-1 2-2 6-5\n'));
    await page.waitForFunction(() => /AER/.test(document.getElementById('byo-score').textContent));
    assert.match(await page.textContent('#byo-score'), /AER .* against gold\.txt · ⚠ gold\.txt: its links reach only 6 target × 7 source words of this 64 × 64 matrix/);
    assert.equal(await page.getAttribute('#byo-score', 'data-gold-shape'), 'differs');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('thinned labels start with their index; the last slanted column label has room', async () => {
    const { page, problems } = await openPage();
    const size = 200, words = Array.from({ length: size }, (_, i) => `w${i}`);
    const weights = words.map((_, t) => words.map((__, s) => (s === t ? 0.9 : 0.1 / size)));
    await choose(page, file('big.json', { source: words, target: words, weights }));
    await shows(page, size, size);
    const big = await figureOf(page, 'byo-heatmap');
    assert.ok(big.cell < 12, `cells of ${big.cell} px thin the labels`);
    assert.equal(big.rowText[0], '0 w0');
    assert.equal(big.colText[137], '137 w137');
    await choose(page, file('small.json', { source: ['a', 'b', 'translations'], target: ['x', 'y'], weights: [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]] }));
    await shows(page, 2, 3);
    const small = await figureOf(page, 'byo-heatmap');
    assert.deepEqual(small.colText, ['a', 'b', 'translations'], 'no indices where every label shows');
    const room = await page.evaluate(async () => {
      const { heatmapOf } = await import('./views.mjs');
      const { measurer, themeOf } = await import('./painters.mjs');
      const heatmap = heatmapOf(document.getElementById('byo-heatmap'));
      const { width, left, cell } = heatmap.layout;
      return { beyond: width - left - 3 * cell, needs: measurer(themeOf(heatmap.host))('translations') * 0.71 - cell / 2 };
    });
    assert.ok(room.beyond >= room.needs - 2, `the last label needs ${room.needs} px past the cells, has ${room.beyond}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('files it cannot use are refused, naming the problem, and the last good matrix stays', async () => {
    const { page, problems } = await openPage();
    await choose(page, file('good.json', SUBWORDS));
    await shows(page, 2, 2);
    const refusals = [
      [file('broken.npy', 'not numpy'), /broken\.npy: not a \.npy file/],
      [file('five.npy', npy([1, 1, 1, 2, 2], [0.1, 0.2, 0.3, 0.4])), /five\.npy: the \.npy array has 5 dimensions \(shape \[1,1,1,2,2\]\); expected 2/],
      [file('one.json', { weights: [0.5, 0.5] }), /one\.json: "weights" has 1 dimension/],
      [file('ragged.json', { weights: [[1, 2], [3], [4, 5, 6]] }), /ragged\.json: "weights" is not rectangular: weights\[1\] has 1 entries where 2 numbers were expected/],
      [file('nan.npy', npy([2, 2], [0.5, NaN, 0.5, 0.5])), /nan\.npy: the \.npy array holds NaN at \[0, 1\]/],
      [file('words.json', { source: ['a', 'b', 'c'], weights: [[0.5, 0.5]] }), /"source" has 3 words but "weights" has 2 columns/],
      [file('far.gold', '0-0 7-1\n'), /far\.gold: gold link 7-1 is outside the matrix shown \(source words 0-1, target words 0-1\)/],
      [file('bad.gold', '0-0 x\n'), /bad\.gold: /],
      [file('empty.gold', '\n \n'), /empty\.gold: the gold file has no links/],
    ];
    for (const [bad, message] of refusals) {
      await choose(page, bad);
      const text = await fileProblem(page, bad.name);
      assert.match(text, message);
      assert.match(text, /still showing good\.json/);
      assert.equal(await page.getAttribute('#byo-file-error', 'role'), 'alert');
      assert.equal(await page.getAttribute('#byo-heatmap', 'data-rows'), '2', `after ${bad.name}`);
      assert.deepEqual((await figureOf(page, 'byo-heatmap')).colLabels, ['The', 'cat'], `after ${bad.name}`);
      assert.equal(await page.textContent('#byo-score'), '');
    }
    // a later change still works on the last good matrix
    await page.selectOption('#byo-method', 'itermax');
    await settled(page);
    assert.equal(await page.getAttribute('#byo-heatmap', 'data-rows'), '2');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('two files chosen at once are both read and both reported', async () => {
    const { page, problems } = await openPage();
    await choose(page, file('gold.txt', '0-0 1-1\n'), file('attention.json', SUBWORDS));
    await page.waitForFunction(() => /attention\.json.*gold\.txt/.test(document.getElementById('byo-status').textContent));
    assert.match(await page.textContent('#byo-status'), /attention\.json: 3 × 5; gold\.txt: 2 gold links/);
    assert.match(await page.textContent('#byo-score'), /AER 0\.000/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the drop zone is one tab stop, and Enter opens the file chooser', async () => {
    const { page, problems } = await openPage();
    const opened = page.waitForEvent('filechooser', { timeout: 5000 });  // asked for first: playwright then intercepts the chooser
    await page.focus('#drop');
    await page.keyboard.press('Enter');
    const chooser = await opened;
    assert.equal(chooser.isMultiple(), true);
    await chooser.setFiles(file('attention.json', SUBWORDS));
    await shows(page, 2, 2);
    assert.equal(await page.getAttribute('#byo-file', 'tabindex'), '-1');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a 512 x 512 matrix appears at once, fitted, with an overview once zoomed in', async () => {
    const { page, problems } = await openPage();
    const size = 512;
    const values = new Float32Array(size * size).map((_, i) => ((i % size) === Math.floor(i / size) ? 0.9 : 0.1 / size));
    await choose(page, file('big.npy', npy([size, size], values)));
    await shows(page, size, size);
    const fitted = Number(await page.getAttribute('#byo-heatmap', 'data-cell'));
    assert.ok(fitted < 3, `a big matrix starts fitted (cells of ${fitted} px)`);
    assert.equal(await page.isVisible('#byo-view .overview'), false);
    for (let i = 0; i < 4; i++) await page.click('#byo-view .zoom button[aria-label="zoom in"]');
    assert.equal(await page.isVisible('#byo-view .overview'), true);
    assert.match(await page.getAttribute('#byo-heatmap', 'data-overflow'), /right|bottom/);
    await page.screenshot({ path: new URL('byo-512.png', SCREENSHOTS).pathname });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
