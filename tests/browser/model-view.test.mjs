// The model view in Chromium: the grid of every layer and head (#model-view[data-layers][data-heads],
// one element per map with data-layer and data-head), the kinds of attention, the means and rollout,
// a map shown large on click, and the model select. A Transformer is served from the test fixture
// (tests/data/tiny-transformer.safetensors) by intercepting the model index; the RNN is the shipped one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ROOT, SCREENSHOTS, figureOf, openPage, redrawn, useBrowser } from './browser.mjs';

useBrowser();

const fixture = readFileSync(new URL('tests/data/tiny-transformer.safetensors', ROOT));
const index = JSON.parse(readFileSync(new URL('web/dist/models/index.json', ROOT), 'utf8'));

// The shipped models plus the tiny Transformer as en-es-transformer.
const withTransformer = [
  ['**/dist/models/index.json', (route) => route.fulfill({
    contentType: 'application/json', body: JSON.stringify({ ...index, models: [...index.models, 'en-es-transformer.safetensors'] }),
  })],
  ['**/dist/models/en-es-transformer.safetensors', (route) => route.fulfill({ body: fixture, contentType: 'application/octet-stream' })],
];

const grid = (page) => page.evaluate(() => {
  const view = document.getElementById('model-view');
  return {
    layers: Number(view.dataset.layers), heads: Number(view.dataset.heads),
    maps: [...view.querySelectorAll('[data-layer]')].map((cell) => [cell.dataset.layer, cell.dataset.head]),
    aligns: [...view.querySelectorAll('[data-aligns="true"]')].map((cell) => [cell.dataset.layer, cell.dataset.head]),
  };
});

// Runs an action and waits for the grid's next answer.
async function answered(page, action) {
  const before = await page.getAttribute('#model-view', 'data-answered-at');
  await action();
  await page.waitForFunction((was) => document.getElementById('model-view').dataset.answeredAt !== was, before);
}

