// The page's look in Debian's Chromium: one type scale for every heading, hint, note and caption,
// one spacing scale for the sections, and an accent taken from viridis (the heatmaps' default map)
// that reads on the page's background in the light and the dark theme.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { viridis } from '../../web/page/colormap.mjs';
import { contrast, cssColour, openPage, rgbOf, useBrowser } from './browser.mjs';

useBrowser();

const SCALE = [0.75, 0.833, 1, 1.2, 1.44, 1.728].map((rem) => rem * 16);  // style.css --step--2 ... --step-3

describe('the page\'s look', () => {
  test('headings, hints, notes, captions and legends take their sizes from one type scale', async () => {
    const { page, problems } = await openPage('', { width: 1400, height: 900 });
    for (const view of ['align', 'model', 'translate', 'byo', 'playground']) {
      await page.locator(`#tab-${view}`).click();
      const sizes = await page.evaluate(() => [...document.querySelectorAll('h1, main > section:not([hidden]) :is(h2, .hint, .figure-note, figcaption, legend, summary, .readout)')]
        .filter((e) => e.getClientRects().length).map((e) => [e.id || e.className || e.tagName, parseFloat(getComputedStyle(e).fontSize)]));
      const off = sizes.filter(([, size]) => !SCALE.some((step) => Math.abs(step - size) < 0.05));
      assert.deepEqual(off, [], `${view}: sizes off the scale`);
      const padding = await page.evaluate(() => getComputedStyle(document.querySelector('main > section:not([hidden])')).paddingTop);
      assert.equal(padding, '16px', `${view}: a section's padding is --space-4`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const colorScheme of ['light', 'dark']) {
    test(`the ${colorScheme} theme's accent is a viridis colour that reads on the page`, async () => {
      const { page, problems } = await openPage('', { colorScheme });
      const accent = rgbOf(await cssColour(page, '--accent')), background = rgbOf(await cssColour(page, '--bg'));
      const nearest = Math.min(...Array.from({ length: 101 }, (_, i) => Math.max(...viridis(i / 100).map((c, k) => Math.abs(c - accent[k])))));
      assert.ok(nearest <= 6, `${accent} is ${nearest} from the nearest viridis colour`);
      assert.ok(contrast(accent, background) >= 4.5, `contrast ${contrast(accent, background).toFixed(2)}`);
      // the chosen tab is underlined in it
      assert.deepEqual(rgbOf(await page.$eval('#tab-align', (tab) => getComputedStyle(tab).borderBottomColor)), accent);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
