// The explorer page's start-up. Two workers: the model worker (worker.mjs) loads the module and
// then the en-es model, the only model the first view needs; the module worker (module-worker.mjs)
// needs the module alone and serves bring-your-own and the playground. This thread instantiates no
// WebAssembly. Each view starts as soon as what it needs is in, so the playground and
// bring-your-own work before any model has arrived. Every control is registered with the URL hash (state.mjs)
// before its view first reads it. body[data-ready="true"] once the first alignment and
// translation are drawn.
import { simdSupported } from './dist/attn.mjs';
import { AlignView } from './align.mjs';
import { ByoView } from './byo.mjs';
import { PLAYGROUND_CONTROLS, startPlayground, tokenField } from './playground.mjs';
import { ModelView } from './model-view.mjs';
import { HashState } from './state.mjs';
import { TranslateView } from './translate.mjs';
import { WorkerClient } from './worker-client.mjs';

const $ = (id) => document.getElementById(id);

// A heatmap's zoom as a hash field.
const zoomField = (heatmap) => ({
  element: heatmap.host, get: () => heatmap.zoomState, set: (value) => { heatmap.zoomState = value; },
});

function controls(state, pairs) {
  for (const [key, id] of pairs) state.control(key, $(id));
}

async function startAlignment(client, state) {
  const module = await client.module;  // {simd, instructionSet, threads, alignment, shipped}
  // threads: the hardware's where the page is cross-origin isolated (tools/serve.mjs makes it so)
  const threads = module.threads > 1 ? `${module.threads} threads` : 'one thread';
  $('build').textContent = module.simd
    ? `WebAssembly SIMD128 build (${module.instructionSet} kernels, ${threads})`
    : `WebAssembly scalar build (${threads}; no SIMD in this browser, or forced with ?simd=0)`;
  document.body.dataset.simd = String(module.simd);
  document.body.dataset.threads = String(module.threads);
  for (const [name, shipped] of Object.entries(module.shipped)) document.body.dataset[`${name}Shipped`] = String(shipped);
  const align = new AlignView(client, module);
  const translate = new TranslateView(client, module);
  const inside = new ModelView(client, module);
  align.start();
  translate.start();
  inside.start();
  controls(state, [['s', 'source'], ['t', 'target'], ['m', 'method'], ['th', 'threshold'], ['shift', 'shift'], ['cmp', 'compare'],
    ['tr', 'translate-source'], ['tm', 'translate-model'], ['beam', 'beam'], ['model', 'model'], ['kind', 'attention-kind'], ['show', 'model-aggregate']]);
  state.field('z', zoomField(align.heatmap));
  state.field('step', { element: $('step'), get: () => translate.step, set: (value) => { translate.step = value; } });
  client.ready.then(({ models }) => {
    $('build').textContent += ` · ${models.forward.direction} model loaded; the others load when a method needs them`;
  }, (error) => { $('build').textContent = `the translation model failed to load: ${error.message}`; });
  await Promise.all([align.update(), translate.translate(), inside.update()]);
}

// Bring-your-own and the playground: both need the module worker alone.
async function startModuleViews(client, state) {
  const { alignment, threads } = await client.module;
  document.body.dataset.moduleThreads = String(threads);
  const view = new ByoView(client);
  view.start(alignment);
  controls(state, [['layer', 'byo-layer'], ['head', 'byo-head'], ['agg', 'byo-aggregate'], ['special', 'byo-special'],
    ['merge', 'byo-merge'], ['bm', 'byo-method']]);
  state.field('bz', zoomField(view.heatmap));
  document.body.dataset.byoReady = 'true';
  await startPlayground(client, () => {
    controls(state, PLAYGROUND_CONTROLS.map((id) => [id, id]));
    state.field('tokens', tokenField);
  });
  document.body.dataset.playgroundReady = 'true';
}

async function main() {
  const parameter = new URLSearchParams(location.search).get('simd');
  // Decided here, once, so the page and its workers run the same build.
  const simd = parameter === '0' ? false : parameter === '1' ? true : simdSupported();
  const state = new HashState({ share: $('share') });
  state.control('c', $('colormap'));  // shared by every view: registered before any draws
  const models = new WorkerClient(new URL('./worker.mjs', import.meta.url), { type: 'init', simd });
  const matrices = new WorkerClient(new URL('./module-worker.mjs', import.meta.url), { type: 'init', simd });
  await Promise.all([startAlignment(models, state), startModuleViews(matrices, state)]);
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  console.error(error);
  $('build').textContent = `the explorer failed to start: ${error.message}`;
  document.body.dataset.ready = 'error';
});
