// Drives the real page in Debian's Chromium through playwright-core: it must load without console
// errors, draw the tutorial's weights with the right colours, react to inputs, fall back to the
// scalar build where SIMD is missing, fetch only what the first view needs, work before any model
// arrives, and fit a phone. Screenshots go to build/screenshots/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { viridis } from '../../web/page/colormap.mjs';
import { npy } from '../js/npy.mjs';
import { SCREENSHOTS, cellPixel, figureOf, near, openPage, recordFetches, redrawn, useBrowser } from './browser.mjs';

const ROW1 = [0.2976, 0.1095, 0.1805, 0.1805, 0.2318];
const ROW5 = [0.2374, 0.144, 0.2374, 0.144, 0.2374];

useBrowser();

const weights = async (page) => (await figureOf(page, 'playground-heatmap'))?.weights ?? null;
// Runs an action on the playground and waits for its heatmap to be redrawn.
const playing = (page, action) => redrawn(page, 'playground-heatmap', action);

async function checkTutorialWeights(page) {
  const all = await weights(page);
  assert.equal(all.length, 25);
  all.slice(0, 5).forEach((w, s) => assert.ok(Math.abs(w - ROW1[s]) < 1e-4, `row 1 col ${s}: ${w}`));
  all.slice(20).forEach((w, s) => assert.ok(Math.abs(w - ROW5[s]) < 1e-4, `row 5 col ${s}: ${w}`));
  for (const [t, s] of [[0, 0], [0, 1], [4, 3], [2, 2]]) {
    const shown = await cellPixel(page, 'playground-heatmap', t, s);
    assert.ok(near(shown, viridis(all[t * 5 + s])), `colour of cell ${t},${s}: ${shown} vs ${viridis(all[t * 5 + s])}`);
  }
}

