// The explorer page's start-up. Two workers: the model worker (worker.mjs) loads the module and
// then the first model the chosen language pair's first view needs (en-es's attention model, or
// another pair's HMM aligner); the module worker (module-worker.mjs)
// needs the module alone and serves bring-your-own and the playground. This thread instantiates no
// WebAssembly. Each view starts as soon as what it needs is in, so the playground and
// bring-your-own work before any model has arrived. Every control is registered with the URL hash (state.mjs)
// before its view first reads it. body[data-ready="true"] once the first alignment and
// translation are drawn.
import { relaxedSimdSupported, simdSupported } from './dist/attn.mjs';
import { AlignView } from './align.mjs';
import { copyText } from './controls.mjs';
import { ByoView } from './byo.mjs';
import { CaptionView } from './caption.mjs';
import { PRESETS, exampleOf, isExample, presetOf } from './examples.mjs';
import { PLAYGROUND_CONTROLS, projectionsField, startPlayground, tokenField } from './playground.mjs';
import { ModelView } from './model-view.mjs';
import { HashState } from './state.mjs';
import { idOfKey, startTabs } from './tabs.mjs';
import { onLanguage, showSaid, startLanguage, t } from './i18n.mjs';
import { message, saidBy } from './messages.mjs';
import { TranslateView } from './translate.mjs';
import { WorkerClient } from './worker-client.mjs';

/** @type {(id: string) => any} index.html's element of that id (a control, a figure, a section) */
const $ = (id) => document.getElementById(id);

// A heatmap's zoom as a hash field.
const zoomField = (heatmap) => ({
  element: heatmap.host, get: () => heatmap.zoomState, set: (value) => { heatmap.zoomState = value; },
});

// Controls under their hash keys (tabs.mjs HASH_KEYS says which id each key holds).
function controls(state, keys) {
  for (const key of keys) state.control(key, $(idOfKey(key)));
}

// The line under the title: the module's build, then what the chosen pair has loaded or will.
/** @type {import('./messages.mjs').Message} */
let buildLine = '';
function setStatus(status) {
  showSaid($('build'), status ? message('{build} · {status}', { build: buildLine, status }) : buildLine);
}

// The model files the worker has loaded (its 'loaded' messages), so the line never says a model
// "follows" once it is in, whichever pair brought it (every pair shares the multilingual file).
const loadedFiles = new Set();
function pairStatus(pair) {
  const { forward, hmm, ibm2 } = pair.files;
  const attention = Boolean(forward) && loadedFiles.has(forward), aligner = [hmm, ibm2].some((file) => file && loadedFiles.has(file));
  const said = (template) => message(template, { pair: pair.name });
  if (!forward) {
    return said(aligner ? 'the {pair} aligner loaded ({pair} has no attention model yet)'
      : '{pair}: its aligners load the first time a method needs them ({pair} has no attention model yet)');
  }
  if (attention && aligner) return said('the {pair} aligner and its attention model loaded');
  if (attention) return said('{pair}: its attention model loaded; its aligner loads when a method needs it');
  if (aligner) return said('the {pair} aligner loaded; its attention model follows for the methods that use it');
  return said('{pair}: its models load the first time a method needs them');
}

// The #pair select: the index's pairs, en-es (the default) first; the URL hash remembers the choice.
// Switching pairs shows the pair's example sentences (unless the reader typed their own), its
// default method, and in every view that pair's models only.
function startPairs(state, pairs, views) {
  const select = $('pair');
  const pairName = (pair) => `${t('English')}–${t(pair.languageName)}`;
  select.replaceChildren(...Object.values(pairs).map((pair) => new Option(pairName(pair), pair.name)));
  select.value = 'en-es';
  state.control('pair', select);  // the hash's pair, if any, is chosen now
  const chosen = () => pairs[select.value] ?? pairs['en-es'];
  const show = ({ reset }) => {
    const pair = chosen();
    document.body.dataset.pair = pair.name;
    for (const name of document.querySelectorAll('.language-name')) name.textContent = t(pair.languageName);
    const example = exampleOf(pair.language);
    if (example && isExample($('source').value, $('target').value)) {
      $('source').value = example.source;
      $('target').value = example.target;
    }
    for (const view of views) view.setPair(pair, { reset });
  };
  show({ reset: false });
  onLanguage(() => {  // the pairs' and the language's names in the interface's language
    for (const option of select.options) option.textContent = pairName(pairs[option.value]);
    for (const name of document.querySelectorAll('.language-name')) name.textContent = t(chosen().languageName);
    views[0].draw();  // the line under the alignment
  });
  select.addEventListener('input', () => {
    // the reader's choice resets the method to the pair's default; a link (hash) keeps its own
    show({ reset: !state.applying });
    const pair = chosen();
    setStatus(pairStatus(pair));
    const [align, translate, inside] = views;
    align.update();
    if (pair.files.forward) translate.translate();
    inside.update();
  });
}

