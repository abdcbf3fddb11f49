// The alignment view in Debian's Chromium: the model runs in a worker, the heatmap and the line
// view follow the typed sentences, colours match the weights, hover highlights, every link
// method runs, and hostile text stays text. Screenshots go to build/screenshots/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { serve } from '../../tools/serve.mjs';
import { rgb, viridis } from '../../web/colormap.mjs';

const ROOT = new URL('../../', import.meta.url);
const SCREENSHOTS = new URL('build/screenshots/', ROOT);
let server, browser, base;

before(async () => {
  server = await serve(new URL('web/', ROOT).pathname, 0);
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  await mkdir(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
});

async function open(path = '') {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(base + path);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return { page, problems };
}

// Types into a field and waits until the heatmap shows `rows` x `cols` words.
async function typeAndWait(page, selector, text, rows, cols) {
  await page.fill(selector, text);
  await page.waitForFunction(([r, c]) => {
    const svg = document.getElementById('heatmap');
    return svg.dataset.rows === String(r) && svg.dataset.cols === String(c);
  }, [rows, cols], { timeout: 10000 });
}

const cells = (page) => page.$$eval('#heatmap rect.cell', (rects) => rects.map((r) => ({
  row: Number(r.dataset.row), col: Number(r.dataset.col), value: Number(r.dataset.value), fill: r.getAttribute('fill'),
})));

describe('alignment view', () => {
  test('shows the prefilled pair as a heatmap (rows = Spanish words) and a line view', async () => {
    const { page, problems } = await open();
    assert.equal(await page.getAttribute('#heatmap', 'data-rows'), '8');   // El anciano camina al mercado cada mañana .
    assert.equal(await page.getAttribute('#heatmap', 'data-cols'), '10');  // The old man walks to the market every morning .
    const all = await cells(page);
    assert.equal(all.length, 80);
    for (const cell of all) {
      assert.equal(cell.fill, rgb(viridis(cell.value)), `colour of ${cell.row},${cell.col}`);
      assert.ok(cell.value >= 0 && cell.value <= 1);
    }
    for (let t = 0; t < 8; t++) {  // each Spanish word's attention sums to at most 1 (the rest is the null column)
      const sum = all.filter((c) => c.row === t).reduce((a, c) => a + c.value, 0);
      assert.ok(sum > 0 && sum <= 1.0001, `row ${t} sums to ${sum}`);
    }
    assert.ok(Number(await page.getAttribute('#lines', 'data-lines')) > 0);
    assert.match(await page.textContent('#pharaoh'), /^(\d+-\d+( \d+-\d+)*)?$/);
    await page.screenshot({ path: new URL('align.png', SCREENSHOTS).pathname, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('typing updates the heatmap and the lines; hovering a word highlights its row', async () => {
    const { page, problems } = await open();
    await typeAndWait(page, '#target', 'El gato duerme .', 4, 10);
    await typeAndWait(page, '#source', 'The cat sleeps .', 4, 4);
    assert.equal((await cells(page)).length, 16);
    await page.hover('#heatmap rect.cell[data-row="2"][data-col="1"]');
    const highlighted = await page.$$eval('#heatmap rect.cell.highlighted', (rects) => rects.map((r) => Number(r.dataset.row)));
    assert.deepEqual([...new Set(highlighted)], [2]);
    assert.equal(highlighted.length, 4);
    assert.ok(await page.$$eval('#lines .row-label.highlighted', (n) => n.length) === 1);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('every link method runs, and the Pharaoh text matches the marked cells', async () => {
    const { page, problems } = await open();
    const methods = await page.$$eval('#method option', (options) => options.map((o) => o.value));
    const reverse = await page.getAttribute('body', 'data-reverse-model') === 'true';
    for (const method of methods) {
      await page.selectOption('#method', method);
      await page.waitForFunction(() => document.getElementById('align-status').textContent.length > 0);
      await page.waitForTimeout(50);
      const state = await page.getAttribute('#align-view', 'data-state');
      const needsReverse = ['intersection', 'union', 'grow-diag-final-and', 'soft-itermax'].includes(method);
      if (needsReverse && !reverse) {
        assert.equal(state, 'error');
        assert.match(await page.textContent('#align-status'), /needs the es-en model/);
        continue;
      }
      assert.equal(state, 'ok', method);
      const pharaoh = (await page.textContent('#pharaoh')).split(' ').filter(Boolean).sort();
      const marked = (await page.$$eval('#heatmap rect.link-mark', (r) => r.map((x) => `${x.dataset.col}-${x.dataset.row}`))).sort();
      assert.deepEqual(marked, pharaoh, method);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('hostile text is shown as text and runs nothing', async () => {
    const { page, problems } = await open();
    await page.evaluate(() => { window.pwned = false; });
    await typeAndWait(page, '#source', '<img src=x onerror="window.pwned=true"> <script>window.pwned=true</script>', 8, 27);
    assert.equal(await page.evaluate(() => window.pwned), false);
    assert.equal(await page.$$eval('#heatmap img, #lines img, #heatmap script', (n) => n.length), 0);
    const labels = await page.$$eval('#heatmap .col-label', (n) => n.map((x) => x.firstChild.textContent));
    assert.ok(labels.includes('img') && labels.includes('<'));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
