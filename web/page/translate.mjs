// The translation view: the model translates in the worker; a slider steps through the output,
// showing the attention rows of the words produced so far (later rows stay empty). A busy
// indicator with Cancel shows while it works; an error (an empty sentence, a beam out of range)
// shows next to its control and clears the translation it no longer matches. A model with several
// layers or heads (a Transformer) shows the cross-attention of the chosen layer and head, or the
// mean over the layer's heads; by default the head the model aligns with (layers and heads counted
// from 0, as everywhere on the page). A word's row is read where the model's metadata says its
// aligning head holds the word (a Transformer of alignment_shift 1: the step where the word is the
// decoder's input), and the line under the figure says so. The models offered are the chosen
// language pair's, both directions (English → language and language → English, as `attn translate
// --pair` does); a pair with no translation model says so instead of translating (never with
// another pair's model).
import { showDrawnBy, showFamiliarity } from './align.mjs';
import { Requests, readNumber, showProblem } from './controls.mjs';
import { lengthMessage } from './familiarity.mjs';
import { meanOverHeads, slice } from './maps.mjs';
import { fileOfModel, forwardModelName } from './methods.mjs';
import { restMessage } from './matrices.mjs';
import { Heatmap } from './views.mjs';
import { onLanguage, t } from './i18n.mjs';
import { english, message } from './messages.mjs';

/** @type {(id: string) => any} index.html's element of that id (a control, a figure, a section) */
const $ = (id) => document.getElementById(id);

export class TranslateView {
  constructor(client, { models = [], facts = {} } = {}, applying = () => false) {
    this.applying = applying;  // whether a link (the URL hash) is setting the controls
    this.client = client;  // the model worker's WorkerClient (worker-client.mjs)
    this.models = models;  // every shipped translation model's stem: setPair offers the pair's, both directions
    this.facts = facts;    // the model index's facts about each shipped file (the line under the figure)
    this.result = null;
    this.pair = null;
    this.wantedStep = '';
    this.heatmap = new Heatmap($('translate-heatmap'), { label: 'attention of the translation so far' });
    this.requests = new Requests($('translate-busy'), (request) => client.request(request), { onCancel: () => client.cancel() });
  }

  start() {
    $('translate-model').addEventListener('input', () => {
      this.showDirection({ keepText: this.applying() });
      this.translate();
    });
    for (const id of ['translate-layer', 'translate-head']) $(id).addEventListener('input', () => this.draw());
    onLanguage(() => {  // the lines this view writes, in the new language
      if (!this.pair) return;
      this.nameLines();
      if (this.result) this.draw();
    });
    $('translate').addEventListener('click', () => this.translate());
    $('translate-source').addEventListener('keydown', (event) => { if (event.key === 'Enter') this.translate(); });
    $('step').addEventListener('input', () => this.draw());
    $('step-back').addEventListener('click', () => this.move(-1));
    $('step-forward').addEventListener('click', () => this.move(1));
    $('colormap').addEventListener('input', () => this.draw());
  }

  // The pair whose models translate (English -> language first, then language -> English), starting
  // with the pair's forward model (the one the alignment view has loaded already: another model is
  // fetched only when chosen, so the page's start does not wait for it); one without a model says
  // so, and the controls wait for a pair that has one.
  setPair(pair) {
    this.pair = pair;
    const stems = pair.files.forward ? [
      ...this.models.filter((stem) => stem.startsWith(`${pair.name}-`)),
      ...this.models.filter((stem) => stem.startsWith(`${pair.language}-en-`)),
    ] : [];
    const select = $('translate-model'), chosen = select.value;
    select.replaceChildren(...stems.map((stem) => new Option(stem, stem)));
    const forward = forwardModelName(pair);
    select.value = stems.includes(chosen) ? chosen : stems.includes(forward) ? forward : stems[0] ?? '';
    const none = !pair.files.forward;
    for (const id of ['translate', 'beam', 'translate-source', 'translate-model', 'step', 'step-back', 'step-forward']) $(id).disabled = none;
    $('translate-none').hidden = !none;
    this.direction = null;
    this.showDirection();
    $('translate-view').dataset.pair = pair.name;
    if (none) {
      this.requests.refuse();
      this.clear();
      $('translate-view').dataset.state = 'none';
    }
  }