// The #presets select: the classic examples of the pairs this build ships. Choosing one sets the
// pair, then both sentences (so the views and the URL follow), and shows what to look for; editing
// a sentence leaves the preset.
function startPresets(pairs) {
  const select = $('presets'), note = $('preset-note');
  const shipped = PRESETS.filter((preset) => pairs[preset.pair]);
  select.append(...shipped.map((preset) => new Option(preset.label, preset.id)));
  select.disabled = shipped.length === 0;
  let applying = false;
  select.addEventListener('input', () => {
    const preset = presetOf(select.value);
    note.textContent = preset?.note ?? '';
    if (!preset) return;
    applying = true;
    if ($('pair').value !== preset.pair) {
      $('pair').value = preset.pair;
      $('pair').dispatchEvent(new Event('input', { bubbles: true }));
    }
    for (const [id, text] of [['source', preset.source], ['target', preset.target]]) {
      $(id).value = text;
      $(id).dispatchEvent(new Event('input', { bubbles: true }));
    }
    if (preset.translate && !$('translate').disabled) {  // its note points at the translation view: the sentence is there
      const models = $('translate-model');
      if (!models.value.startsWith(`${preset.pair}-`)) {
        models.selectedIndex = 0;  // English -> the pair's language comes first
        models.dispatchEvent(new Event('change', { bubbles: true }));
      }
      $('translate-source').value = preset.source;
      $('translate-source').dispatchEvent(new Event('change', { bubbles: true }));
      $('translate').click();
    }
    applying = false;
  });
  for (const id of ['source', 'target']) {
    $(id).addEventListener('input', () => {
      if (applying || !select.value) return;
      select.value = '';
      note.textContent = '';
    });
  }
}

async function startAlignment(client, state) {
  const module = await client.module;  // {simd, build, instructionSet, threads, alignment, pairs, models}
  // threads: the hardware's where the page is cross-origin isolated (tools/serve.mjs makes it so)
  const threads = module.threads > 1 ? message('{count} threads', { count: module.threads }) : 'one thread';
  buildLine = module.build === 'relaxed'
    ? message('WebAssembly relaxed-SIMD build (FMA, {threads})', { threads })  // SIMD128 with fused multiply-adds
    : module.simd
      ? message('WebAssembly SIMD128 build ({kernels} kernels, {threads})', { kernels: module.instructionSet, threads })
      : message('WebAssembly scalar build ({threads}; no SIMD in this browser, or forced with ?simd=0)', { threads });
  setStatus('');
  document.body.dataset.simd = String(module.simd);
  document.body.dataset.build = module.build;
  document.body.dataset.threads = String(module.threads);
  const enEs = module.pairs['en-es']?.files ?? {};
  for (const role of ['reverse', 'general']) document.body.dataset[`${role}Shipped`] = String(Boolean(enEs[role]));
  document.body.dataset.statisticalShipped = String(Boolean(enEs.hmm && enEs.ibm2));
  const align = new AlignView(client, module);
  const translate = new TranslateView(client, module, () => state.applying);
  const inside = new ModelView(client, module);
  // the sentences first: the hash's, if any, before the pair decides whether its example replaces them
  controls(state, ['s', 't']);
  startPairs(state, module.pairs, [align, translate, inside]);
  startPresets(module.pairs);
  align.start();
  translate.start();
  inside.start();
  controls(state, ['m', 'th', 'shift', 'cmp', 'tr', 'tm', 'beam', 'model', 'kind', 'show']);
  state.field('z', zoomField(align.heatmap));
  state.field('step', { element: $('step'), get: () => translate.step, set: (value) => { translate.step = value; } });
  client.ready.then(({ pair, models }) => {
    if (document.body.dataset.pair !== pair) return;  // another pair was chosen meanwhile: its line stays
    // a pair of the multilingual Transformer starts from its HMM; the Transformer follows when needed
    setStatus(models.forward ? message('{direction} model loaded; the others load when a method needs them', { direction: models.forward.direction })
      : pairStatus(module.pairs[pair]));
  }, (error) => showSaid($('build'), message('the first model failed to load: {problem}', { problem: saidBy(error) })));
  client.addEventListener('restart', () => {  // a fresh worker has loaded nothing
    loadedFiles.clear();
    const pair = module.pairs[document.body.dataset.pair];
    if (pair) setStatus(pairStatus(pair));
  });
  client.addEventListener('loaded', ({ detail }) => {
    loadedFiles.add(detail.file);
    const pair = module.pairs[document.body.dataset.pair];
    if (pair && Object.values(pair.files).includes(detail.file)) setStatus(pairStatus(pair));
  });
  await Promise.all([align.update(), translate.translate(), inside.update()]);
}

