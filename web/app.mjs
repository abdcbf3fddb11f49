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
  let extrasArrived;
  const extras = new Promise((resolve) => { extrasArrived = resolve; });
  const ready = new Promise((resolve, reject) => {
    worker.addEventListener('message', ({ data }) => {
      if (data.type === 'ready') resolve(data);
      if (data.type === 'extras') extrasArrived(data);
      if (data.type === 'failed') reject(new Error(data.message));
    });
    worker.addEventListener('error', (event) => reject(new Error(event.message || 'the worker failed to start')));
  });
  worker.postMessage({ type: 'init', simd });
  // The playground's matrices are tiny: it uses its own instance on the page's thread.
  const [status, attn] = await Promise.all([ready, loadAttn({ simd, warmUp: false })]);
  $('build').textContent = status.simd
    ? `WebAssembly SIMD128 build (${status.instructionSet} kernels)`
    : 'WebAssembly scalar build (no SIMD in this browser, or forced with ?simd=0)';
  document.body.dataset.simd = String(status.simd);
  startPlayground(attn);
  new ByoView(attn).start();
  const align = new AlignView(worker);
  await Promise.all([align.start(), new TranslateView((message) => align.request(message)).start()]);
  document.body.dataset.ready = 'true';
  // The reverse and general models and the statistical aligners arrive after the page is ready.
  const more = await extras;
  for (const [name, available] of [['reverse', more.models.reverse], ['general', more.models.general]]) {
    document.body.dataset[`${name}Model`] = String(Boolean(available));
  }
  document.body.dataset.statisticalAligner = String(more.statistical);
  align.extrasLoaded(more);
  document.body.dataset.extras = more.error ? 'error' : 'true';
}

main().catch((error) => {
  $('build').textContent = `the explorer failed to start: ${error.message}`;
  document.body.dataset.ready = 'error';
});
