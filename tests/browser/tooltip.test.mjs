// Tooltips at the pointer in Debian's Chromium (web/page/tooltip.mjs): a heatmap's cell and a small
// map of the model view say what is under the pointer beside it, as their readouts do; leaving the
// figure hides the tooltip, and a finger gets none (it would cover it; the readout says it).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, useBrowser } from './browser.mjs';

useBrowser();

// The page coordinates of the middle of cell (t, s) of heatmap `id`.
const cellCentre = (page, id, t, s) => page.evaluate(async ([figure, row, col]) => {
  const { heatmapOf } = await import('./views.mjs');
  const heatmap = heatmapOf(document.getElementById(figure));
  const { cell, left, top } = heatmap.layout;
  const box = heatmap.host.getBoundingClientRect();
  return { x: box.left + heatmap.host.clientLeft + left + col * cell + cell / 2 - heatmap.host.scrollLeft,
    y: box.top + heatmap.host.clientTop + top + row * cell + cell / 2 - heatmap.host.scrollTop };
}, [id, t, s]);

const tip = (page) => page.evaluate(() => {
  const element = document.getElementById('tooltip');
  if (!element || element.hidden) return null;
  const box = element.getBoundingClientRect();
  return { text: element.textContent, left: box.left, top: box.top, right: box.right, bottom: box.bottom };
});

describe('tooltips at the pointer', () => {
  test('a heatmap cell says its words and weight beside the pointer, as the readout does; leaving hides it', async () => {
    const { page, problems } = await openPage('', { width: 1400, height: 900 });
    const { x, y } = await cellCentre(page, 'heatmap', 1, 1);  // anciano ← old
    await page.mouse.move(x, y);
    const shown = await tip(page);
    assert.ok(shown, 'a tooltip shows');
    assert.match(shown.text, /^anciano ← old: \d\.\d{3}/);
    assert.ok((await page.textContent('#heatmap-readout')).startsWith(shown.text), 'the readout says the same');
    assert.ok(Math.abs(shown.left - x) < 40 && Math.abs(shown.top - y) < 40, `beside the pointer: ${JSON.stringify(shown)} at ${x}, ${y}`);
    assert.ok(shown.right <= 1400 && shown.bottom <= 900, 'inside the window');
    await page.mouse.move(5, 5);
    assert.equal(await tip(page), null, 'leaving the figure hides it');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a small map of the model view is labelled on hover with its layer, head, words and weight', async () => {
    const { page, problems } = await openPage('', { width: 1400, height: 900 });
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => Number(document.getElementById('model-view').dataset.layers) > 0, null, { timeout: 60000 });
    const box = await page.locator('#model-view [data-layer="1"][data-head="2"] canvas').boundingBox();
    await page.mouse.move(box.x + 2, box.y + 2);  // the first row and column
    const shown = await tip(page);
    assert.ok(shown, 'a tooltip shows');
    assert.match(shown.text, /^layer 1, head 2: \S+ ← \S+ \d\.\d{3}$/);
    assert.equal(await page.textContent('#model-cell'), shown.text);
    await page.mouse.move(5, 5);
    assert.equal(await tip(page), null);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a finger gets no tooltip: the readout under the figure says it', async () => {
    const { page, problems } = await openPage('', { width: 390, height: 844, touch: true });
    const { x, y } = await cellCentre(page, 'heatmap', 1, 1);
    await page.touchscreen.tap(x, y);
    assert.match(await page.textContent('#heatmap-readout'), /anciano ← old/);
    assert.equal(await tip(page), null);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