describe('model view', () => {
  test('a Transformer shows a grid of layers × heads; kinds, means, rollout; a click shows a map large', async () => {
    const { page, problems } = await openPage('', { routes: withTransformer });
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => Number(document.getElementById('model-view').dataset.layers) > 0);
    assert.equal(await page.inputValue('#model'), 'en-es-transformer');  // the Transformer is the view's default
    const options = await page.$$eval('#model option', (all) => all.map((o) => o.value));
    assert.ok(options.includes('en-es-additive') && options.includes('en-es-transformer'), options.join());
    let shown = await grid(page);
    assert.equal(shown.layers, 2);
    assert.equal(shown.heads, 2);
    assert.deepEqual(shown.maps, [['0', '0'], ['0', '1'], ['1', '0'], ['1', '1']]);
    assert.deepEqual(shown.aligns, [['0', '0']]);  // the fixture's alignment head
    assert.match(await page.textContent('#model-links-from'), /layer 0, head 0 .*counted from 0/);

    await page.click('#model-view [data-layer="1"][data-head="0"]');
    await page.waitForSelector('#head-figure:not([hidden])');
    const figure = await figureOf(page, 'head-view');
    const words = (await page.inputValue('#source')).trim().split(/\s+/);
    assert.equal(figure.cols, words.length);
    assert.deepEqual(figure.colLabels, words);
    assert.match(await page.textContent('#head-caption'), /layer 1, head 0$/);

    await page.selectOption('#attention-kind', 'encoder');
    shown = await grid(page);
    assert.equal(shown.maps.length, 4);
    assert.deepEqual(shown.aligns, []);
    await page.selectOption('#model-aggregate', 'layer-mean');
    shown = await grid(page);
    assert.deepEqual(shown.maps, [['0', 'mean'], ['1', 'mean']]);
    await answered(page, () => page.selectOption('#model-aggregate', 'rollout'));
    shown = await grid(page);
    assert.deepEqual(shown.maps, [['0', 'rollout'], ['1', 'rollout']]);
    await page.click('#model-view [data-layer="1"]');
    const rolled = await figureOf(page, 'head-view');
    assert.ok(rolled.colLabels.includes('</s>'), 'rollout runs over pieces, special tokens included');
    for (let r = 0; r < rolled.rows; r++) {
      const sum = rolled.weights.slice(r * rolled.cols, (r + 1) * rolled.cols).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-4, `rollout row ${r} sums to ${sum}`);
    }
    await answered(page, () => page.selectOption('#model-aggregate', 'mean'));  // words again: asked anew
    await page.selectOption('#attention-kind', 'decoder');  // the same answer, drawn another way
    shown = await grid(page);
    assert.deepEqual(shown.maps, [['all', 'mean']]);

    // typing redraws the grid: keystroke to drawn, for a 30-word pair
    await page.selectOption('#model-aggregate', 'heads');
    await page.selectOption('#attention-kind', 'cross');
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    const started = await page.evaluate(() => performance.now());
    await answered(page, () => page.evaluate((text) => {  // typed without scrolling the view away
      for (const id of ['source', 'target']) {
        document.getElementById(id).value = text;
        document.getElementById(id).dispatchEvent(new Event('input', { bubbles: true }));
      }
    }, long));
    const took = (await page.evaluate(() => performance.now())) - started;
    shown = await grid(page);
    assert.equal(shown.maps.length, 4);
    console.log(`# model view: 30 x 30 words redrawn ${took.toFixed(0)} ms after the keystrokes`);
    assert.match(await page.getAttribute('#model-view', 'data-layers'), /^2$/);
    await answered(page, () => page.selectOption('#model', 'en-es-additive'));
    assert.deepEqual((await grid(page)).maps, [['0', '0']]);
    await page.waitForFunction(() => /model=en-es-additive/.test(location.hash));  // the URL remembers the model
    await page.screenshot({ path: new URL('model-view.png', SCREENSHOTS).pathname, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the translation steps through the cross-attention of the chosen layer and head', async () => {
    const { page, problems } = await openPage('', { routes: withTransformer });
    const translated = () => page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok', null, { timeout: 20000 });
    await translated();
    // the pair's forward model translates first: the Transformer's English -> Spanish (here the
    // fixture), with a layer and a head to choose
    assert.equal(await page.inputValue('#translate-model'), 'en-es-transformer');
    await page.locator('#tab-translate').click();
    await page.waitForSelector('#translate-heads:not([hidden])', { timeout: 20000 });
    await translated();
    assert.deepEqual(await page.$$eval('#translate-layer option', (all) => all.map((o) => o.value)), ['0', '1']);
    assert.deepEqual(await page.$$eval('#translate-head option', (all) => all.map((o) => o.value)), ['0', '1', 'mean']);
    // by default the fixture's alignment head (layer 0, head 0), which the note names
    assert.equal(await page.inputValue('#translate-layer'), '0');
    assert.equal(await page.inputValue('#translate-head'), '0');
    assert.match(await page.textContent('#translate-head-note'), /aligns/);
    const aligning = await figureOf(page, 'translate-heatmap');
    await page.selectOption('#translate-layer', '1');
    await page.selectOption('#translate-head', '1');
    await page.waitForFunction(() => document.getElementById('translate-heatmap').dataset.head === '1');
    assert.equal(await page.getAttribute('#translate-heatmap', 'data-layer'), '1');
    assert.equal(await page.textContent('#translate-head-note'), '');
    const other = await figureOf(page, 'translate-heatmap');
    assert.deepEqual([other.rows, other.cols], [aligning.rows, aligning.cols]);
    assert.notDeepEqual(other.weights, aligning.weights);
    await page.selectOption('#translate-head', 'mean');
    await page.waitForFunction(() => document.getElementById('translate-heatmap').dataset.head === 'mean');
    const mean = await figureOf(page, 'translate-heatmap');
    for (let r = 0; r < mean.rows; r++) {  // a word's row: at most 1 (the rest went to </s>)
      const sum = mean.weights.slice(r * mean.cols, (r + 1) * mean.cols).reduce((a, b) => a + b, 0);
      assert.ok(sum > 0 && sum <= 1 + 1e-5, `row ${r} sums to ${sum}`);
    }
    // stepping back keeps the chosen head and empties the rows not produced yet
    await redrawn(page, 'translate-heatmap', () => page.click('#step-back'));  // (read before the redraw, it raced)
    const stepped = await figureOf(page, 'translate-heatmap');
    assert.equal(await page.getAttribute('#translate-heatmap', 'data-head'), 'mean');
    assert.ok(stepped.weights.slice((stepped.rows - 1) * stepped.cols).every((w) => w === 0));
    assert.deepEqual(stepped.weights.slice(0, (stepped.rows - 1) * stepped.cols), mean.weights.slice(0, (mean.rows - 1) * mean.cols));
    // the RNN: one map, no layer or head to choose
    await page.selectOption('#translate-model', 'en-es-additive');
    await page.waitForFunction(() => document.getElementById('translate-heads').hidden, null, { timeout: 20000 });
    await translated();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the large map reads each word\'s row where the aligning head holds it, as the alignment view does', async () => {
    const source = 'Save the file before closing the window .', target = 'Guardar el archivo antes de cerrar la ventana .';
    const { page, problems } = await openPage(`#s=${encodeURIComponent(source)}&t=${encodeURIComponent(target)}&m=argmax`);
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => Number(document.getElementById('model-view').dataset.layers) > 0, null, { timeout: 60000 });
    assert.equal(await page.inputValue('#model'), 'en-es-transformer');
    await page.click('#model-view [data-aligns="true"]');
    await page.waitForSelector('#head-figure:not([hidden])');
    const large = await figureOf(page, 'head-view');
    const argmax = (figure) => figure.rowLabels.map((word, t) => {
      const row = figure.weights.slice(t * figure.cols, (t + 1) * figure.cols);
      return `${word}←${figure.colLabels[row.indexOf(Math.max(...row))]}`;
    });
    const pairs = argmax(large);
    for (const expected of ['Guardar←Save', 'el←the', 'archivo←file', 'ventana←window']) assert.ok(pairs.includes(expected), pairs.join(' '));
    assert.match(await page.textContent('#head-model'), /decoder’s input.*alignment_shift 1/);
    assert.match(await page.textContent('#model-rows'), /decoder’s input/);
    await page.waitForFunction(() => /method argmax/.test(document.getElementById('align-model').textContent), null, { timeout: 60000 });
    const aligned = await figureOf(page, 'heatmap');
    aligned.weights.forEach((w, i) => assert.ok(Math.abs(w - large.weights[i]) < 1e-4, `cell ${i}: ${w} aligned, ${large.weights[i]} large`));
    // over pieces (rollout of the decoder's self-attention) the rows are the model's own, and it says so
    await page.selectOption('#attention-kind', 'decoder');
    await answered(page, () => page.selectOption('#model-aggregate', 'rollout'));
    assert.match(await page.textContent('#model-rows'), /raw rows: row t is the step that predicts piece t/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('at 390 × 844 the layer × head grid fits the phone: no sideways scroll, every head in view', async () => {
    const { page, problems } = await openPage('#model=en-es-transformer', { width: 390, height: 844, touch: true });
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => Number(document.getElementById('model-view').dataset.layers) > 0, null, { timeout: 60000 });
    const sizes = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      grid: document.getElementById('model-view').getBoundingClientRect().right,
      maps: [...document.querySelectorAll('#model-view .map')].map((map) => map.getBoundingClientRect().right),
      heads: Number(document.getElementById('model-view').dataset.heads),
    }));
    assert.equal(sizes.heads, 4);
    assert.ok(sizes.page <= 390, `the page is ${sizes.page} px wide`);
    for (const right of sizes.maps) assert.ok(right <= 390, `a map ends at ${right} px`);
    await page.screenshot({ path: new URL('model-view-phone.png', SCREENSHOTS).pathname });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a reverse model reads the other language as its source: its figure has English rows and the other columns', async () => {
    const { page, problems } = await openPage('#model=es-en-additive');
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => Number(document.getElementById('model-view').dataset.layers) > 0);
    assert.equal(await page.inputValue('#model'), 'es-en-additive');
    await page.click('#model-view [data-layer="0"][data-head="0"]');
    await page.waitForSelector('#head-figure:not([hidden])');
    const figure = await figureOf(page, 'head-view');
    const english = (await page.inputValue('#source')).trim().split(/\s+/);
    const spanish = (await page.inputValue('#target')).trim().split(/\s+/);
    assert.deepEqual(figure.colLabels, spanish);  // source words across: the model reads Spanish
    assert.deepEqual(figure.rowLabels, english);  // generated words down: it writes English
    // en-es aligns with the multilingual Transformer: the caption does not claim this RNN's attention
    assert.match(await page.textContent('#model-links-from'),
      /^The links of the alignment view do not come from this model: they come from en-es-transformer \(with es-en-transformer/);
    // the forward model again: English across
    await answered(page, () => page.selectOption('#model', 'en-es-additive'));
    await page.click('#model-view [data-layer="0"][data-head="0"]');
    let forward = null;
    for (let tries = 0; tries < 50 && JSON.stringify(forward?.colLabels) !== JSON.stringify(english); tries++) {
      await page.waitForTimeout(100);
      forward = await figureOf(page, 'head-view');
    }
    assert.deepEqual(forward.colLabels, english);
    assert.deepEqual(forward.rowLabels, spanish);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the RNN has one map of cross-attention, and its self-attention options are disabled, saying why', async () => {
    const { page, problems } = await openPage('#model=en-es-additive');
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => Number(document.getElementById('model-view').dataset.layers) > 0);
    const shown = await grid(page);
    assert.deepEqual([shown.layers, shown.heads, shown.maps.length], [1, 1, 1]);
    const disabled = await page.$$eval('#attention-kind option, #model-aggregate option',
      (options) => options.filter((o) => o.disabled).map((o) => [o.value, o.textContent]));
    assert.deepEqual(disabled.map(([value]) => value), ['encoder', 'decoder', 'rollout']);
    for (const [, text] of disabled) assert.match(text, /the RNN has no self-attention/);
    // a Transformer chosen again offers them again
    assert.match(await page.textContent('#model-links-from'), /do not come from this model/);
    await answered(page, () => page.selectOption('#model', 'es-en-transformer'));
    assert.match(await page.textContent('#model-links-from'), /^This is the other direction of the alignment view's model \(en-es-transformer\)/);
    await answered(page, () => page.selectOption('#model', 'en-es-transformer'));
    assert.match(await page.textContent('#model-links-from'), /^The links of the alignment view come from layer \d, head \d/);
    assert.equal(await page.$eval('#attention-kind option[value="encoder"]', (o) => o.disabled), false);
    assert.equal(await page.$eval('#model-aggregate option[value="rollout"]', (o) => o.textContent), 'attention rollout (self-attention, pieces)');
    await answered(page, () => page.selectOption('#model', 'en-es-additive'));
    // off screen (another tab chosen), typing asks for nothing; back on screen, the view catches up
    await page.locator('#tab-align').click();
    await page.waitForTimeout(100);
    const before = await page.getAttribute('#model-view', 'data-answered-at');
    await page.evaluate(() => {
      document.getElementById('source').value = 'the cat';
      document.getElementById('source').dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForTimeout(300);
    assert.equal(await page.getAttribute('#model-view', 'data-answered-at'), before);
    await answered(page, () => page.locator('#tab-model').click());
    assert.deepEqual((await grid(page)).maps, [['0', '0']]);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
