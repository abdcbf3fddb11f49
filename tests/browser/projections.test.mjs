// The playground's projections in Debian's Chromium: W_Q, W_K, W_V (and W_O with two heads) as
// tables the reader edits, Q, K and V shown, the steps numbered from tokens to output, the weights
// those of softmax(Q·Kᵀ/√d) for the matrices typed, and every matrix kept in the link.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENSHOTS, figureOf, openPage, useBrowser } from './browser.mjs';

const session = useBrowser();

const TOKENS = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0.5, 0.5, 0]];
const table = (page, id) => page.$$eval(`#${id} tr`, (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => Number(cell.textContent))));
const redrawnWeights = async (page, action) => {
  const before = await page.getAttribute('#playground-heatmap', 'data-drawn-at');
  await action();
  await page.waitForFunction((was) => document.getElementById('playground-heatmap').dataset.drawnAt !== was, before);
  return (await figureOf(page, 'playground-heatmap')).weights;
};

// softmax(Q Kᵀ / √d) of the tokens through wq and wk ([in][out]), one head.
function reference(wq, wk) {
  const times = (x, w) => x.map((row) => w[0].map((_, j) => row.reduce((sum, a, k) => sum + a * w[k][j], 0)));
  const q = times(TOKENS, wq), k = times(TOKENS, wk);
  return q.flatMap((qi) => {
    const scores = k.map((kj) => qi.reduce((sum, a, c) => sum + a * kj[c], 0) / 2);
    const top = Math.max(...scores), e = scores.map((s) => Math.exp(s - top)), total = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / total);
  });
}
const I = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]];

describe('the playground\'s projections', () => {
  test('identity projections change nothing; an edited W_K changes the weights as softmax(Q·Kᵀ/√d) says', async () => {
    const { page, problems } = await openPage('#view=playground', { width: 1400, height: 900 });
    await page.waitForSelector('body[data-playground-ready="true"]');
    assert.equal(await page.isVisible('#pg-projections'), false, 'off at first');
    const plain = (await figureOf(page, 'playground-heatmap')).weights;
    const same = await redrawnWeights(page, () => page.check('#pg-project'));
    assert.equal(await page.isVisible('#pg-projections'), true);
    assert.equal(await page.isVisible('#pg-wo-figure'), false, 'W_O only with several heads');
    same.forEach((w, i) => assert.ok(Math.abs(w - plain[i]) < 1e-6));
    assert.deepEqual(await table(page, 'pg-q'), TOKENS, 'Q = X·I');
    assert.equal(await page.getAttribute('#playground', 'data-projected'), 'true');
    assert.match(await page.evaluate(() => getComputedStyle(document.getElementById('tokens-caption'), '::before').content), /①/);
    // W_K swaps the first two components
    const wk = [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]];
    await page.fill('#wk-0-0', '0');
    await page.fill('#wk-1-1', '0');
    await page.fill('#wk-0-1', '1');
    const weights = await redrawnWeights(page, () => page.fill('#wk-1-0', '1'));
    const expected = reference(I, wk);
    weights.forEach((w, i) => assert.ok(Math.abs(w - expected[i]) < 1e-5, `weight ${i}: ${w} vs ${expected[i]}`));
    assert.deepEqual((await table(page, 'pg-k'))[0], [0, 1, 1, 0], 'K = X·W_K');
    // the link keeps the box and the matrices
    const { page: again } = await openPage(page.url().slice(session.base.length), { width: 1400, height: 900 });
    await again.waitForSelector('body[data-playground-ready="true"]');
    assert.equal(await again.isChecked('#pg-project'), true);
    assert.equal(await again.inputValue('#wk-1-0'), '1');
    const restored = (await figureOf(again, 'playground-heatmap')).weights;
    restored.forEach((w, i) => assert.ok(Math.abs(w - expected[i]) < 1e-5));
    await again.close();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('with two heads, W_O turns the heads\' outputs side by side into the output', async () => {
    const { page, problems } = await openPage('#view=playground&pg-project=1&heads=2', { width: 1400, height: 900 });
    await page.waitForSelector('body[data-playground-ready="true"]');
    assert.equal(await page.isVisible('#pg-wo-figure'), true);
    assert.equal(await page.isVisible('#pg-final-figure'), true);
    assert.deepEqual(await table(page, 'pg-final'), (await table(page, 'output')).map((row) => row.map((x) => Number(x.toFixed(3)))));
    await page.fill('#wo-0-0', '2');
    await page.waitForFunction(() => document.querySelector('#pg-final tr td').textContent !== document.querySelector('#output tr td').textContent.slice(0, 5));
    const output = await table(page, 'output'), final = await table(page, 'pg-final');
    assert.ok(Math.abs(final[0][0] - 2 * output[0][0]) < 2e-3, `${final[0][0]} = 2 × ${output[0][0]}`);
    assert.ok(Math.abs(final[0][1] - output[0][1]) < 2e-3);
    await page.screenshot({ path: new URL('projections.png', SCREENSHOTS).pathname, fullPage: true });
    // a box without a number is said beside it
    await page.fill('#wq-2-3', '');
    await page.waitForFunction(() => document.getElementById('wq-2-3').getAttribute('aria-invalid') === 'true');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
