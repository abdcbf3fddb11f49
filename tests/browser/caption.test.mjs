// The Images view (#caption, web/page/caption.mjs) in Debian's Chromium: a dragged object changes
// the caption and carries its word's map with it; the presets; the scene, soft or hard, the seed
// and the word in the URL hash; hard attention's sampled cells and "sample again"; an uploaded
// photo; another captioner's maps with a clear message for bad files; the keyboard; a phone's
// width with no sideways scroll; the strip's exports. Screenshots go to build/screenshots/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SCREENSHOTS, openPage, useBrowser } from './browser.mjs';
import { npy } from '../js/npy.mjs';

const session = useBrowser();

// Opens the Images view and waits for its first caption.
async function openImages(hash = '#view=images', options = {}) {
  const opened = await openPage(hash, options);
  await opened.page.waitForSelector('#caption[data-caption]', { timeout: 60000 });
  return opened;
}

// What the view shows: its caption, the word on the stage and that word's strongest cell.
const shown = (page) => page.evaluate(async () => {
  const { captionViewOf } = await import('./caption.mjs');
  const view = captionViewOf(document.getElementById('caption'));
  const canvas = document.getElementById('caption-canvas');
  const [row, col] = (canvas.dataset.peak ?? '').split(',').map(Number);
  return {
    // the scene as the hash keeps it: each fraction to a thousandth of the side
    words: view.result?.words ?? [], hard: view.result?.hard, cells: view.result?.cells ? Array.from(view.result.cells) : null,
    shape: view.result?.attention.shape, word: Number(canvas.dataset.word), row, col, step: view.step,
    scene: { objects: view.scene.objects.map((o) => ({ ...o, x: Math.round(o.x * 1000) / 1000, y: Math.round(o.y * 1000) / 1000, size: Math.round(o.size * 1000) / 1000 })) },
    latency: Number(document.getElementById('caption').dataset.latency),
  };
});

// Waits for a caption other than `before` (the words joined).
const captionChanged = (page, before) => page.waitForFunction((old) => {
  const now = document.getElementById('caption').dataset.caption;
  return now && now !== old;
}, before, { timeout: 30000 });

