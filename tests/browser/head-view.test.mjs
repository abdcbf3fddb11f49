// The model view's head view in Debian's Chromium (web/page/head-view.mjs), after BertViz's: the
// words on both sides, a line per head in the head's colour and as dark as its weight, pointing at
// a word leaves its lines alone, a head's swatch hides and shows that head, and the layer select
// redraws it; it sits beside the layer × head grid on a desktop.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENSHOTS, figureOf, openPage, useBrowser } from './browser.mjs';

useBrowser();

const lines = (page) => page.$$eval('#all-heads line', (all) => all.map((line) => ({
  row: Number(line.dataset.row), col: Number(line.dataset.col), head: Number(line.parentElement.dataset.head),
  colour: line.parentElement.getAttribute('stroke'), opacity: Number(line.getAttribute('stroke-opacity')),
  shown: getComputedStyle(line).visibility === 'visible',
})));

describe('the head view', () => {
  test('shows every head of a layer as coloured lines between the words, filtered by pointing and by the heads\' swatches', async () => {
    const { page, problems } = await openPage('#view=model', { width: 1400, height: 900 });
    await page.waitForFunction(() => Number(document.getElementById('all-heads').dataset.lines) > 0, null, { timeout: 60000 });
    // the words on both sides: the Spanish rows on the left, the English columns on the right
    const words = await page.$$eval('#all-heads text', (all) => all.map((t) => [t.dataset.row ? 'row' : 'col', t.textContent]));
    assert.deepEqual(words.filter(([side]) => side === 'row').map(([, w]) => w), 'El anciano camina al mercado cada mañana .'.split(' '));
    assert.deepEqual(words.filter(([side]) => side === 'col').map(([, w]) => w), 'The old man walks to the market every morning .'.split(' '));
    // the layer the alignment reads, and its four heads in four colours
    assert.equal(await page.inputValue('#heads-layer'), '1');
    const drawn = await lines(page);
    const colours = new Map(drawn.map((line) => [line.head, line.colour]));
    assert.deepEqual([...colours.keys()].sort(), [0, 1, 2, 3]);
    assert.equal(new Set(colours.values()).size, 4, 'one colour per head');
    // a line is as dark as its weight in that head's map
    await page.click('#model-view [data-layer="1"][data-head="0"]');
    await page.waitForSelector('#head-figure:not([hidden])');
    const map = await figureOf(page, 'head-view');
    for (const line of drawn.filter((l) => l.head === 0).slice(0, 5)) {
      assert.ok(Math.abs(line.opacity - Math.min(1, map.weights[line.row * map.cols + line.col])) < 0.002, JSON.stringify(line));
    }
    // pointing at a word on the left leaves its lines alone
    await page.hover('#all-heads text[data-row="2"]');
    const pointed = await lines(page);
    assert.ok(pointed.some((l) => l.shown));
    assert.ok(pointed.every((l) => l.shown === (l.row === 2)), 'only the lines of camina');
    await page.hover('#all-heads text[data-col="3"]');
    assert.ok((await lines(page)).every((l) => l.shown === (l.col === 3)), 'only the lines into walks');
    await page.mouse.move(5, 5);
    assert.ok((await lines(page)).every((l) => l.shown), 'every line again');
    // a head's swatch hides its lines and shows them again
    await page.click('#heads-legend [data-head="1"]');
    assert.equal(await page.getAttribute('#heads-legend [data-head="1"]', 'aria-pressed'), 'false');
    assert.ok((await lines(page)).every((l) => l.shown === (l.head !== 1)));
    await page.click('#heads-legend [data-head="1"]');
    assert.ok((await lines(page)).every((l) => l.shown));
    // another layer redraws it
    await page.selectOption('#heads-layer', '0');
    await page.waitForFunction(() => document.getElementById('all-heads').dataset.layer === '0');
    // beside the grid on a desktop
    const grid = await page.locator('#model-view').boundingBox(), heads = await page.locator('#all-heads').boundingBox();
    assert.ok(heads.x >= grid.x + grid.width && heads.y < grid.y + grid.height, `beside the grid: ${JSON.stringify({ grid, heads })}`);
    await page.screenshot({ path: new URL('head-view.png', SCREENSHOTS).pathname });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('self-attention shows the same words on both sides; a phone keeps the head view within its width', async () => {
    const { page, problems } = await openPage('#view=model&kind=encoder', { width: 390, height: 844, touch: true });
    await page.waitForFunction(() => Number(document.getElementById('all-heads').dataset.lines) > 0, null, { timeout: 60000 });
    const sides = await page.$$eval('#all-heads text', (all) => [all.filter((t) => t.dataset.row).map((t) => t.textContent), all.filter((t) => t.dataset.col).map((t) => t.textContent)]);
    assert.deepEqual(sides[0], sides[1]);
    assert.equal(await page.inputValue('#heads-layer'), '0');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls ${overflow} px sideways`);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
