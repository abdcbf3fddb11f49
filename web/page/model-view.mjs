// The model view: the alignment view's two sentences through a chosen model, every attention map
// at once: one small map per layer (rows of the grid) and head (columns) of the encoder–decoder
// attention or of the encoder's or decoder's self-attention; or the mean over heads per layer,
// the mean over everything, or attention rollout (Abnar & Zuidema 2020) of self-attention. A click
// (or Enter) on a map shows it large, with its lines. Requests go to the model worker; the
// newest settings win while one runs; while the section is off screen nothing is asked. The models
// listed are the chosen language pair's (files named en-XX-… and XX-en-…); a pair with none says so.
import { showDrawnBy } from './align.mjs';
import { Requests, showProblem } from './controls.mjs';
import { colourInto, colourTable } from './colormap.mjs';
import { fileOfModel, forwardModelName, reverseModelName } from './methods.mjs';
import { meanOverHeads, rollout, slice } from './maps.mjs';
import { restMessage } from './matrices.mjs';
import { Heatmap, LineView } from './views.mjs';
import { hideTip, showTip } from './tooltip.mjs';
import { HeadView } from './head-view.mjs';
import { englishOf, onLanguage, say, t } from './i18n.mjs';
import { english, message, saidBy } from './messages.mjs';

/** @type {(id: string) => any} index.html's element of that id (a control, a figure, a section) */
const $ = (id) => document.getElementById(id);
const MAP_PIXELS = 132;  // the longest side of one small map, in CSS pixels

const KIND_LABELS = { cross: 'encoder–decoder attention', encoder: 'encoder self-attention', decoder: 'decoder self-attention' };

// Offers only what the model can answer: an RNN (a file stem without "transformer", or an answer
// whose info says 'rnn') has no self-attention, so no encoder or decoder maps and no rollout;
// those options are disabled with the reason in their text (in the interface's language: fitted
// again when it changes), and a choice of one falls back.
let fittedToRnn = false;
function fitControls(rnn) {
  fittedToRnn = rnn;
  const fit = (select, values, reason, fallback) => {
    for (const option of select.options) {
      if (!values.includes(option.value)) continue;
      option.dataset.label ??= englishOf(option.textContent);  // its English, whichever language shows
      option.disabled = rnn;
      option.textContent = rnn ? t('{label} — {reason}', { label: t(option.dataset.label), reason: t(reason) }) : t(option.dataset.label);
    }
    if (select.selectedOptions[0]?.disabled) select.value = fallback;
  };
  fit($('attention-kind'), ['encoder', 'decoder'], 'the RNN has no self-attention', 'cross');
  fit($('model-aggregate'), ['rollout'], 'the RNN has no self-attention to roll out', 'heads');
}

export class ModelView {
  constructor(client, { models, directions = [], facts = {} }) {
    this.client = client;
    this.facts = facts;    // the model index's facts about each shipped file (the line under the large map)
    this.models = models;  // the shipped translation models' file stems
    this.directions = new Set(directions);  // those that are directions of the multilingual file
    this.pair = null;
    this.result = null;    // the worker's answer: maps, words, the model's info
    this.maps = [];        // what the grid shows: [{layer, head, label, data, rows, cols}]
    this.requests = new Requests($('model-busy'), (settings) => this.client.request({ type: 'attentions', ...settings }),
      { onCancel: () => client.cancel() });
    this.heatmap = new Heatmap($('head-view'), { label: 'the chosen attention map, large', onSpot: (spot) => this.lines.setSpot(spot) });
    this.lines = new LineView($('head-lines'), { onSpot: (spot) => this.heatmap.setSpot(spot) });
    this.heads = new HeadView($('all-heads'), $('heads-legend'));
  }

