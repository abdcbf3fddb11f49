// The alignment view in Debian's Chromium: the model runs in a worker, the heatmap and the line
// view follow the typed sentences, colours match the weights, hover highlights, every link
// method runs, and hostile text stays text. Screenshots go to build/screenshots/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import loadAttn from '../../web/dist/attn.mjs';
import { rgb, viridis } from '../../web/colormap.mjs';
import { readsOneMatrix } from '../../web/methods.mjs';
import { npy } from '../js/npy.mjs';
import { SCREENSHOTS, openPage, useBrowser } from './browser.mjs';


const session = useBrowser();
// The library's alignment rules, which the page reads from the module too.
const rules = (await loadAttn({ warmUp: false })).alignment;

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
    const { page, problems } = await openPage();
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
    const { page, problems } = await openPage();
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

  test('the page lists the library\'s methods and its default threshold, argmax selected first', async () => {
    const { page, problems } = await openPage();
    const listed = await page.$$eval('#method option', (options) => options.map((o) => o.value));
    assert.deepEqual(listed, rules.methods.map((m) => m.name));
    assert.equal(await page.inputValue('#method'), 'argmax');
    assert.equal(Number(await page.inputValue('#threshold')), rules.defaults.threshold);
    const hybrid = await page.textContent(`#method option[value="${rules.defaults.method}"]`);
    assert.match(hybrid, /attn align’s default/);
    const oneMatrix = rules.methods.filter(readsOneMatrix).map((m) => m.name);
    assert.deepEqual(await page.$$eval('#byo-method option', (options) => options.map((o) => o.value)), oneMatrix);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('every link method runs, and the Pharaoh text matches the marked cells', async () => {
    const { page, problems } = await openPage();
    const methods = await page.$$eval('#method option', (options) => options.map((o) => o.value));
    const reverse = await page.getAttribute('body', 'data-reverse-model') === 'true';
    for (const method of methods) {
      await page.selectOption('#method', method);
      await page.waitForFunction(() => document.getElementById('align-status').textContent.length > 0);
      await page.waitForTimeout(50);
      const state = await page.getAttribute('#align-view', 'data-state');
      const rule = rules.methods.find((m) => m.name === method);
      if (rule.needsStatistical) {  // both statistical aligners are shipped
        assert.equal(await page.getAttribute('body', 'data-statistical-aligner'), 'true');
      }
      if (rule.needsReverse && !reverse) {
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

  test('keyboard focus on a word highlights it; the general-attention model compares side by side', async () => {
    const { page, problems } = await openPage();
    await page.focus('#heatmap .row-label[data-row="1"]');
    const rows = await page.$$eval('#heatmap rect.cell.highlighted', (r) => [...new Set(r.map((x) => x.dataset.row))]);
    assert.deepEqual(rows, ['1']);
    await page.focus('#heatmap .col-label[data-col="2"]');
    const cols = await page.$$eval('#heatmap rect.cell.highlighted', (r) => [...new Set(r.map((x) => x.dataset.col))]);
    assert.deepEqual(cols, ['2']);
    // models/en-es-general.safetensors is shipped: the comparison must be there
    assert.equal(await page.getAttribute('body', 'data-general-model'), 'true');
    await page.check('#compare');
    await page.waitForFunction(() => !document.getElementById('compare-figure').hidden);
    assert.equal(await page.getAttribute('#heatmap-general', 'data-rows'), await page.getAttribute('#heatmap', 'data-rows'));
    assert.equal(await page.getAttribute('#heatmap-general', 'data-cols'), await page.getAttribute('#heatmap', 'data-cols'));
    const generalCells = await page.$$eval('#heatmap-general rect.cell', (r) => r.map((x) => Number(x.dataset.value)));
    const additiveCells = await page.$$eval('#heatmap rect.cell', (r) => r.map((x) => Number(x.dataset.value)));
    assert.equal(generalCells.length, additiveCells.length);
    assert.notDeepEqual(generalCells, additiveCells, 'two different models give different attention');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('link marks are outlines over the colours, not black squares, in every heatmap that shows links', async () => {
    const { page, problems } = await openPage();
    await page.check('#compare');
    await page.waitForFunction(() => !document.getElementById('compare-figure').hidden);
    const attention = { source: ['the', 'cat'], target: ['el', 'gato'], weights: [[0.9, 0.1], [0.2, 0.8]] };
    await page.setInputFiles('#byo-file', { name: 'attention.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(attention)) });
    await page.waitForFunction(() => document.getElementById('byo-heatmap').dataset.rows === '2');
    const marks = await page.$$eval('rect.link-mark', (all) => all.map((mark) => {
      const style = getComputedStyle(mark);
      return { heatmap: mark.closest('svg').id, fill: style.fill, stroke: style.stroke, width: parseFloat(style.strokeWidth) };
    }));
    assert.deepEqual([...new Set(marks.map((m) => m.heatmap))].sort(), ['byo-heatmap', 'heatmap', 'heatmap-general']);
    const expected = marks[0].stroke;
    assert.notEqual(expected, 'rgb(0, 0, 0)');
    assert.notEqual(expected, 'none');
    for (const mark of marks) {
      assert.equal(mark.fill, 'none', `a link mark in #${mark.heatmap} hides its cell`);
      assert.equal(mark.stroke, expected, `a link mark in #${mark.heatmap}`);
      assert.ok(mark.width > 0, `a link mark in #${mark.heatmap} has no outline`);
    }
    await page.screenshot({ path: new URL('link-marks.png', SCREENSHOTS).pathname, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('200-word sentences, CJK, accents and right-to-left text display', async () => {
    const { page, problems } = await openPage();
    const long = Array.from({ length: 200 }, (_, i) => ['the', 'old', 'house', 'near', 'river'][i % 5]).join(' ');
    await typeAndWait(page, '#source', long, 8, 200);
    assert.equal((await cells(page)).length, 1600);
    await typeAndWait(page, '#source', '東京 は 大きい Ñandú café مرحبا بالعالم', 8, 7);
    const labels = await page.$$eval('#heatmap .col-label', (n) => n.map((x) => x.firstChild.textContent));
    assert.deepEqual(labels, ['東京', 'は', '大きい', 'Ñandú', 'café', 'مرحبا', 'بالعالم']);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, 'the wide heatmap scrolls inside its box, not the page');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('hostile text is shown as text and runs nothing', async () => {
    const { page, problems } = await openPage();
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

describe('translation, exports and shareable state', () => {
  test('translates and steps through the output one word at a time', async () => {
    const { page, problems } = await openPage();
    await page.fill('#translate-source', 'The cat sleeps .');
    await page.click('#translate');
    await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok');
    const words = Number(await page.getAttribute('#step', 'max'));
    assert.ok(words > 0);
    assert.ok((await page.textContent('#translation')).length > 0);
    const rowSums = () => page.$$eval('#translate-heatmap rect.cell', (rects) => {
      const sums = {};
      for (const r of rects) sums[r.dataset.row] = (sums[r.dataset.row] ?? 0) + Number(r.dataset.value);
      return sums;
    });
    await page.click('#step-back');
    assert.equal(await page.getAttribute('#translate-heatmap', 'data-step'), String(words - 1));
    let sums = await rowSums();
    assert.equal(sums[String(words - 1)], 0);  // the last word is not produced yet
    await page.fill('#step', '1');
    await page.dispatchEvent('#step', 'input');
    sums = await rowSums();
    assert.ok(sums['0'] > 0);
    for (let t = 1; t < words; t++) assert.equal(sums[String(t)], 0);
    assert.match(await page.textContent('#step-label'), /^1 of /);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('SVG, PNG, JSON and links exports are valid files', async () => {
    const { page, problems } = await openPage();
    const save = async (button) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
      return readFile(await download.path());
    };
    const svg = (await save('#export-svg')).toString('utf8');
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // parsed on a blank page: the explorer's CSP would (rightly) refuse the file's <style>
    const blank = await session.browser.newPage();
    assert.equal(await blank.evaluate((text) => new DOMParser().parseFromString(text, 'image/svg+xml').querySelector('parsererror'), svg), null);
    await blank.close();
    assert.equal((svg.match(/class="cell"/g) ?? []).length, 80);
    assert.match(svg, /@font-face\{font-family:"attnscope-sans";src:url\(data:font\/ttf;base64,AAEAAA/);  // the TrueType font itself
    assert.match(svg, /font-family="[^"]*attnscope-sans/);
    const png = await save('#export-png');
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.readUInt32BE(16), 2 * Number(await page.getAttribute('#heatmap', 'width')));
    const json = JSON.parse((await save('#export-json')).toString('utf8'));
    assert.equal(json.source.length, 10);
    assert.equal(json.target.length, 8);
    assert.equal(json.weights.length, 8);
    assert.equal(json.weights[0].length, 10);
    const links = (await save('#export-links')).toString('utf8');
    assert.equal(links.trim(), (await page.textContent('#pharaoh')).trim());
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the URL hash carries the state and restores it', async () => {
    const { page, problems } = await openPage();
    await typeAndWait(page, '#source', 'The red house .', 8, 4);
    await page.selectOption('#method', 'itermax');
    await page.check('#shift');
    await page.waitForTimeout(100);
    const url = page.url();
    assert.match(url, /#.*s=The\+red\+house/);
    const { page: again, problems: moreProblems } = await openPage(url.slice(session.base.length));
    assert.equal(await again.inputValue('#source'), 'The red house .');
    assert.equal(await again.inputValue('#method'), 'itermax');
    assert.equal(await again.isChecked('#shift'), true);
    assert.equal(await again.getAttribute('#heatmap', 'data-cols'), '4');
    assert.deepEqual([...problems, ...moreProblems], []);
    await page.close();
    await again.close();
  });
});

describe('bring your own attention', () => {
  test('a 4-D .npy shows the chosen layer and head, and the mean over heads', async () => {
    const { page, problems } = await openPage();
    const shape = [2, 2, 3, 4];
    const values = Array.from({ length: 48 }, (_, i) => (i % 7) / 10);
    await page.setInputFiles('#byo-file', { name: 'attention.npy', mimeType: 'application/octet-stream', buffer: npy(shape, values) });
    await page.waitForFunction(() => document.getElementById('byo-heatmap').dataset.rows === '3');
    assert.equal(await page.getAttribute('#byo-heatmap', 'data-cols'), '4');
    await page.fill('#byo-layer', '1');
    await page.dispatchEvent('#byo-layer', 'input');
    const cellValues = () => page.$$eval('#byo-heatmap rect.cell', (r) => r.map((x) => Number(x.dataset.value)));
    let shown = await cellValues();
    values.slice(24, 36).forEach((v, i) => assert.ok(Math.abs(shown[i] - v) < 1e-6, `layer 1 head 0 cell ${i}`));
    await page.selectOption('#byo-aggregate', 'mean');
    shown = await cellValues();
    for (let i = 0; i < 12; i++) {
      const mean = [0, 1, 2, 3].reduce((a, k) => a + values[k * 12 + i], 0) / 4;
      assert.ok(Math.abs(shown[i] - mean) < 1e-6, `mean cell ${i}`);
    }
    await page.setInputFiles('#byo-file', { name: 'broken.npy', mimeType: 'application/octet-stream', buffer: Buffer.from('not numpy') });
    await page.waitForFunction(() => document.getElementById('byo-view').dataset.state === 'error');
    assert.match(await page.textContent('#byo-status'), /broken\.npy: not a \.npy file/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('JSON with special tokens and subwords, and a gold file scored live', async () => {
    const { page, problems } = await openPage();
    const attention = {
      source: ['<s>', '▁The', '▁ca', 't', '</s>'],
      target: ['▁El', '▁gato', '</s>'],
      weights: [[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.3, 0.4, 0.1], [0.2, 0.2, 0.2, 0.2, 0.2]],
    };
    await page.setInputFiles('#byo-file', { name: 'attention.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(attention)) });
    await page.waitForFunction(() => document.getElementById('byo-heatmap').dataset.rows === '2');
    assert.equal(await page.getAttribute('#byo-heatmap', 'data-cols'), '2');  // The, cat
    const labels = await page.$$eval('#byo-heatmap .col-label', (n) => n.map((x) => x.firstChild.textContent));
    assert.deepEqual(labels, ['The', 'cat']);
    assert.equal(await page.textContent('#byo-pharaoh'), '0-0 1-1');
    // renormalized without specials: row "gato" = (0.1, 0.3 + 0.4) / 0.8
    const cells = await page.$$eval('#byo-heatmap rect.cell', (r) => r.map((x) => Number(x.dataset.value)));
    assert.ok(Math.abs(cells[2] - 0.1 / 0.8) < 1e-6 && Math.abs(cells[3] - 0.7 / 0.8) < 1e-6);
    await page.setInputFiles('#byo-file', { name: 'gold.txt', mimeType: 'text/plain', buffer: Buffer.from('0-0 1-0\n') });
    await page.waitForFunction(() => document.getElementById('byo-score').textContent.length > 0);
    // A = {0-0, 1-1}, S = {0-0, 1-0}: AER = 1 - 2*1/4 = 0.5, precision 0.5, recall 0.5
    assert.match(await page.textContent('#byo-score'), /AER 0\.500 · precision 0\.500 · recall 0\.500/);
    assert.equal(await page.$$eval('#byo-heatmap rect.gold', (n) => n.length), 2);
    await page.uncheck('#byo-merge');
    assert.equal(await page.getAttribute('#byo-heatmap', 'data-cols'), '3');
    await page.setInputFiles('#byo-file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"weights": [[1, 2], [3]]}') });
    await page.waitForFunction(() => document.getElementById('byo-view').dataset.state === 'error');
    assert.match(await page.textContent('#byo-status'), /rectangular/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
