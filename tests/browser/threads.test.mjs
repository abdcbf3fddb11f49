// Threads in Chromium: tools/serve.mjs makes the explorer cross-origin isolated, so its workers
// load the threads build with the hardware's thread count and every view works on it; the same
// page served without isolation runs one thread; and on a page's own thread, the threads build
// gives the bit-identical results of one thread and ends with dispose().
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENSHOTS, figureOf, openPage, useBrowser } from './browser.mjs';

const session = useBrowser();

const ROW1 = [0.2976, 0.1095, 0.1805, 0.1805, 0.2318];

// The playground's first row and the alignment heatmap's size: the views' work reached the page.
async function checkViews(page) {
  const playground = await figureOf(page, 'playground-heatmap');
  playground.weights.slice(0, 5).forEach((w, s) => assert.ok(Math.abs(w - ROW1[s]) < 1e-4, `playground row 1 col ${s}: ${w}`));
  assert.equal(await page.getAttribute('#heatmap', 'data-rows'), '8');
  const translated = await page.textContent('#translation');
  assert.ok(translated.trim().length > 0, 'a translation is shown');
}

// Responses without the isolation headers, as a static host that sends none would serve them.
const withoutIsolation = ['**/*', async (route) => {
  const response = await route.fetch();
  const headers = { ...response.headers() };
  delete headers['cross-origin-opener-policy'];
  delete headers['cross-origin-embedder-policy'];
  await route.fulfill({ response, headers });
}];

describe('threads in the explorer', () => {
  test('the page is cross-origin isolated, its workers run the hardware\'s threads, and the views work', async () => {
    const { page, problems } = await openPage();
    const { isolated, hardware } = await page.evaluate(() => ({ isolated: crossOriginIsolated, hardware: navigator.hardwareConcurrency }));
    assert.equal(isolated, true);
    assert.ok(hardware > 1, `this machine's Chromium reports ${hardware} threads`);
    assert.equal(await page.getAttribute('body', 'data-threads'), String(hardware));
    assert.equal(await page.getAttribute('body', 'data-module-threads'), String(hardware));
    // Chromium has relaxed SIMD: the relaxed build's threads twin (tests/browser/relaxed.test.mjs)
    assert.match(await page.textContent('#build'), new RegExp(`relaxed-SIMD build \\(FMA, ${hardware} threads\\)`));
    await checkViews(page);
    await page.screenshot({ path: new URL('explorer-threads.png', SCREENSHOTS).pathname, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('served without COOP and COEP, the page runs one thread and works the same', async () => {
    const { page, problems } = await openPage('', { routes: [withoutIsolation] });
    assert.equal(await page.evaluate(() => crossOriginIsolated), false);
    assert.equal(await page.getAttribute('body', 'data-threads'), '1');
    assert.equal(await page.getAttribute('body', 'data-module-threads'), '1');
    assert.match(await page.textContent('#build'), /one thread/);
    await checkViews(page);
    // an explicit count where memory cannot be shared gives one thread, without an error
    const threads = await page.evaluate(async () => {
      const { default: loadAttn, threadsSupported } = await import('./dist/attn.mjs');
      const attn = await loadAttn({ threads: 4, warmUp: false });
      return { supported: threadsSupported(), got: attn.threads };
    });
    assert.deepEqual(threads, { supported: false, got: 1 });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("on the page's own thread, 2 and 4 threads give one thread's results bit for bit, and dispose() ends them", async () => {
    const { page, problems } = await openPage();
    const result = await page.evaluate(async () => {
      const { default: loadAttn } = await import('./dist/attn.mjs');
      let seed = 5;
      const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
      const floats = (n) => Float32Array.from({ length: n }, random);
      const calls = [[8, 128, 128, 64], [1, 512, 512, 64]].flatMap(([heads, queryLength, keyLength, dim]) => {
        const inputs = { query: floats(heads * queryLength * dim), key: floats(heads * keyLength * dim),
          value: floats(heads * keyLength * dim), heads, queryLength, keyLength, dim };
        return [inputs, { ...inputs, causal: true }, { ...inputs, validLength: keyLength - 3 }];
      });
      const bits = (array) => Array.from(new Uint32Array(array.buffer, array.byteOffset, array.length));
      const run = (attn) => calls.map((call) => {
        const { output, weights } = attn.attention(call);
        return [...bits(output), ...bits(weights)];
      });
      const single = await loadAttn({ threads: 1, warmUp: false });
      const expected = run(single);
      const answers = {};
      for (const threads of [2, 4]) {
        const attn = await loadAttn({ threads });
        const actual = run(attn);
        const mismatched = actual.map((values, i) => values.findIndex((x, j) => x !== expected[i][j])).filter((at) => at >= 0);
        attn.dispose();
        let after = '';
        try {
          attn.attention(calls[0]);
        } catch (error) {
          after = error.message;
        }
        answers[threads] = { threads: attn.threads, mismatched, after };
      }
      return answers;
    });
    for (const threads of [2, 4]) {
      assert.equal(result[threads].threads, threads);
      assert.deepEqual(result[threads].mismatched, [], `${threads} threads: the calls that differ from one thread`);
      assert.match(result[threads].after, /this attnscope module was disposed/);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  // Not through openPage: the refused Workers are console errors by design (the policy's reports,
  // the explorer's own Workers), which openPage counts against the file.
  test('where a Content-Security-Policy refuses Workers, asking for threads fails at once with an error that says so, and the default loads one thread', async () => {
    const page = await session.browser.newPage();
    await page.route('**/*', async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      if (route.request().resourceType() === 'document') headers['content-security-policy'] = "worker-src 'none'";
      await route.fulfill({ response, headers });
    });
    await page.goto(session.base, { waitUntil: 'domcontentloaded' });
    const outcomes = await page.evaluate(async () => {
      const { default: loadAttn } = await import('./dist/attn.mjs');
      // within 20 s, or 'still loading': the glue waited for the refused Workers forever before
      const settle = (loading) => Promise.race([
        loading.then((attn) => {
          const { output } = attn.attention({ query: new Float32Array([1, 0]), key: new Float32Array([1, 0, 0, 1]),
            value: new Float32Array([1, 2, 3, 4]), queryLength: 1, keyLength: 2, dim: 2 });
          return `threads ${attn.threads}, output ${Array.from(output, (x) => x.toFixed(4)).join(' ')}`;
        }, (error) => `error: ${error.message}`),
        new Promise((resolve) => setTimeout(() => resolve('still loading after 20 s'), 20000)),
      ]);
      return {
        isolated: crossOriginIsolated,
        hardware: navigator.hardwareConcurrency,
        asked: await settle(loadAttn({ threads: 2, warmUp: false })),
        byDefault: await settle(loadAttn({ warmUp: false })),
      };
    });
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await page.close();
    assert.equal(outcomes.isolated, true, 'the page can share memory: only the policy stands in the way');
    assert.ok(outcomes.hardware > 1, `the default would be threads here (${outcomes.hardware} reported)`);
    assert.match(outcomes.asked, /^error: loadAttn\(\): the threads build's Workers could not start \(http:\/\/.*attn-(?:relaxed|simd)-threads\.worker\.js\).*worker-src.*threads: 1$/);
    assert.match(outcomes.byDefault, /^threads 1, output 1\.6605 2\.6605$/);
  });
});
