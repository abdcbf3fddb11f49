// A new reader's first walk through the explorer in Debian's Chromium, on a desktop (1400 x 900)
// and a phone (390 x 844, touch): every tab chosen in turn, each view drawn, the page never wider
// than the screen, no console error, and a screenshot of each view in
// build/screenshots/new-user/ (tools/screenshots.mjs writes the README's from the same views).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { SCREENSHOTS, openPage, useBrowser } from './browser.mjs';

useBrowser();

// Each tab, and what shows that its view is drawn.
const WALK = [
  ['align', () => Number(document.getElementById('heatmap').dataset.rows) > 0],
  ['model', () => Boolean(document.getElementById('model-view').dataset.drawnAt)],
  ['translate', () => Number(document.getElementById('translate-heatmap').dataset.rows) > 0],
  ['images', () => document.getElementById('caption').getBoundingClientRect().height > 0],
  ['byo', () => document.getElementById('drop').getBoundingClientRect().height > 0],
  ['playground', () => Number(document.getElementById('playground-heatmap').dataset.rows) > 0],
];

// The views that fit one desktop screen (1400 x 900) without scrolling: every one.
const ONE_SCREEN = new Set(['align', 'model', 'translate', 'images', 'byo', 'playground']);

const SCREENS = [
  ['desktop', { width: 1400, height: 900 }],
  ['phone', { width: 390, height: 844, touch: true }],
];

describe('a new reader walks every view', () => {
  for (const [screen, options] of SCREENS) {
    test(`on a ${screen} (${options.width} x ${options.height}): every view draws, nothing scrolls sideways, no console error`, async () => {
      const folder = new URL('new-user/', SCREENSHOTS);
      await mkdir(folder, { recursive: true });
      const { page, problems } = await openPage('', options);
      for (const [view, drawn] of WALK) {
        await page.locator(`#tab-${view}`).click();
        await page.waitForFunction(drawn, null, { timeout: 30000 });
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        const { scrollWidth, clientWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
        }));
        assert.ok(scrollWidth <= clientWidth, `${view} on a ${screen}: the page is ${scrollWidth} px wide in ${clientWidth}`);
        // every element of the view within the screen's width (a figure scrolls inside its own frame)
        const wide = await page.evaluate((width) => [...document.querySelectorAll('main > section:not([hidden]) *')]
          .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > width + 1 && !e.closest('.heatmap, .lines, .model-grid, pre.tensor'))
          .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className}`).slice(0, 5), clientWidth);
        assert.deepEqual(wide, [], `${view} on a ${screen}: elements past the right edge`);
        if (screen === 'desktop' && ONE_SCREEN.has(view)) {
          const bottom = await page.evaluate(() => document.querySelector('main > section:not([hidden])').getBoundingClientRect().bottom);
          assert.ok(bottom <= options.height, `${view} ends at ${Math.round(bottom)} px, below the ${options.height} px screen`);
        }
        await page.screenshot({ path: new URL(`${view}-${screen}.png`, folder).pathname });
      }
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