  start() {
    // only while the section is on screen: typing in the alignment view does not pay for maps no one sees
    this.visible = false;
    this.stale = true;
    new IntersectionObserver(([entry]) => {
      this.visible = entry.isIntersecting;
      if (this.visible && this.stale) this.update();
    }).observe($('model-section'));
    let timer = 0;
    const soon = () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.update(), 15);
    };
    for (const id of ['source', 'target']) $(id).addEventListener('input', soon);
    $('model').addEventListener('input', () => {
      fitControls(!/transformer/.test($('model').value));
      this.update();
    });
    // the maps in hand serve another kind or aggregate, unless rollout's pieces are needed (or no longer)
    const redraw = () => (this.result && this.result.pieces === this.settings().pieces ? this.draw() : this.update());
    for (const id of ['attention-kind', 'model-aggregate']) $(id).addEventListener('input', redraw);
    $('colormap').addEventListener('input', () => this.draw());
    $('model-view').addEventListener('pointermove', (event) => this.point(event));
    $('heads-layer').addEventListener('input', () => this.drawHeads());
    // the lines under the grid, and the head view's swatches; for a pair without a model, why
    onLanguage(() => {
      fitControls(fittedToRnn);
      return this.pair && !$('model').value ? this.showNone() : this.draw();
    });
    $('model-view').addEventListener('pointerleave', () => { $('model-cell').textContent = ''; hideTip(); });
    $('model-view').addEventListener('click', (event) => this.choose(event.target.closest('[data-layer]')));
    $('model-view').addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.choose(event.target.closest('[data-layer]'));
      }
    });
  }

  // Lists the pair's models; the model chosen stays when the pair has it. By default a Transformer
  // file of the pair's own (its heads are what this view is for), else the pair's forward model:
  // the multilingual file's direction where that is the pair's model (every shipped pair's), else
  // the pair's own file, which the alignment view has already fetched.
  setPair(pair) {
    this.pair = pair;
    const select = $('model'), chosen = select.value;
    const stems = this.models.filter((stem) => stem.startsWith(`${pair.name}-`) || stem.startsWith(`${pair.language}-en-`));
    select.replaceChildren(...stems.map((stem) => new Option(stem, stem)));
    const own = stems.find((stem) => /transformer/.test(stem) && stem.startsWith(pair.name) && !this.directions.has(stem));
    const forward = forwardModelName(pair);
    select.value = stems.includes(chosen) ? chosen : own ?? (stems.includes(forward) ? forward : stems[0] ?? '');
    select.disabled = stems.length === 0;
    $('model-section').dataset.pair = pair.name;
    fitControls(Boolean(select.value) && !/transformer/.test(select.value));
  }

  // Each model reads the sentences in its own direction: a reverse model (XX-en-…) gets the
  // other language's sentence as its source and English as its target, so its figure's axes swap.
  settings() {
    const aggregate = $('model-aggregate').value, model = $('model').value;
    const reverse = Boolean(this.pair) && model.startsWith(`${this.pair.language}-en-`);
    const english = $('source').value, other = $('target').value;
    return {
      source: reverse ? other : english, target: reverse ? english : other, model,
      pieces: aggregate === 'rollout',  // rollout needs each position's own row: pieces, special tokens included
    };
  }

  // A pair without an attention model (a catalogue may list one with its HMM alone): the view says
  // so in the interface's language.
  showNone() {
    $('model-status').textContent = t('No attention model is shipped for English–{language} yet (no attention model could be trained for it so far), so there are no layers or heads to show.', { language: t(this.pair.languageName) });
    $('model-section').dataset.state = 'none';
  }

  /** Asks for the maps of the current settings; resolves once they are drawn (or refused). */
  async update() {
    if (!$('model').value) {
      this.requests.refuse();
      this.clear();
      this.showNone();
      return;
    }
    $('model-section').dataset.state = 'ok';
    if (!this.visible) {
      this.stale = true;
      return;
    }
    this.stale = false;
    const settings = this.settings();
    const reply = await this.requests.ask('Attending', settings);
    if (!reply) return;
    showProblem($('model'), '');
    if (reply.type !== 'result') {
      this.clear();
      showProblem($('model'), reply.type === 'cancelled' ? 'Cancelled. Edit the sentences or choose a model to try again.' : saidBy(reply));
      return;
    }
    this.result = { ...reply.result, pieces: settings.pieces, model: settings.model };  // the model that drew it
    fitControls(reply.result.info?.architecture === 'rnn');
    $('model-view').dataset.answeredAt = String(performance.now());
    await this.draw();
  }

  clear() {
    this.result = null;
    this.maps = [];
    const grid = $('model-view');
    grid.replaceChildren();
    grid.dataset.layers = '0';
    grid.dataset.heads = '0';
    $('head-figure').hidden = true;
    $('heads-figure').hidden = true;
    this.heatmap.clear();
    this.lines.clear();
    this.heads.clear();
    $('model-status').textContent = '';
    $('model-rows').textContent = '';
    $('model-cell').textContent = '';
    $('model-links-from').textContent = '';
  }

  // The maps the settings ask for, from the worker's answer.
  chosenMaps() {
    const r = this.result;
    const kind = $('attention-kind').value, aggregate = $('model-aggregate').value;
    const map = r[kind];
    const [layers, heads, rows, cols] = map.shape;
    if (layers === 0) {
      const template = r.info.architecture === 'rnn' ? 'The RNN has no {kind}: choose encoder–decoder attention.' : 'The model has no {kind}: choose encoder–decoder attention.';
      return { problem: message(template, { kind: message(KIND_LABELS[kind]) }) };
    }
    const rowLabels = kind === 'encoder' ? r.source : r.target;
    const colLabels = kind === 'cross' ? r.source : kind === 'encoder' ? r.source : decoderKeys(r);
    const base = { rows, cols, rowLabels, colLabels };
    if (aggregate === 'heads') {
      const maps = [];
      for (let l = 0; l < layers; l++) {
        for (let h = 0; h < heads; h++) maps.push({ ...base, layer: l, head: h, label: message('layer {layer}, head {head}', { layer: l, head: h }), data: slice(map, l, h) });
      }
      return { maps, layers, heads };
    }
    if (aggregate === 'layer-mean') {
      const maps = Array.from({ length: layers }, (_, l) => ({ ...base, layer: l, head: 'mean', label: message('layer {layer}, mean over heads', { layer: l }), data: meanOverHeads(map, l) }));
      return { maps, layers, heads: 1 };
    }
    if (aggregate === 'mean') {
      const data = new Float32Array(rows * cols);
      for (let l = 0; l < layers; l++) meanOverHeads(map, l).forEach((x, i) => { data[i] += x / layers; });
      return { maps: [{ ...base, layer: 'all', head: 'mean', label: 'mean over every layer and head', data }], layers: 1, heads: 1 };
    }
    if (kind === 'cross') return { problem: 'Rollout follows self-attention through the layers: choose encoder or decoder self-attention.' };
    const rolled = rollout(map);
    return {
      maps: rolled.map((data, l) => ({ ...base, layer: l, head: 'rollout', label: message('rollout through layer {layer}', { layer: l }), data })),
      layers, heads: 1,
    };
  }

  async draw() {
    const r = this.result;
    if (!r) return;
    const grid = $('model-view');
    const chosen = this.chosenMaps();
    grid.replaceChildren();
    $('model-cell').textContent = '';
    this.drawHeads();
    if (chosen.problem) {
      this.maps = [];
      grid.dataset.layers = '0';
      grid.dataset.heads = '0';
      $('model-status').textContent = say(chosen.problem);
      $('head-figure').hidden = true;
      return;
    }
    this.maps = chosen.maps;
    grid.dataset.layers = String(chosen.layers);
    grid.dataset.heads = String(chosen.heads);
    grid.style.gridTemplateColumns = `repeat(${chosen.heads}, minmax(0, max-content))`;
    const table = colourTable($('colormap').value);
    const aligning = alignmentHead(r.info);
    for (const [index, map] of this.maps.entries()) grid.append(smallMap(map, index, table, aligning));
    grid.dataset.drawnAt = String(performance.now());
    const { architecture, layers, heads } = r.info;
    const size = { rows: r.target.length, cols: r.source.length };
    $('model-status').textContent = t('{size}; {model}; maps in {ms} ms', {
      size: r.pieces ? t('{rows} × {cols} pieces', size) : t('{rows} × {cols} words', size),
      model: architecture === 'transformer' ? t('Transformer, {layers} layers × {heads} heads (counted from 0)', { layers, heads }) : t('RNN, one attention'),
      ms: r.milliseconds.toFixed(1),
    });
    $('model-rows').textContent = say(rowsNote(r, $('attention-kind').value));
    $('model-links-from').textContent = this.linksFrom(architecture, aligning);
    const shown = this.chosenIndex !== undefined && this.maps[this.chosenIndex] ? this.chosenIndex : null;
    if (shown === null) $('head-figure').hidden = true;
    else await this.show(shown);
  }

  // The head view: every head of the chosen layer of the attention shown, as lines between the
  // words (whatever the grid aggregates); the layer starts at the aligning one for cross-attention.
  drawHeads() {
    const r = this.result, kind = $('attention-kind').value;
    const map = r?.[kind];
    const [layers = 0, heads = 0, rows = 0, cols = 0] = map?.shape ?? [];
    $('heads-figure').hidden = !layers;
    if (!layers) {
      this.heads.clear();
      return;
    }
    const select = $('heads-layer');
    if (select.options.length !== layers) {
      select.replaceChildren(...Array.from({ length: layers }, (_, l) => new Option(String(l), String(l))));
      select.value = String(Math.min(kind === 'cross' ? alignmentHead(r.info).layer : 0, layers - 1));
    }
    const layer = Number(select.value);
    const rowLabels = kind === 'encoder' ? r.source : r.target;
    const colLabels = kind === 'decoder' ? decoderKeys(r) : r.source;
    const maps = Array.from({ length: heads }, (_, head) => ({ head, data: slice(map, layer, head) }));
    this.heads.draw({ maps, rows, cols, rowLabels, colLabels, layer });
  }

  // Whether the alignment view's links come from the model shown: the pair's forward model (its
  // aligning head, or the RNN's one attention), its other direction (averaged with it by the
  // methods that read both), or another model, which the alignment view does not use.
  linksFrom(architecture, aligning) {
    const stem = this.result.model, forward = forwardModelName(this.pair), reverse = reverseModelName(this.pair);
    if (stem === forward) {
      return architecture === 'transformer'
        ? t('The links of the alignment view come from layer {layer}, head {head} of the encoder–decoder attention (the head trained to align), outlined; layers and heads are counted from 0.', aligning)
        : t('The links of the alignment view come from this attention, the RNN\'s only one.');
    }
    if (stem === reverse) {
      return t('This is the other direction of the alignment view\'s model ({forward}): the methods that read both directions, the hybrid among them, average its attention with {forward}\'s.', { forward });
    }
    return reverse ? t('The links of the alignment view do not come from this model: they come from {forward} (with {reverse} for the methods that read both directions).', { forward, reverse })
      : t('The links of the alignment view do not come from this model: they come from {forward}.', { forward });
  }

  // The words and weight under the pointer on a small map, in the line under the grid (the maps
  // are too small for labels of their own).
  point(event) {
    const canvas = event.target.closest?.('canvas');
    const map = canvas && this.maps[Number(canvas.parentElement.dataset.index)];
    if (!map) return;
    const box = canvas.getBoundingClientRect();
    const s = Math.floor(((event.clientX - box.left) / box.width) * map.cols), t = Math.floor(((event.clientY - box.top) / box.height) * map.rows);
    if (s < 0 || t < 0 || s >= map.cols || t >= map.rows) return;
    const text = `${say(map.label)}: ${map.rowLabels[t]} ← ${map.colLabels[s]} ${map.data[t * map.cols + s].toFixed(3)}`;
    $('model-cell').textContent = text;
    showTip(event, text);
  }

  choose(cell) {
    if (!cell) return;
    this.chosenIndex = Number(cell.dataset.index);
    for (const other of $('model-view').children) other.setAttribute('aria-pressed', String(other === cell));
    return this.show(this.chosenIndex);
  }

  // One map large, with its lines.
  async show(index) {
    const map = this.maps[index];
    $('head-figure').hidden = false;
    const kind = $('attention-kind').value;
    const which = message('{kind}, {map}', { kind: message(KIND_LABELS[kind]), map: map.label });
    $('head-caption').textContent = say(which);
    const rest = this.result.pieces ? '' : restMessage(map.data, map.rows, map.cols, kind === 'decoder' ? 'the decoder’s start token <s>' : 'the end token </s>');
    showDrawnBy($('head-model'), this.facts, fileOfModel(this.pair, this.result.model), [which, rowsNote(this.result, kind), rest]);
    const figure = {
      weights: map.data, rows: map.rows, cols: map.cols, rowLabels: map.rowLabels, colLabels: map.colLabels, links: [],
      colormap: $('colormap').value, title: `${this.result.model}: ${english(map.label)}`,
    };
    this.lines.draw({ ...figure, topK: 3 });
    await this.heatmap.draw(figure);
  }
}