describe('explorer page', () => {
  test('loads the SIMD build with no console errors and shows the tutorial weights in the playground', async () => {
    const { page, problems } = await openPage();
    assert.equal(await page.getAttribute('body', 'data-simd'), 'true');
    assert.match(await page.textContent('#build'), /relaxed-SIMD build|SIMD128 build/);  // Chromium: relaxed SIMD
    // en-es starts from its HMM, then the default method (the hybrid) loads its attention model
    // (the Transformer): once the figure is drawn, the line says both are in, not that one follows
    await page.waitForFunction(() => /aligner and its attention model loaded/.test(document.getElementById('build').textContent), null, { timeout: 5000 })
      .catch(() => {});
    const status = await page.textContent('#build');
    assert.match(status, /the en-es aligner and its attention model loaded/);
    assert.doesNotMatch(status, /no attention model|follows|load the first time|loads when/);
    await checkTutorialWeights(page);
    await page.screenshot({ path: new URL('explorer.png', SCREENSHOTS).pathname, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('changing the score, the mask and a token updates the heatmap; a refused number clears it', async () => {
    const { page, problems } = await openPage();
    await playing(page, () => page.selectOption('#score', 'dot'));
    let all = await weights(page);
    // dot scores of token 1: 2, 0, 1, 1, 1.5
    const exp = [2, 0, 1, 1, 1.5].map(Math.exp);
    const sum = exp.reduce((a, b) => a + b);
    for (let j = 0; j < 5; j++) assert.ok(Math.abs(all[j] - exp[j] / sum) < 1e-4);
    await playing(page, () => page.check('#causal'));
    all = await weights(page);
    assert.equal(all[1], 0);
    assert.ok(Math.abs(all[0] - 1) < 1e-6);
    await playing(page, () => page.fill('#token-0-0', '3'));
    all = await weights(page);
    assert.ok(Math.abs(all[0] - 1) < 1e-6);  // causal row 1 still sees only itself
    assert.notEqual(all[5], 0);
    await playing(page, () => page.fill('#temperature', '0'));  // below the input's min: clamped, and said so beside it
    assert.match(await page.textContent('#temperature-error'), /temperature 0 is below 0\.05: using 0\.05/);
    assert.equal(await page.getAttribute('#temperature-error', 'role'), 'alert');
    assert.equal(await page.getAttribute('#playground-heatmap', 'data-rows'), '5');
    await page.fill('#temperature', '');   // no number: refused, and nothing stale stays
    assert.match(await page.textContent('#temperature-error'), /temperature needs a number from 0\.05 to 20/);
    assert.equal(await page.getAttribute('#playground-heatmap', 'data-rows'), '0');
    assert.equal(await page.$$eval('#output td', (cells) => cells.length), 0);
    await playing(page, () => page.fill('#temperature', '1'));
    assert.equal(await page.isVisible('#temperature-error'), false);
    assert.equal(await page.getAttribute('#playground-heatmap', 'data-rows'), '5');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('forcing ?simd=0 runs the scalar build with the same numbers', async () => {
    const { page, problems } = await openPage('?simd=0');
    assert.equal(await page.getAttribute('body', 'data-simd'), 'false');
    assert.match(await page.textContent('#build'), /scalar/);
    await checkTutorialWeights(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an engine without WebAssembly SIMD falls back to the scalar build', async () => {
    const { page, problems } = await openPage('', { withoutSimd: true });
    assert.equal(await page.getAttribute('body', 'data-simd'), 'false');
    await checkTutorialWeights(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('fits a 390 px phone: the default example\'s heatmap without sideways scrolling, its values readable', async () => {
    const { page, problems } = await openPage('', { width: 390, height: 844, touch: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    const heatmap = await page.$eval('#heatmap', (host) => ({ scroll: host.scrollWidth - host.clientWidth, overflow: host.dataset.overflow ?? '' }));
    assert.ok(heatmap.scroll <= 0, `the 8 x 10 heatmap scrolls ${heatmap.scroll} px sideways`);
    assert.doesNotMatch(heatmap.overflow, /right/);
    assert.ok(Number(await page.getAttribute('#heatmap', 'data-cell')) >= 30, 'cells large enough for their values (painters.mjs: from 30 px)');
    // the first screen, before any scrolling: the presets, the figure with the best method's links,
    // and the line under it that names what drew it (the sentences and settings follow below)
    const screen = await page.evaluate(() => ({
      scrolled: window.scrollY, height: window.innerHeight,
      ...Object.fromEntries(['presets', 'heatmap', 'align-model'].map((id) => {
        const box = document.getElementById(id).getBoundingClientRect();
        return [id, { top: Math.round(box.top), bottom: Math.round(box.bottom) }];
      })),
    }));
    assert.equal(screen.scrolled, 0);
    for (const id of ['presets', 'heatmap', 'align-model']) {
      assert.ok(screen[id].top >= 0 && screen[id].bottom <= screen.height, `#${id} on the first screen: ${JSON.stringify(screen)}`);
    }
    assert.match(await page.textContent('#align-model'), /method hybrid/);
    assert.ok((await figureOf(page, 'heatmap')).links.length >= 8, 'the links are drawn on the figure');
    // and the order a reader tabs through is unchanged: sentences, then the method
    const order = await page.evaluate(() => ['source', 'target', 'method'].map((id) => document.getElementById(id))
      .every((element, i, all) => i === 0 || all[i - 1].compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING));
    assert.ok(order);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('fits a 360 px screen: controls grouped, checkboxes beside their text, figures scroll with a visible cue', async () => {
    const { page, problems } = await openPage('', { width: 360, height: 740 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    const misplaced = await page.$$eval('label.check', (labels) => labels.filter((label) => {
      const box = label.querySelector('input').getBoundingClientRect(), text = label.querySelector('span').getBoundingClientRect();
      return box.top > text.top + 12 || box.right > text.left + 1;  // not on the text's first line, or not before it
    }).map((label) => label.textContent.trim()));
    assert.deepEqual(misplaced, []);
    const wider = await page.$$eval('fieldset, .figure-frame, .heatmap', (all) => all.filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).length);
    assert.equal(wider, 0, 'a group or a figure sticks out of the screen');
    // the default 8 x 10 heatmap fits; a 30-word pair does not: it scrolls, with a shadow and a hint saying so
    assert.doesNotMatch(await page.getAttribute('#heatmap', 'data-overflow') ?? '', /right/);
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    await page.fill('#source', long);
    await page.fill('#target', long);
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.cols === '30', null, { timeout: 20000 });
    await page.waitForFunction(() => /right/.test(document.getElementById('heatmap').dataset.overflow ?? ''), null, { timeout: 5000 });
    assert.equal(await page.isVisible('#heatmap-readout'), true);
    assert.equal(await page.isVisible('#align-view .scroll-hint'), true);
    await page.screenshot({ path: new URL('explorer-360.png', SCREENSHOTS).pathname, fullPage: true });
    await page.screenshot({ path: new URL('explorer-360-top.png', SCREENSHOTS).pathname });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('fetches only what en-es\'s default method needs at start (and no font); others when a method needs them', async () => {
    const fetched = [];
    const { page, problems } = await openPage('', {
      routes: [recordFetches(fetched)],
    });
    await page.waitForTimeout(300);
    const heavy = () => fetched.filter((path) => /\.(safetensors|ttf|woff2?)$/.test(path)).map((path) => path.split('/').pop());
    // the hybrid: the multilingual Transformer (both directions, one file) and the HMM; IBM Model 2
    // and the general model wait, and so do the RNNs, which no method of the pair reads
    assert.deepEqual(heavy().sort(), ['hmm-en-es.safetensors', 'multilingual-transformer.safetensors']);
    await redrawn(page, 'heatmap', () => page.selectOption('#method', 'ibm2'));
    assert.deepEqual(heavy().sort(), ['hmm-en-es.safetensors', 'ibm2-en-es.safetensors', 'multilingual-transformer.safetensors']);
    assert.ok(!heavy().some((file) => /general|additive/.test(file)), heavy().join());
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the attention model is asked for once the pair\'s HMM is in, so that the HMM\'s figure comes first on a slow network', async () => {
    const events = [];
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    const { page, problems } = await openPage('#pair=en-hu', {
      ready: false, routes: [
        ['**/hmm-en-hu.safetensors', async (route) => { events.push('hmm asked'); await held; events.push('hmm sent'); await route.continue(); }],
        ['**/multilingual-transformer.safetensors', (route) => { events.push('transformer asked'); return route.continue(); }],
      ],
    });
    // the page asks for the hybrid at once; the Transformer's download waits for the HMM's
    await page.waitForFunction(() => document.getElementById('heatmap') !== null);
    await page.waitForTimeout(1500);
    assert.deepEqual(events, ['hmm asked']);
    release();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.deepEqual(events, ['hmm asked', 'hmm sent', 'transformer asked']);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the playground and bring-your-own work while the model is still downloading, which shows progress; the HMM aligns meanwhile', async () => {
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    const { page, problems } = await openPage('', {
      ready: false, routes: [['**/multilingual-transformer.safetensors', async (route) => { await held; await route.continue(); }]],
    });
    await page.waitForSelector('body[data-playground-ready="true"]');
    assert.equal(await page.getAttribute('#playground-heatmap', 'data-rows'), '5');
    await page.waitForSelector('body[data-byo-ready="true"]');
    await page.setInputFiles('#byo-file', { name: 'a.npy', mimeType: 'application/octet-stream', buffer: npy([2, 3], [0.2, 0.3, 0.5, 0.6, 0.3, 0.1]) });
    await page.waitForFunction(() => document.getElementById('byo-heatmap').dataset.rows === '2');
    await page.locator('#tab-align').click();  // back to the alignment, which is still waiting for its model
    await page.waitForSelector('#align-view .busy:not([hidden])');
    assert.match(await page.textContent('#align-view .busy'), /Aligning|Loading the en-es model/);
    // meanwhile the pair's HMM (1.4 MB, already here) draws the pair, and the line says so
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.rows === '8', null, { timeout: 20000 });
    const meanwhile = await page.textContent('#align-model');
    assert.match(meanwhile, /^Shown while the hybrid method's model downloads \(its figure follows\): .*HMM aligner.* method hmm/, meanwhile);
    assert.equal(await page.isVisible('#align-view .busy'), true);
    assert.equal(await page.getAttribute('#align-view', 'data-state'), 'busy');
    assert.equal(await page.isVisible('#align-familiarity'), false);
    // a sentence edited meanwhile gets its own HMM figure at once, not after the download
    await page.fill('#target', 'El anciano camina .');
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.rows === '4', null, { timeout: 20000 });
    assert.match(await page.textContent('#align-model'), /^Shown while the hybrid method's model downloads/);
    release();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    await page.waitForFunction(() => document.getElementById('align-view').dataset.state === 'ok', null, { timeout: 30000 });
    assert.equal(await page.getAttribute('#heatmap', 'data-rows'), '4');
    assert.equal(await page.isVisible('#align-view .busy'), false);
    const after = await page.textContent('#align-model');
    assert.ok(!after.startsWith('Shown while') && after.includes('method hybrid'), after);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('playground mechanisms', () => {
  test('a local window, two heads, sparsemax and the scores table all reach the page', async () => {
    const { page, problems } = await openPage();
    // raw scores of the tutorial: q1.k1 / 2 = 1, q1.k5 / 2 = 0.75
    const firstRow = await page.$$eval('#scores tr:first-child td', (cells) => cells.map((c) => Number(c.textContent)));
    assert.deepEqual(firstRow, [1, 0, 0.5, 0.5, 0.75]);
    await playing(page, () => page.selectOption('#local', 'monotonic'));
    let all = await weights(page);
    for (let t = 0; t < 5; t++) {
      for (let s = 0; s < 5; s++) if (Math.abs(s - t) > 1) assert.equal(all[t * 5 + s], 0, `outside the window ${t},${s}`);
    }
    await playing(page, () => page.selectOption('#local', 'none'));
    await playing(page, () => page.selectOption('#heads', '2'));
    await playing(page, () => page.fill('#show-head', '1'));
    all = await weights(page);
    // head 2 sees the last two components: x1 = [1, 0], x2 = [0, 1], x3 = [0, 0], x4 = [1, 1], x5 = [.5, 0]
    const scores = [1, 0, 0, 1, 0.5].map((s) => s / Math.SQRT2);
    const total = scores.reduce((a, s) => a + Math.exp(s), 0);
    scores.forEach((s, j) => assert.ok(Math.abs(all[j] - Math.exp(s) / total) < 1e-4, `head 2 weight ${j}`));
    await playing(page, () => page.selectOption('#heads', '1'));
    assert.match(await page.textContent('#show-head-error'), /show head 1 is above 0: using 0/);
    await playing(page, () => page.selectOption('#probability', 'sparsemax'));
    all = await weights(page);
    assert.ok(all.some((w) => w === 0), 'sparsemax gives exact zeros');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
