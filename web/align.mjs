// The alignment view: two sentences in, attention out. Requests go to the worker (debounced,
// only the latest pending one is sent), results are drawn as a heatmap and a line view with
// the chosen method's links, the Pharaoh text, and hover/keyboard highlighting.
import { exportJson, exportLinks, exportPng, exportSvg } from './export.mjs';
import { listMethods } from './methods.mjs';
import { drawHeatmap, drawLines, highlight } from './views.mjs';

const $ = (id) => document.getElementById(id);

// An alignment result as the drawers take it: rows are target words, columns source words.
const matrixOf = (r) => ({
  weights: r.weights, rows: r.targetWords.length, cols: r.sourceWords.length,
  rowLabels: r.targetWords, colLabels: r.sourceWords, links: r.links,
});

export class AlignView {
  constructor(client, rules) {
    this.client = client;  // a WorkerClient (worker-client.mjs)
    this.rules = rules;    // the library's alignment rules (attn.alignment), from the worker's 'ready'
    this.pending = null;
    this.busy = false;
    this.result = null;
    this.timer = 0;
  }

  // The optional models are in (or not): the comparison needs the general-attention model.
  extrasLoaded({ models, error }) {
    if (!models.general) {
      $('compare').checked = false;
      $('compare').disabled = true;
      $('compare').parentElement.title = error ? `the optional models failed to load: ${error}`
        : 'the general-attention model is not shipped with this build';
    }
    if (error) $('align-status').textContent = `Some models failed to load: ${error}`;
  }

  settings() {
    return {
      source: $('source').value, target: $('target').value, method: $('method').value,
      shift: $('shift').checked, threshold: Number($('threshold').value),
    };
  }

  // The view's state lives in the URL hash, so a link reproduces it.
  restoreFromHash() {
    const state = new URLSearchParams(location.hash.slice(1));
    if (state.has('s')) $('source').value = state.get('s');
    if (state.has('t')) $('target').value = state.get('t');
    if (state.has('m') && [...$('method').options].some((o) => o.value === state.get('m'))) $('method').value = state.get('m');
    if (state.has('shift')) $('shift').checked = state.get('shift') === '1';
    if (state.has('c') && ['viridis', 'gray'].includes(state.get('c'))) $('colormap').value = state.get('c');
  }

  saveToHash() {
    const s = this.settings();
    const state = new URLSearchParams({ s: s.source, t: s.target, m: s.method, shift: s.shift ? '1' : '0', c: $('colormap').value });
    history.replaceState(null, '', `#${state}`);
    $('share').href = location.href;
  }

  start() {
    listMethods($('method'), this.rules.methods, this.rules.defaults);
    $('threshold').value = String(this.rules.defaults.threshold);
    this.restoreFromHash();
    $('export-svg').addEventListener('click', () => exportSvg($('heatmap')));
    $('export-png').addEventListener('click', () => exportPng($('heatmap')));
    $('export-json').addEventListener('click', () => this.result && exportJson(this.result));
    $('export-links').addEventListener('click', () => this.result && exportLinks(this.result.pharaoh));
    const schedule = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.update(), 15);  // short: the worker coalesces what arrives while busy
    };
    for (const id of ['source', 'target']) $(id).addEventListener('input', schedule);
    for (const id of ['method', 'shift', 'threshold', 'compare']) $(id).addEventListener('input', () => this.update());
    $('colormap').addEventListener('input', () => { this.saveToHash(); this.draw(); });
    $('copy').addEventListener('click', () => navigator.clipboard?.writeText($('pharaoh').textContent).then(
      () => { $('copy').textContent = 'Copied'; setTimeout(() => { $('copy').textContent = 'Copy'; }, 1200); },
      () => { $('align-status').textContent = 'The browser refused the clipboard; select the links and copy them.'; }));
    for (const id of ['heatmap', 'lines']) {
      const svg = $(id);
      svg.addEventListener('pointerover', (event) => this.focusWord(event.target));
      svg.addEventListener('focusin', (event) => this.focusWord(event.target));
      svg.addEventListener('pointerleave', () => this.focusWord(null));
      svg.addEventListener('focusout', () => this.focusWord(null));
    }
    return this.update();
  }

  // Hovering or focusing a word (or a cell) highlights its row/column in both views.
  focusWord(node) {
    const target = node && node.closest ? node.closest('[data-row], [data-col]') : null;
    const spot = target ? { row: target.dataset.row === undefined ? -1 : Number(target.dataset.row), col: target.dataset.col === undefined ? -1 : Number(target.dataset.col) } : {};
    if (target && target.classList.contains('cell')) spot.col = -1;  // a cell highlights its target row
    for (const id of ['heatmap', 'lines']) highlight($(id), spot);
  }

  async update() {
    this.pending = this.settings();
    this.saveToHash();
    if (this.busy) return this.done;
    this.busy = true;
    this.done = (async () => {
      while (this.pending) {
        const settings = this.pending;
        this.pending = null;
        const compare = $('compare').checked && !$('compare').disabled;
        const [reply, general] = await Promise.all([
          this.client.request({ type: 'align', ...settings }),
          compare ? this.client.request({ type: 'align', ...settings, method: 'argmax', model: 'general' }) : null,
        ]);
        this.general = general && general.type === 'result' ? general.result : null;
        if (reply.type === 'error') {
          $('align-status').textContent = reply.message;
          $('align-view').dataset.state = 'error';
        } else {
          this.result = reply.result;
          $('align-status').textContent = `${this.result.targetWords.length} × ${this.result.sourceWords.length} words, aligned in ${this.result.milliseconds.toFixed(1)} ms`;
          $('align-view').dataset.state = 'ok';
          this.draw();
        }
      }
      this.busy = false;
    })();
    return this.done;
  }

  draw() {
    const r = this.result;
    if (!r) return;
    const common = matrixOf(r);
    drawHeatmap($('heatmap'), { ...common, colormap: $('colormap').value });
    drawLines($('lines'), { ...common, topK: common.cols > 40 ? 2 : 3 });
    $('pharaoh').textContent = r.pharaoh;
    $('compare-figure').hidden = !this.general;
    if (this.general) drawHeatmap($('heatmap-general'), { ...matrixOf(this.general), colormap: $('colormap').value });
    $('heatmap').dataset.links = String(r.links.length);
    $('heatmap').dataset.drawnAt = String(performance.now());  // for tools/bench_page.mjs
  }
}
