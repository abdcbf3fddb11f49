// Motion that helps, in Debian's Chromium: the translation's step-through outlines the word just
// written, and the outline glides to the next step's row (a transition of 150-200 ms); the Images
// view's step-through glides its highlight over the caption's words and the strip of maps the same
// way; a reader who asks for less motion (prefers-reduced-motion: reduce) sees them jump, with no
// transition.
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

// The Images view's highlights (the word shown, its map in the strip) after a step forward, as a
// click makes it: the item each is on, the transitions it starts, and whether it covers that item.
const stepImages = (page) => page.evaluate(() => {
  document.getElementById('caption-step-forward').click();
  const step = document.querySelector('.caption-word[aria-pressed="true"]').dataset.index;
  return Object.fromEntries([['word', '.caption-mark', '.caption-word'], ['map', '.caption-strip-mark', '#caption-strip figure']].map(([name, selector, items]) => {
    const mark = document.querySelector(selector), item = document.querySelectorAll(items)[Number(step)];
    getComputedStyle(mark).transform;  // the new style, as the next frame draws it: its transition starts
    return [name, {
      index: mark.dataset.index, step, hidden: mark.hidden,
      lands: mark.style.transform === `translate(${item.offsetLeft}px, ${item.offsetTop}px)`,  // where it goes
      running: mark.getAnimations().map((animation) => ({
        property: /** @type {CSSTransition} */ (animation).transitionProperty, duration: animation.effect.getTiming().duration,
      })).filter((run) => run.property === 'transform'),
    }];
  }));
});

// Whether each highlight now covers its item exactly, on screen.
const covered = (page) => page.evaluate(() => [['.caption-mark', '.caption-word[aria-pressed="true"]'], ['.caption-strip-mark', '#caption-strip figure.chosen']]
  .every(([mark, item]) => {
    const a = document.querySelector(mark).getBoundingClientRect(), b = document.querySelector(item).getBoundingClientRect();
    return Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.width - b.width) < 0.5;
  }));

describe('the Images view\'s step-through moves its highlights', () => {
  test('the word shown and its map are highlighted, and each highlight glides (180 ms) to the next', async () => {
    const { page, problems } = await openPage('#view=images', { width: 1400, height: 900 });
    await page.waitForSelector('#caption[data-caption]', { timeout: 60000 });
    await page.waitForFunction(() => document.querySelectorAll('.caption-word').length > 2);
    await page.waitForFunction(() => [...document.querySelectorAll('.caption-mark, .caption-strip-mark')].every((mark) => mark.getAnimations().length === 0));
    assert.ok(await covered(page), 'on the first word and its map');
    const moved = await stepImages(page);
    for (const name of ['word', 'map']) {
      assert.equal(moved[name].index, moved[name].step, `the ${name}'s highlight is on the step`);
      assert.equal(moved[name].hidden, false);
      assert.ok(moved[name].lands, `the ${name}'s highlight ends on its item`);
      assert.deepEqual(moved[name].running, [{ property: 'transform', duration: 180 }], `the ${name}'s highlight glides`);
    }
    await page.waitForFunction(() => [...document.querySelectorAll('.caption-mark, .caption-strip-mark')].every((mark) => mark.getAnimations().length === 0));
    assert.ok(await covered(page), 'on the second word and its map');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('with reduced motion asked for, the highlights jump: no transition', async () => {
    const { page, problems } = await openPage('#view=images', { width: 1400, height: 900, before: (p) => p.emulateMedia({ reducedMotion: 'reduce' }) });
    await page.waitForSelector('#caption[data-caption]', { timeout: 60000 });
    await page.waitForFunction(() => document.querySelectorAll('.caption-word').length > 2);
    const moved = await stepImages(page);
    for (const name of ['word', 'map']) {
      assert.deepEqual(moved[name].running, [], `the ${name}'s highlight runs no transition`);
      assert.ok(moved[name].lands, `the ${name}'s highlight is on its item at once`);
    }
    assert.ok(await covered(page), 'on the second word and its map at once');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
