// Motion that helps, in Debian's Chromium: the translation's step-through outlines the word just
// written, and the outline glides to the next step's row (a transition of 150-200 ms); a reader
// who asks for less motion (prefers-reduced-motion: reduce) sees it jump, with no transition.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, useBrowser } from './browser.mjs';

useBrowser();

// The outline over the translation's heatmap: its row, where it is and how it moves.
const markOf = (page) => page.evaluate(() => {
  const mark = document.querySelector('#translate-view .row-mark');
  if (!mark || mark.hidden) return null;
  const style = getComputedStyle(mark), host = document.getElementById('translate-heatmap');
  return {
    row: Number(mark.dataset.row), step: Number(host.dataset.step), cell: Number(host.dataset.cell),
    transform: style.transform, property: style.transitionProperty, duration: parseFloat(style.transitionDuration),
    shift: new DOMMatrix(style.transform).m42, moving: mark.getAnimations().length > 0,
  };
});

// Steps forward as a click does, and says at once which transitions the outline runs and where it is.
const stepForward = (page) => page.evaluate(() => {
  document.getElementById('step-forward').click();
  const mark = document.querySelector('#translate-view .row-mark');
  const { transform } = getComputedStyle(mark);  // the new style, as the next frame draws it
  return {
    row: Number(mark.dataset.row), top: new DOMMatrix(transform).m42,
    running: mark.getAnimations().map((animation) => ({
      property: /** @type {CSSTransition} */ (animation).transitionProperty, duration: animation.effect.getTiming().duration,
    })),
  };
});

async function translated(page) {
  await page.waitForFunction(() => Number(document.getElementById('translate-heatmap').dataset.rows) > 0, null, { timeout: 60000 });
  await page.waitForFunction(() => Number(document.getElementById('step').max) > 2, null, { timeout: 60000 });
}

describe('the step-through moves its highlight', () => {
  test('the current row is outlined, and the outline glides (150-200 ms) to the row of each new step', async () => {
    const { page, problems } = await openPage('#view=translate', { width: 1400, height: 900 });
    await translated(page);
    const first = await markOf(page);
    assert.ok(first, 'the word just written is outlined');
    assert.equal(first.row, first.step - 1, 'the outline is on the current step\'s row');
    assert.match(first.property, /transform|all/);
    assert.ok(first.duration >= 0.15 && first.duration <= 0.2, `a transition of ${first.duration} s`);
    await page.locator('#step-back').click();
    await page.waitForFunction((row) => {
      const mark = document.querySelector('#translate-view .row-mark');
      return Number(mark.dataset.row) === row && mark.getAnimations().length === 0;
    }, first.row - 1);
    const back = await markOf(page);
    assert.equal(back.step, first.step - 1);
    assert.equal(back.shift, back.row * back.cell, 'the outline ends on the new row');
    // a step moves it: the change starts a transition of its transform, from the old row to the new
    const started = await stepForward(page);
    assert.deepEqual(started.running, [{ property: 'transform', duration: 180 }]);
    assert.equal(started.row, first.row);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('with reduced motion asked for, the outline jumps to the new row: no transition', async () => {
    const { page, problems } = await openPage('#view=translate', { width: 1400, height: 900, before: (p) => p.emulateMedia({ reducedMotion: 'reduce' }) });
    await translated(page);
    const first = await markOf(page);
    assert.ok(first, 'the word just written is outlined');
    assert.equal(first.duration, 0, `no transition: ${first.duration} s`);
    await page.locator('#step-back').click();
    await page.waitForFunction((row) => Number(document.querySelector('#translate-view .row-mark').dataset.row) === row, first.row - 1);
    const started = await stepForward(page);
    assert.deepEqual(started.running, [], 'no transition runs');
    assert.equal(started.top, first.row * first.cell, 'on the new row at once');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