  // The lines that name the pair's languages: the input's language, and why a pair cannot translate.
  nameLines() {
    const pair = this.pair, reverse = $('translate-model').value.startsWith(`${pair.language}-en-`);
    $('translate-source-language').textContent = t(reverse ? pair.languageName : 'English');
    $('translate-none').textContent = pair.files.forward ? ''
      : t('No translation model is shipped for English–{language} yet (no attention model could be trained for it so far): the alignment view uses its HMM aligner.', { language: t(pair.languageName) });
  }

  // The chosen model's direction: the input's language and the translation's. Turning to the other
  // direction puts the last translation in the box (a round trip), or else the alignment view's
  // sentence in that language; a link's own text stays.
  showDirection({ keepText = true } = {}) {
    const pair = this.pair, stem = $('translate-model').value;
    const reverse = Boolean(stem) && stem.startsWith(`${pair.language}-en-`);
    const direction = reverse ? `${pair.language}-en` : pair.name;
    this.nameLines();
    $('translate-source').lang = reverse ? pair.language : 'en';
    $('translation').lang = reverse ? 'en' : pair.language;
    $('translate-view').dataset.direction = direction;
    const turned = this.direction !== null && this.direction !== direction;
    this.direction = direction;
    if (!turned || keepText) return;
    const last = this.result && this.result.direction !== direction ? this.result.text : '';
    $('translate-source').value = last || (reverse ? $('target').value : $('source').value);
    $('translate-source').dispatchEvent(new Event('change', { bubbles: true }));  // the URL hash keeps it
  }

  move(delta) {
    const step = $('step');
    step.value = String(Math.min(Number(step.max), Math.max(0, Number(step.value) + delta)));
    this.draw();
    step.dispatchEvent(new Event('change', { bubbles: true }));  // the URL hash keeps the step
  }

  // The step as the URL hash keeps it: '' for the whole translation.
  get step() {
    const slider = $('step');
    return slider.value === slider.max ? '' : slider.value;
  }

  set step(text) {
    this.wantedStep = text;
    if (this.result) this.showStep();
  }

  showStep() {
    const slider = $('step'), wanted = Number(this.wantedStep);
    slider.value = this.wantedStep && Number.isInteger(wanted) ? String(Math.max(0, Math.min(wanted, Number(slider.max)))) : slider.max;
    this.wantedStep = '';
    return this.draw();
  }

  /** Translates the sentence and shows the step asked for (the whole translation unless one was). */
  async translate() {
    if (!this.pair.files.forward) return;
    const beam = readNumber($('beam'));
    if (beam === null) {
      this.requests.refuse();
      this.clear();
      return;
    }
    this.showDirection();
    $('translate-view').dataset.state = 'busy';
    const model = $('translate-model').value || undefined;
    const reply = await this.requests.ask('Translating', { type: 'translate', pair: this.pair.name, text: $('translate-source').value, beam, model });
    if (!reply) return;
    if (reply.type !== 'result') {
      showProblem($('translate-source'), reply.type === 'cancelled' ? 'Cancelled.' : reply.message);
      this.clear();
      return;
    }
    showProblem($('translate-source'), '');
    this.result = { ...reply.result, direction: $('translate-view').dataset.direction };
    this.beamShown = beam;
    this.resultModel = model ?? forwardModelName(this.pair);  // what drew it, whatever the select says later
    $('translate-view').dataset.state = 'ok';
    $('translation').textContent = this.result.text;
    showFamiliarity($('translate-familiarity'), this.result.familiarity);
    $('step').max = String(this.result.targetWords.length);
    this.offerHeads();
    await this.showStep();
  }

