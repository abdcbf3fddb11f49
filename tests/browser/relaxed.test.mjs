// The explorer in Debian's Chromium, which has relaxed SIMD: the page and its workers run the
// relaxed-SIMD build (attn-relaxed*, SIMD128 with fused multiply-adds) and the status line says so.
// Where the engine has no relaxed SIMD (Safari, older engines; simulated here by a validate that
// refuses relaxed-SIMD modules, since Chromium 156 has no flag that switches relaxed SIMD off),
// the page runs SIMD128 and never fetches a relaxed-SIMD file.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, recordFetches, useBrowser } from './browser.mjs';

useBrowser();

const relaxedFiles = (fetched) => fetched.filter((path) => /\/attn-relaxed/.test(path));
const wasmFiles = (fetched) => fetched.filter((path) => path.endsWith('.wasm'));

describe('the relaxed-SIMD build in the explorer', () => {
  test('Chromium validates relaxed SIMD: the page runs the relaxed build and its status line says so', async () => {
    const fetched = [];
    const { page, problems } = await openPage('', { routes: [recordFetches(fetched)] });
    assert.equal(await page.evaluate(async () => (await import('./dist/attn.mjs')).relaxedSimdSupported()), true);
    assert.equal(await page.getAttribute('body', 'data-build'), 'relaxed');
    assert.equal(await page.getAttribute('body', 'data-simd'), 'true');
    assert.match(await page.textContent('#build'), /^WebAssembly relaxed-SIMD build \(FMA, /);
    const modules = wasmFiles(fetched);
    assert.ok(modules.length > 0 && modules.every((path) => /\/attn-relaxed(-threads)?\.wasm$/.test(path)), modules.join(' '));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an engine without relaxed SIMD: SIMD128, no relaxed-SIMD file fetched', async () => {
    const fetched = [];
    // validate() refuses any module holding f32x4.relaxed_madd (0xfd 0x85 0x02), as such an engine does
    const withoutRelaxed = (page) => page.addInitScript(() => {
      const validate = WebAssembly.validate;
      WebAssembly.validate = (bytes) => {
        const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
        for (let i = 0; i + 2 < view.length; i++) if (view[i] === 0xfd && view[i + 1] === 0x85 && view[i + 2] === 0x02) return false;
        return validate(bytes);
      };
    });
    const { page, problems } = await openPage('', { routes: [recordFetches(fetched)], before: withoutRelaxed });
    assert.equal(await page.getAttribute('body', 'data-build'), 'simd');
    assert.match(await page.textContent('#build'), /^WebAssembly SIMD128 build \(sse4\.1 kernels, /);
    assert.deepEqual(relaxedFiles(fetched), []);
    assert.ok(wasmFiles(fetched).length > 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('?simd=1 forces SIMD128 where relaxed SIMD is there', async () => {
    const fetched = [];
    const { page } = await openPage('?simd=1', { routes: [recordFetches(fetched)] });
    assert.equal(await page.getAttribute('body', 'data-build'), 'simd');
    assert.deepEqual(relaxedFiles(fetched), []);
    await page.close();
  });
});