// Bring-your-own and the playground: both need the module worker alone.
async function startModuleViews(client, state) {
  const { alignment, threads } = await client.module;
  document.body.dataset.moduleThreads = String(threads);
  const view = new ByoView(client);
  view.start(alignment);
  controls(state, ['layer', 'head', 'agg', 'special', 'merge', 'bm']);
  state.field('bz', zoomField(view.heatmap));
  document.body.dataset.byoReady = 'true';
  await startPlayground(client, () => {
    controls(state, PLAYGROUND_CONTROLS);
    state.field('tokens', tokenField);
    state.field('proj', projectionsField);
  }, () => state.applying);
  document.body.dataset.playgroundReady = 'true';
}

// "link to this view" copies the address of the view (the state keeps it current) and says so.
function shareOnClick() {
  const share = $('share'), said = $('share-status');
  let timer = 0;
  share.addEventListener('click', (event) => {
    event.preventDefault();
    const say = (text) => {
      said.textContent = t(text);
      clearTimeout(timer);
      timer = setTimeout(() => { said.textContent = ''; }, 4000);
    };
    copyText(location.href).then(() => say('link copied'), () => say('the browser refused the clipboard: copy the address bar'));
  });
}

async function main() {
  const parameter = new URLSearchParams(location.search).get('simd');
  // Decided here, once, so the page and its workers run the same build.
  // ?simd=0: scalar; ?simd=1: SIMD128; ?simd=relaxed: relaxed SIMD; else the best the browser validates
  const simd = parameter === '0' ? false : parameter === '1' ? true : parameter === 'relaxed' ? 'relaxed'
    : relaxedSimdSupported() ? 'relaxed' : simdSupported();
  const state = new HashState({ share: $('share') });
  state.control('c', $('colormap'));  // shared by every view: registered before any draws
  state.control('marks', $('show-links'));
  startTabs(state);
  startLanguage(state);
  shareOnClick();
  // the worker fetches the linked pair's first model at once (the index decides whether it exists)
  const pair = new URLSearchParams(location.hash.slice(1)).get('pair') ?? 'en-es';
  const models = new WorkerClient(new URL('./worker.mjs', import.meta.url), { type: 'init', simd, pair });
  const matrices = new WorkerClient(new URL('./module-worker.mjs', import.meta.url), { type: 'init', simd });
  new CaptionView(models, state).start();  // the Images view: its hash keys now, its model once the tab is shown
  await Promise.all([startAlignment(models, state), startModuleViews(matrices, state)]);
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  console.error(error);
  showSaid($('build'), message('the explorer failed to start: {problem}', { problem: saidBy(error) }));
  document.body.dataset.ready = 'error';
});
