// Drives the real page in Debian's Chromium through playwright-core: it must load without console
// errors, draw the tutorial's weights with the right colours, react to inputs, and fall back to
// the scalar build where SIMD is missing. Screenshots go to build/screenshots/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rgb, viridis } from '../../web/colormap.mjs';
import { SCREENSHOTS, openPage, useBrowser } from './browser.mjs';

const ROW1 = [0.2976, 0.1095, 0.1805, 0.1805, 0.2318];
const ROW5 = [0.2374, 0.144, 0.2374, 0.144, 0.2374];

useBrowser();

async function cells(page) {
  return page.$$eval('#playground-heatmap rect.cell', (rects) => rects.map((r) => ({
    row: Number(r.dataset.row), col: Number(r.dataset.col), value: Number(r.dataset.value), fill: r.getAttribute('fill'),
  })));
}

function checkTutorialWeights(all) {
  assert.equal(all.length, 25);
  for (const cell of all) {
    assert.equal(cell.fill, rgb(viridis(cell.value)), `colour of cell ${cell.row},${cell.col}`);
    if (cell.row === 0) assert.ok(Math.abs(cell.value - ROW1[cell.col]) < 1e-4, `row 1 col ${cell.col}: ${cell.value}`);
    if (cell.row === 4) assert.ok(Math.abs(cell.value - ROW5[cell.col]) < 1e-4, `row 5 col ${cell.col}: ${cell.value}`);
  }
}

describe('explorer page', () => {
  test('loads the SIMD build with no console errors and shows the tutorial weights in the playground', async () => {
    const { page, problems } = await openPage();
    assert.equal(await page.getAttribute('body', 'data-simd'), 'true');
    assert.match(await page.textContent('#build'), /SIMD128/);
    checkTutorialWeights(await cells(page));
    await page.screenshot({ path: new URL('explorer.png', SCREENSHOTS).pathname, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('changing the score, the mask and a token updates the heatmap', async () => {
    const { page, problems } = await openPage();
    await page.selectOption('#score', 'dot');
    let all = await cells(page);
    // dot scores of token 1: 2, 0, 1, 1, 1.5
    const exp = [2, 0, 1, 1, 1.5].map(Math.exp);
    const sum = exp.reduce((a, b) => a + b);
    for (let j = 0; j < 5; j++) assert.ok(Math.abs(all[j].value - exp[j] / sum) < 1e-4);
    await page.check('#causal');
    all = await cells(page);
    assert.equal(all[1].value, 0);
    assert.ok(Math.abs(all[0].value - 1) < 1e-6);
    await page.fill('#token-0-0', '3');
    all = await cells(page);
    assert.ok(Math.abs(all[0].value - 1) < 1e-6);  // causal row 1 still sees only itself
    assert.notEqual(all[5].value, 0);
    await page.fill('#temperature', '0');  // the module rejects it: a message on the page, no crash
    assert.match(await page.textContent('#error'), /temperature must be a positive finite number/);
    assert.equal(await page.isVisible('#error'), true);
    await page.fill('#temperature', '1');
    assert.equal(await page.isVisible('#error'), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('forcing ?simd=0 runs the scalar build with the same numbers', async () => {
    const { page, problems } = await openPage('?simd=0');
    assert.equal(await page.getAttribute('body', 'data-simd'), 'false');
    assert.match(await page.textContent('#build'), /scalar/);
    checkTutorialWeights(await cells(page));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an engine without WebAssembly SIMD falls back to the scalar build', async () => {
    const { page, problems } = await openPage('', { withoutSimd: true });
    assert.equal(await page.getAttribute('body', 'data-simd'), 'false');
    checkTutorialWeights(await cells(page));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('fits a 360 px wide screen', async () => {
    const { page, problems } = await openPage('', { width: 360 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    await page.screenshot({ path: new URL('explorer-360.png', SCREENSHOTS).pathname, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('playground mechanisms', () => {
  const values = (page, id = '#playground-heatmap') => page.$$eval(`${id} rect.cell`, (r) => r.map((x) => Number(x.dataset.value)));

  test('a local window, two heads, sparsemax and the scores table all reach the page', async () => {
    const { page, problems } = await openPage();
    // raw scores of the tutorial: q1.k1 / 2 = 1, q1.k5 / 2 = 0.75
    const firstRow = await page.$$eval('#scores tr:first-child td', (cells) => cells.map((c) => Number(c.textContent)));
    assert.deepEqual(firstRow, [1, 0, 0.5, 0.5, 0.75]);
    await page.selectOption('#local', 'monotonic');
    await page.fill('#half-width', '1');
    let weights = await values(page);
    for (let t = 0; t < 5; t++) {
      for (let s = 0; s < 5; s++) if (Math.abs(s - t) > 1) assert.equal(weights[t * 5 + s], 0, `outside the window ${t},${s}`);
    }
    await page.selectOption('#local', 'none');
    await page.selectOption('#heads', '2');
    await page.fill('#show-head', '1');
    weights = await values(page);
    // head 2 sees the last two components: x1 = [1, 0], x2 = [0, 1], x3 = [0, 0], x4 = [1, 1], x5 = [.5, 0]
    const scores = [1, 0, 0, 1, 0.5].map((s) => s / Math.SQRT2);
    const total = scores.reduce((a, s) => a + Math.exp(s), 0);
    scores.forEach((s, j) => assert.ok(Math.abs(weights[j] - Math.exp(s) / total) < 1e-4, `head 2 weight ${j}`));
    await page.selectOption('#heads', '1');
    await page.selectOption('#probability', 'sparsemax');
    weights = await values(page);
    assert.ok(weights.some((w) => w === 0), 'sparsemax gives exact zeros');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
