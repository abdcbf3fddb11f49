// The explorer page: the alignment view (compute in a worker) and the playground.
import loadAttn, { simdSupported } from './dist/attn.mjs';
import { AlignView } from './align.mjs';
import { ByoView } from './byo.mjs';
import { startPlayground } from './playground.mjs';
import { TranslateView } from './translate.mjs';

const $ = (id) => document.getElementById(id);

async function main() {
  const parameter = new URLSearchParams(location.search).get('simd');
  // Decided here, once, so the page and its worker run the same build.
  const simd = parameter === '0' ? false : parameter === '1' ? true : simdSupported();
  const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
  const ready = new Promise((resolve, reject) => {
    worker.addEventListener('message', ({ data }) => {
      if (data.type === 'ready') resolve(data);
      if (data.type === 'failed') reject(new Error(data.message));
    });
    worker.addEventListener('error', (event) => reject(new Error(event.message || 'the worker failed to start')));
  });
  worker.postMessage({ type: 'init', simd });
  // The playground's matrices are tiny: it uses its own instance on the page's thread.
  const [status, attn] = await Promise.all([ready, loadAttn({ simd })]);
  $('build').textContent = status.simd
    ? `WebAssembly SIMD128 build (${status.instructionSet} kernels)`
    : 'WebAssembly scalar build (no SIMD in this browser, or forced with ?simd=0)';
  document.body.dataset.simd = String(status.simd);
  for (const [name, available] of [['reverse', status.models.reverse], ['general', status.models.general]]) {
    document.body.dataset[`${name}Model`] = String(Boolean(available));
  }
  document.body.dataset.statisticalAligner = String(status.statistical);
  startPlayground(attn);
  new ByoView(attn).start();
  const align = new AlignView(worker);
  await Promise.all([align.start(), new TranslateView((message) => align.request(message)).start()]);
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  $('build').textContent = `the explorer failed to start: ${error.message}`;
  document.body.dataset.ready = 'error';
});