  // The layer and head choices for this result's model; a choice still offered is kept.
  offerHeads() {
    const { cross, info } = this.result;
    const [layers, heads] = cross.shape;
    $('translate-heads').hidden = layers * heads <= 1;
    const fill = (select, count, extra, fallback) => {
      const kept = select.value;
      select.replaceChildren(...Array.from({ length: count }, (_, i) => new Option(String(i), String(i))), ...extra);
      select.value = [...select.options].some((option) => option.value === kept) && this.modelShown === $('translate-model').value ? kept : String(fallback);
    };
    fill($('translate-layer'), layers, [], info.alignmentLayer ?? 0);
    fill($('translate-head'), heads, [new Option('mean of the heads', 'mean')], info.alignmentHead ?? 0);
    this.modelShown = $('translate-model').value;
  }

  // The word-level cross-attention [target][source] of the chosen layer and head.
  chosenMap() {
    const { cross, info } = this.result;
    const layer = Number($('translate-layer').value) || 0, head = $('translate-head').value;
    const [layers, heads] = cross.shape;
    const aligning = layer === (info.alignmentLayer ?? 0) && head === String(info.alignmentHead ?? 0);
    const map = head === 'mean' ? meanOverHeads(cross, layer) : new Float32Array(slice(cross, layer, Number(head) || 0));
    const said = layers * heads <= 1 ? '' : head === 'mean' ? message('layer {layer}, mean of {heads} heads', { layer, heads }) : message('layer {layer}, head {head}', { layer, head });
    const what = english(said);
    $('translate-head-note').textContent = aligning && layers * heads > 1 ? t('the head the model aligns with') : '';
    $('translate-heatmap').dataset.layer = String(layer);
    $('translate-heatmap').dataset.head = head;
    return { map, what, said, aligning: aligning && layers * heads > 1 };
  }

  clear() {
    this.result = null;
    this.heatmap.clear();
    $('translation').textContent = '';
    showFamiliarity($('translate-familiarity'), null);
    $('step-label').textContent = '';
    $('step').max = '0';
    $('translate-heads').hidden = true;
    $('translate-model-line').replaceChildren();
    $('translate-view').dataset.state = 'error';
  }

  draw() {
    const r = this.result;
    if (!r) return null;
    const shown = Number($('step').value);
    const rows = r.targetWords.length, cols = r.sourceWords.length;
    const { map: weights, what, said, aligning } = this.chosenMap();
    weights.fill(0, shown * cols);  // words not produced yet have no attention to show
    const attention = !what ? 'its encoder–decoder attention while translating with beam {beam}'
      : aligning ? 'its encoder–decoder attention ({what}, the head it aligns with) while translating with beam {beam}'
        : 'its encoder–decoder attention ({what}) while translating with beam {beam}';
    const notes = [message(attention, { what: said, beam: this.beamShown })];
    if (r.info.alignmentShift) {
      notes.push('a word’s row is the step where the word is the decoder’s input (the step after the one that predicts it): there the head the model aligns with holds the word (its alignment_shift 1)');
    }
    const language = r.direction === this.pair.name ? 'English' : this.pair.languageName;
    notes.push(lengthMessage(cols, rows));
    notes.push(restMessage(weights.subarray(0, shown * cols), shown, cols, message('the end of the {language} sentence (its token </s>)', { language: message(language) })));
    showDrawnBy($('translate-model-line'), this.facts, fileOfModel(this.pair, this.resultModel), notes);
    const labels = r.targetWords.map((word, t) => (t < shown ? word : '…'));
    $('translate-heatmap').dataset.step = String(shown);
    $('step-label').textContent = shown ? t('{shown} of {rows}: “{word}”', { shown, rows, word: r.targetWords[shown - 1] }) : t('{shown} of {rows}', { shown: 0, rows });
    this.heatmap.markRow(shown - 1);  // the word just written, outlined; the outline glides to the next step's
    return this.heatmap.draw({
      weights, rows, cols, rowLabels: labels, colLabels: r.sourceWords, links: [], colormap: $('colormap').value,
      title: `Translation of “${$('translate-source').value}” after ${shown} of ${rows} words${what ? ` (${what})` : ''}`,
    });
  }
}