// The centre of the object frame of `name` in page pixels.
async function centreOf(page, name) {
  const box = await page.locator(`.scene-object[data-name="${name}"]`).first().boundingBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

describe('the Images view', () => {
  test('dragging an object changes the caption and its word\'s map moves with it', async () => {
    const { page } = await openImages();
    let now = await shown(page);
    assert.deepEqual(now.words.filter((w) => ['dog', 'ball'].includes(w)), ['dog', 'ball'], now.words.join(' '));
    await page.locator('.caption-word', { hasText: /^dog$/ }).hover();
    now = await shown(page);
    assert.equal(now.words[now.word], 'dog');
    assert.ok(now.col < 6, `the dog (left) lights up on the left: cell ${now.row},${now.col}`);
    const before = now.words.join(' ');
    // the dog to the top right, above the ball
    const from = await centreOf(page, 'dog');
    const stage = await page.locator('#scene').boundingBox();
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let k = 1; k <= 8; k++) {
      await page.mouse.move(from.x + ((stage.x + 0.78 * stage.width - from.x) * k) / 8, from.y + ((stage.y + 0.2 * stage.height - from.y) * k) / 8);
    }
    await page.mouse.up();
    await captionChanged(page, before);
    now = await shown(page);
    assert.notEqual(now.words.join(' '), before);
    assert.ok(now.words.includes('dog'), now.words.join(' '));
    await page.locator('.caption-word', { hasText: /^dog$/ }).hover();
    now = await shown(page);
    assert.equal(now.words[now.word], 'dog');
    assert.ok(now.col >= 6 && now.row < 6, `the dog's map moved to the top right: cell ${now.row},${now.col} (${now.words.join(' ')})`);
    assert.match(page.url(), /scene=dog_/, 'the scene went into the hash');
    await page.screenshot({ path: new URL('caption-drag.png', SCREENSHOTS).pathname });
    await page.close();
  });

  test('each preset is one click, its caption names its objects, and the line under the figure says what drew it', async () => {
    const { page } = await openImages();
    const presets = await page.$$eval('#caption-presets button', (buttons) => buttons.map((b) => b.dataset.preset));
    assert.ok(presets.length >= 5, `${presets.length} presets`);
    for (const preset of presets) {
      const before = await page.getAttribute('#caption', 'data-caption');
      await page.click(`#caption-presets [data-preset="${preset}"]`);
      if (preset !== presets[0] || before === null) await captionChanged(page, before).catch(() => {});
      const { words, scene } = await shown(page);
      for (const { name } of scene.objects) {
        assert.ok(words.some((w) => w === name || w.startsWith(name.slice(0, 4))), `${preset}: "${words.join(' ')}" names the ${name}`);
      }
    }
    const line = await page.textContent('#caption-model');
    const facts = JSON.parse(await readFile(new URL('web/dist/models/index.json', ROOT), 'utf8')).facts['captioner.safetensors'];
    assert.match(line, /Show, Attend and Tell/);
    assert.ok(line.includes(facts.data), line);
    if (facts.quality) assert.ok(line.includes(`${(100 * facts.quality.soft.pointing).toFixed(1)} %`), line);
    assert.match(await page.textContent('#caption'), /OpenMoji[\s\S]*CC BY-SA 4\.0/);
    await page.close();
  });

  test('the scene, hard attention, the seed and the word come back from the link', async () => {
    const { page } = await openImages();
    await page.click('#caption-presets [data-preset="street"]');
    await page.waitForFunction(() => /scene=car_/.test(location.hash));
    await page.check('#attend [value="hard"]');
    await page.waitForFunction(() => /attend=hard/.test(location.hash));
    await page.waitForSelector('#caption[data-attention="hard"]');
    await page.locator('#caption-step-forward').click();
    await page.locator('#caption-step-forward').click();
    const before = await shown(page);
    assert.equal(before.step, 2);
    const url = page.url();
    assert.match(url, /word=2/);
    const { page: again } = await openImages(url.slice(session.base.length));
    await again.waitForSelector('#caption[data-attention="hard"]');
    const after = await shown(again);
    assert.deepEqual(after.scene, before.scene, 'the same scene, to the thousandth of the side the hash keeps');
    assert.deepEqual(after.words, before.words);
    assert.deepEqual(after.cells, before.cells, 'the same seed samples the same cells');
    assert.equal(after.step, 2);
    await again.close();
    await page.close();
  });

  test('hard attention shows one sampled cell a word, and "sample again" draws with a new seed', async () => {
    const { page } = await openImages();
    await page.check('#attend [value="hard"]');
    await page.waitForSelector('#caption[data-attention="hard"]');
    const maps = await page.evaluate(async () => {
      const { captionViewOf } = await import('./caption.mjs');
      const { result } = captionViewOf(document.getElementById('caption'));
      const [count, h, w] = result.attention.shape;
      return Array.from({ length: count }, (_, t) => {
        const map = Array.from(result.attention.data.subarray(t * h * w, (t + 1) * h * w));
        return { ones: map.filter((x) => x === 1).length, zeros: map.filter((x) => x === 0).length, at: map.indexOf(1), cell: result.cells[t], word: result.words[t], max: Math.max(...map) };
      });
    });
    for (const map of maps) {
      assert.equal(map.ones, 1, JSON.stringify(maps));
      assert.equal(map.at, map.cell, 'the one-hot cell is the sampled cell');
    }
    const seed = await page.inputValue('#seed');
    await page.click('#sample-again');
    await page.waitForFunction((old) => new URLSearchParams(location.hash.slice(1)).get('seed') !== old, seed);
    assert.notEqual(await page.inputValue('#seed'), seed);
    await page.waitForFunction((value) => document.getElementById('caption-status').textContent.includes(`seed ${value}`), await page.inputValue('#seed'));
    await page.check('#attend [value="soft"]');
    await page.waitForFunction(() => document.getElementById('caption-status').textContent.includes('soft attention'));
    await page.close();
  });

  test('an uploaded photo is captioned with its maps and an honest line; a file that is no image is refused', async () => {
    const { page } = await openImages();
    for (const file of ['captioner-tiny.png', 'captioner-tiny.jpg']) {
      const before = await page.getAttribute('#caption', 'data-caption');
      await page.setInputFiles('#caption-photo', new URL(`tests/data/${file}`, ROOT).pathname);
      await page.waitForFunction((name) => document.getElementById('caption-status').textContent.startsWith(name), file, { timeout: 30000 });
      assert.ok(before !== null);
      assert.match(await page.textContent('#caption-note'), /learned from drawn emoji scenes/);
      assert.equal(await page.isHidden('#caption-frames'), true, 'no object frames over a photo');
      const { words, shape } = await shown(page);
      assert.ok(words.length > 0 && shape[0] === words.length);
    }
    const folder = await mkdtemp(join(tmpdir(), 'caption-'));
    await writeFile(join(folder, 'not-an-image.png'), 'hello');
    await page.setInputFiles('#caption-photo', join(folder, 'not-an-image.png'));
    await page.waitForSelector('#caption-photo-error:not([hidden])');
    assert.match(await page.textContent('#caption-photo-error'), /not-an-image\.png is not an image/);
    await page.click('#caption-back');
    await page.waitForFunction(() => document.getElementById('caption-status').textContent.startsWith('The scene'));
    await page.close();
  });

  test('another captioner\'s maps are drawn the same way, and bad files are named with their problem', async () => {
    const { page } = await openImages();
    const folder = await mkdtemp(join(tmpdir(), 'caption-'));
    const image = new URL('tests/data/captioner-tiny.png', ROOT).pathname;
    const maps = Array.from({ length: 3 * 14 * 14 }, (_, i) => ((i * 7) % 13) / 13);
    const files = {
      'alphas.npy': npy([3, 14, 14], maps),
      'nan.npy': npy([3, 14, 14], maps.map((x, i) => (i === 20 ? NaN : x))),
      'att.json': JSON.stringify({ words: ['<start>', 'a', 'dog'], attention: [[[0, 1], [0, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 1]]] }),
      'corrupt.npy': 'not numpy',
    };
    for (const [name, content] of Object.entries(files)) await writeFile(join(folder, name), content);
    await page.click('.byo-caption summary');
    await page.fill('#caption-byo-words', '<start> a dog');
    await page.setInputFiles('#caption-byo-image', image);
    await page.setInputFiles('#caption-byo-attention', join(folder, 'alphas.npy'));
    await page.waitForFunction(() => document.getElementById('caption-status').textContent.includes('3 maps over a 14 × 14 grid'));
    assert.deepEqual((await shown(page)).words, ['<start>', 'a', 'dog']);
    assert.equal(await page.locator('#caption-strip figure').count(), 3);
    assert.match(await page.textContent('#caption-model'), /your file alphas\.npy/);
    for (const [name, words, message] of [
      ['nan.npy', '<start> a dog', /holds NaN at \[0, 1, 6\]/],
      ['alphas.npy', 'a dog', /2 words \(typed\) but 3 maps/],
      ['corrupt.npy', 'a', /not a \.npy file/],
    ]) {
      await page.fill('#caption-byo-words', words);
      await page.setInputFiles('#caption-byo-attention', join(folder, name));
      await page.waitForFunction((pattern) => new RegExp(pattern).test(document.getElementById('caption-byo-error').textContent), message.source);
      assert.equal(await page.isVisible('#caption-byo-error'), true);
    }
    await page.fill('#caption-byo-words', '');
    await page.setInputFiles('#caption-byo-attention', join(folder, 'att.json'));
    await page.waitForFunction(() => document.getElementById('caption-status').textContent.includes('3 maps over a 2 × 2 grid'));
    assert.equal(await page.isHidden('#caption-byo-error'), true);
    await page.close();
  });

  test('the keyboard adds, moves, resizes and removes objects and steps through the words', async () => {
    const { page } = await openImages();
    await page.locator('.palette-object[data-name="tree"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /tree_/.test(location.hash));
    assert.equal(await page.evaluate(() => document.activeElement.dataset.name), 'tree', 'the new object has the focus');
    const before = (await shown(page)).scene.objects.at(-1);
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('+');
    await page.waitForFunction(() => document.getElementById('caption').dataset.caption?.includes('tree'));
    const after = (await shown(page)).scene.objects.at(-1);
    assert.ok(Math.abs(after.x - (before.x - 8 / 96)) < 2e-3 && Math.abs(after.y - (before.y + 1 / 96)) < 2e-3, JSON.stringify([before, after]));
    assert.ok(after.size > before.size);
    await page.keyboard.press('Delete');
    await page.waitForFunction(() => !/tree_/.test(location.hash));
    await page.locator('.caption-word').first().focus();
    assert.equal((await shown(page)).step, 0);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    const now = await shown(page);
    assert.equal(now.step, 2);
    assert.equal(now.word, 2);
    assert.equal(await page.evaluate(() => document.activeElement.dataset.index), '2');
    await page.keyboard.press('End');
    assert.equal((await shown(page)).step, now.words.length - 1);
    // Play writes the caption again word by word, from the first
    await page.click('#caption-play');
    assert.equal((await shown(page)).step, 0);
    await page.waitForFunction((last) => document.getElementById('caption-step-label').textContent.startsWith(`word ${last} of`), now.words.length);
    assert.equal(await page.textContent('#caption-play'), 'Play', 'it stops at the last word');
    await page.close();
  });

  test('on a phone the view fits the width, with no sideways scroll; a touch drag moves an object', async () => {
    const { page } = await openImages('#view=images', { width: 390, height: 844, touch: true });
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));
    assert.ok(widths.page <= widths.view, `${widths.page} px of content in ${widths.view}`);
    await page.screenshot({ path: new URL('caption-phone.png', SCREENSHOTS).pathname, fullPage: true });
    // a touch drag: pointer events from a touch screen (CDP's touch input)
    await page.locator('#scene').scrollIntoViewIfNeeded();
    const from = await centreOf(page, 'ball');
    const client = await page.context().newCDPSession(page);
    const touch = (type, x, y) => client.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
    const x0 = (await shown(page)).scene.objects.find((o) => o.name === 'ball').x;
    await touch('touchStart', from.x, from.y);
    for (let k = 1; k <= 5; k++) await touch('touchMove', from.x - 12 * k, from.y);
    await touch('touchEnd', 0, 0);
    await page.waitForFunction((old) => {
      const match = /ball_(\d+)_/.exec(location.hash);
      return match && Number(match[1]) / 1000 < old - 0.05;
    }, x0);
    await page.close();
  });

  test('the strip of every word\'s map exports as PNG and SVG with its words', async () => {
    const { page } = await openImages();
    const words = (await shown(page)).words;
    assert.equal(await page.locator('#caption-strip figure').count(), words.length);
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('#caption-export-png')]);
    const bytes = await readFile(await png.path());
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    const [svg] = await Promise.all([page.waitForEvent('download'), page.click('#caption-export-svg')]);
    const text = await readFile(await svg.path(), 'utf8');
    assert.equal((text.match(/class="map"/g) ?? []).length, words.length);
    for (const word of words) assert.ok(text.includes(`>${word.replace('&', '&amp;')}</text>`), word);
    assert.match(text, /class="caption">[^<]*Show, Attend and Tell/);
    await page.close();
  });
});
