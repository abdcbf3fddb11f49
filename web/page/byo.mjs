// "Bring your own": attention matrices from any model, dropped or chosen as .npy (2-D
// [target][source], 3-D [heads][target][source], 4-D [layers][heads][target][source]) or JSON
// ({ source: [...], target: [...], weights: [[...]] }, weights 2-D to 4-D), viewed with head and
// layer selection or aggregation, special tokens hidden with renormalization, subwords merged into
// words, links extracted, and a dropped gold Pharaoh file scored (AER, precision, recall). The
// work happens in module-worker.mjs; this module is the view. A refused file is reported next to the
// file input, and the last good matrix stays on screen; what it says is said in the reader's
// language (messages.mjs, i18n.mjs), the library's own errors after a lead-in.
import { Requests, showProblem } from './controls.mjs';
import { exportPng, exportSvg } from './export.mjs';
import { onLanguage, showSaid } from './i18n.mjs';
import { message, saidBy } from './messages.mjs';
import { listMethods, readsOneMatrix, relabelMethods } from './methods.mjs';
import { Heatmap } from './views.mjs';

/** @type {(id: string) => any} index.html's element of that id (a control, a figure, a section) */
const $ = (id) => document.getElementById(id);
const CONTROLS = ['byo-layer', 'byo-head', 'byo-aggregate', 'byo-special', 'byo-merge', 'byo-method'];
const isMatrix = (file) => /\.(npy|json)$/i.test(file.name);

export class ByoView {
  constructor(client) {
    this.client = client;  // the module worker's WorkerClient (module-worker.mjs)
    this.heatmap = new Heatmap($('byo-heatmap'), { label: 'the dropped attention matrix' });
    this.requests = new Requests($('byo-busy'), (request) => client.request(request), { onCancel: () => this.cancel() });
    this.busy = this.requests.busy;  // also shows files being read, one after the other
    this.files = { matrix: null, gold: null };  // the last good ones, to give a restarted worker
  }

  start({ methods, defaults }) {
    // The methods that extract links from one matrix, as the library lists them.
    listMethods($('byo-method'), methods.filter(readsOneMatrix), defaults);
    onLanguage(() => relabelMethods($('byo-method')));
    const drop = $('drop');
    drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('dragging'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
    drop.addEventListener('drop', (event) => {
      event.preventDefault();
      drop.classList.remove('dragging');
      this.load([...event.dataTransfer.files]);
    });
    // the drop zone is also the button that opens the file chooser
    drop.addEventListener('click', () => $('byo-file').click());
    drop.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      $('byo-file').click();
    });
    $('byo-export-svg').addEventListener('click', () => exportSvg(this.heatmap, 'attention-byo.svg'));
    $('byo-export-png').addEventListener('click', () => exportPng(this.heatmap, 'attention-byo.png'));
    $('byo-file').addEventListener('change', (event) => this.load([...event.target.files]));
    for (const id of CONTROLS) $(id).addEventListener('input', () => this.update());
    for (const id of ['colormap', 'show-links']) $(id).addEventListener('input', () => this.redraw());
  }

  settings() {
    const text = (id) => ($(id).validity.badInput ? 'not a number' : $(id).value);
    return {
      layer: text('byo-layer'), head: text('byo-head'), aggregate: $('byo-aggregate').value,
      special: $('byo-special').checked, merge: $('byo-merge').checked, method: $('byo-method').value,
    };
  }

  /** Reads files in order (matrices before gold alignments), reporting on each. */
  async load(files) {
    const ordered = [...files.filter(isMatrix), ...files.filter((file) => !isMatrix(file))];
    const done = [], refused = [];
    $('byo-view').dataset.state = 'busy';
    for (const file of ordered) {
      this.busy.start(message('Reading {file}', { file: file.name }));
      const reply = await this.client.request({ type: 'file', file, settings: this.settings() });
      this.busy.stop();
      if (reply.type !== 'result') {
        refused.push(message('{file}: {problem}', { file: file.name, problem: reply.type === 'cancelled' ? 'cancelled' : saidBy(reply) }));
        continue;
      }
      const { loaded, view } = reply.result;
      this.files[loaded.kind] = file;
      done.push(loaded.kind === 'matrix' ? message('{file}: {shape}', { file: file.name, shape: loaded.shape.join(' × ') })
        : message('{file}: {count} gold links', { file: file.name, count: loaded.links }));
      if (view) await this.show(view);
    }
    if (done.length) showSaid($('byo-status'), message('Loaded {files}', { files: done }));
    const still = this.files.matrix && refused.length ? message('{refused} (still showing {file})', { refused, file: this.files.matrix.name }) : refused;
    showProblem($('byo-file'), refused.length ? still : '');
    $('byo-view').dataset.state = refused.length ? 'error' : 'ok';
  }

  // A control changed: the worker reshapes the matrix it holds.
  async update() {
    if (!this.files.matrix) return;
    $('byo-view').dataset.state = 'busy';
    const reply = await this.requests.ask('Redrawing', { type: 'view', settings: this.settings() });
    if (!reply) return;
    $('byo-view').dataset.state = reply.type === 'result' ? 'ok' : 'error';
    if (reply.type === 'result') {
      for (const id of CONTROLS) showProblem($(id), '');
      if (reply.result.view) await this.show(reply.result.view);
      return;
    }
    // refused (no such layer, nothing left to show): said next to the control; the last good matrix stays
    showProblem($(reply.field ? `byo-${reply.field}` : 'byo-method'), reply.type === 'cancelled' ? 'cancelled' : saidBy(reply));
  }

  // Stops the worker; a fresh one is given the last good files again.
  async cancel() {
    this.client.cancel();
    const { matrix, gold } = this.files;
    for (const file of [matrix, gold].filter(Boolean)) await this.client.request({ type: 'file', file, settings: this.settings() });
  }

  async show(view) {
    for (const [what, count] of [['layer', view.layers], ['head', view.heads]]) {
      const input = $(`byo-${what}`);
      input.max = String(count - 1);
      showProblem(input, view[what].said);
      if (view[what].said) input.value = String(view[what].value);
    }
    this.view = view;
    $('byo-pharaoh').textContent = view.pharaoh;
    for (const id of ['byo-export-svg', 'byo-export-png']) $(id).disabled = false;
    const score = $('byo-score');
    if (view.score) {
      const { aer, precision, recall } = view.score, gold = view.goldName;
      const scored = message('AER {aer} · precision {precision} · recall {recall} against {gold}', { aer: aer.toFixed(3), precision: precision.toFixed(3), recall: recall.toFixed(3), gold });
      showSaid(score, view.goldNote ? message('{score} · ⚠ {gold}: {note}', { score: scored, gold, note: view.goldNote }) : scored);
      score.dataset.goldShape = view.goldNote ? 'differs' : 'fits';
      score.dataset.aer = String(view.score.aer);
    } else {
      showSaid(score, '');
      delete score.dataset.aer;
    }
    showProblem(score, view.goldProblem ? message('{gold}: {problem}; not scored', { gold: view.goldName, problem: view.goldProblem }) : '');
    await this.redraw();
  }

  redraw() {
    const view = this.view;
    if (!view) return null;
    const name = this.files.matrix?.name ?? 'the dropped matrix';
    return this.heatmap.draw({
      weights: view.weights, rows: view.rows, cols: view.cols, rowLabels: view.rowLabels, colLabels: view.colLabels,
      links: view.links, gold: view.gold, colormap: $('colormap').value, title: `${name}, ${$('byo-method').value} links`,
      hideLinks: !$('show-links').checked,
    });
  }
}
