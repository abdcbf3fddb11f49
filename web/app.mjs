// The explorer page: the alignment view (compute in a worker) and the playground.
import loadAttn, { simdSupported } from './dist/attn.mjs';
import { AlignView } from './align.mjs';
import { ByoView } from './byo.mjs';
import { startPlayground } from './playground.mjs';
import { TranslateView } from './translate.mjs';
import { WorkerClient } from './worker-client.mjs';

const $ = (id) => document.getElementById(id);

async function main() {
  const parameter = new URLSearchParams(location.search).get('simd');
  // Decided here, once, so the page and its worker run the same build.
  const simd = parameter === '0' ? false : parameter === '1' ? true : simdSupported();
  const client = new WorkerClient();
  // The playground's matrices are tiny: it uses its own instance on the page's thread.
  const [status, attn] = await Promise.all([client.start(simd), loadAttn({ simd, warmUp: false })]);
  $('build').textContent = status.simd
    ? `WebAssembly SIMD128 build (${status.instructionSet} kernels)`
    : 'WebAssembly scalar build (no SIMD in this browser, or forced with ?simd=0)';
  document.body.dataset.simd = String(status.simd);
  startPlayground(attn);
  new ByoView(attn).start();
  const align = new AlignView(client, status.alignment);
  await Promise.all([align.start(), new TranslateView(client).start()]);
  document.body.dataset.ready = 'true';
  // The reverse and general models and the statistical aligners arrive after the page is ready.
  const more = await client.extras;
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