// Which step a target row is, where a Transformer's aligning head is read shifted (alignment_shift
// 1): over words the worker reads each word's rows there (every head's, cross and decoder self-
// attention alike); over pieces the rows are the model's own, row t the step that predicts piece t.
function rowsNote(r, kind) {
  if (!r.info.alignmentShift || kind === 'encoder') return '';
  return r.pieces
    ? 'raw rows: row t is the step that predicts piece t; the head the model aligns with holds piece t at row t + 1 (its alignment_shift 1)'
    : 'a target word’s row is the step where the word is the decoder’s input, where the head the model aligns with holds it (its alignment_shift 1)';
}

// The decoder's keys are its inputs: <s> then the target pieces (at word level, the target words).
const decoderKeys = (r) => (r.pieces ? ['<s>', ...r.target.slice(0, -1)] : r.target);

const alignmentHead = (info) => ({ layer: info.alignmentLayer ?? 0, head: info.alignmentHead ?? 0 });

// One small map: a canvas of one pixel per weight, scaled up without smoothing, in a button.
function smallMap(map, index, table, aligning) {
  const cell = document.createElement('button');
  cell.type = 'button';
  cell.className = 'map';
  cell.dataset.index = String(index);
  cell.dataset.layer = String(map.layer);
  cell.dataset.head = String(map.head);
  if (map.layer === aligning.layer && map.head === aligning.head && $('attention-kind').value === 'cross') cell.dataset.aligns = 'true';
  cell.title = say(map.label);
  cell.setAttribute('aria-label', say(map.label));
  cell.setAttribute('aria-pressed', 'false');
  const canvas = document.createElement('canvas');
  canvas.width = map.cols;
  canvas.height = map.rows;
  const scale = Math.max(1, Math.floor(MAP_PIXELS / Math.max(map.rows, map.cols)));
  canvas.style.width = `${map.cols * scale}px`;  // at most; a narrow screen shrinks it (style.css), keeping its shape
  canvas.style.aspectRatio = `${map.cols} / ${map.rows}`;
  const image = new ImageData(map.cols, map.rows);
  colourInto(new Uint32Array(image.data.buffer), map.data, table);  // weights past 1 (summed pieces' rounding) clamp
  canvas.getContext('2d').putImageData(image, 0, 0);
  const label = document.createElement('span');
  label.textContent = say(map.label);
  cell.append(canvas, label);
  return cell;
}
