// The alignment view: two sentences in, attention (or, for a language pair without an attention
// model, the HMM aligner's posteriors) out. Requests go to the model worker (only the
// latest settings are sent once the one running is answered), results are drawn as a heatmap and
// a line view with the chosen method's links, the Pharaoh text, and linked highlighting. While a
// request runs (or waits for a model to download) a busy indicator shows, with Cancel; an error
// shows next to its control and clears the figures, links and exports it no longer matches.
import { Requests, copyText, readNumber, showProblem } from './controls.mjs';
import { exportJson, exportLinks, exportPng, exportSvg } from './export.mjs';
import { lengthMessage } from './familiarity.mjs';
import { restMessage } from './matrices.mjs';
import { listMethods, methodLabel, methodRule, relabelMethods, statisticalKindOf } from './methods.mjs';
import { Heatmap, LineView } from './views.mjs';
import { onLanguage, say, showSaid, t } from './i18n.mjs';
import { english, message } from './messages.mjs';
import { headingAnchor } from './text.mjs';

/** @type {(id: string) => any} index.html's element of that id (a control, a figure, a section) */
const $ = (id) => document.getElementById(id);
const EXPORTS = ['export-svg', 'export-png', 'export-json', 'export-links', 'copy'];
const megabytes = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;  // 2^20 bytes

// An alignment result as the drawers take it: rows are target words, columns source words.
const figureOf = (r, colormap, title) => ({
  weights: r.weights, rows: r.targetWords.length, cols: r.sourceWords.length,
  rowLabels: r.targetWords, colLabels: r.sourceWords, links: r.links, colormap, title, hideLinks: !$('show-links').checked,
});

// The control an error from the worker is about: a sentence it names, else the method.
const controlFor = (message) => (/^source\b/i.test(message) ? 'source' : /^target\b/i.test(message) ? 'target' : 'method');

const millions = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} M` : `${Math.round(n / 1e3)} k`);

// "236 CPU and 18 GPU minutes on …": how long a file trained, where, and on what (a message).
function trainingTime(fact) {
  const cpu = fact.minutes && Math.round(fact.minutes), gpu = fact.gpuMinutes && Math.round(fact.gpuMinutes);
  if (!fact.minutes && !fact.gpuMinutes) return '';
  const time = message(fact.minutes && fact.gpuMinutes ? '{cpu} CPU and {gpu} GPU minutes' : fact.minutes ? '{cpu} CPU minutes' : '{gpu} GPU minutes', { cpu, gpu });
  return fact.data ? message('{time} on {data}', { time, data: message(fact.data) }) : time;
}

// A shipped file in a few words, from the model index's facts (tools/build/make_model_index.mjs),
// said by `speak` (English, or the interface's language: the index's own phrases where the string
// tables have them, names and numbers as they are).
function describe(facts, file, speak = english) {
  const fact = facts[file];
  if (!fact) return file;
  const details = [fact.summary && message(fact.summary), fact.parameters && message('{count} parameters', { count: millions(fact.parameters) }),
    trainingTime(fact)].filter(Boolean).map(speak);
  return speak(message('the {kind} ({details})', { kind: message(fact.kind), details: details.join(speak(', ')) }));
}

/** A link to the model card's section on `file` (its facts' section, named in the link's title),
 * else to the card. */
export function cardLink(facts, file) {
  const section = facts[file]?.section;
  return Object.assign(document.createElement('a'), {
    href: `dist/models/MODEL_CARD.html${section ? `#${headingAnchor(section)}` : ''}`,
    textContent: t('model card'), title: section ? `model card: ${section}` : 'model card',
  });
}

/** The line under a figure that `file` drew, in `element`, in the interface's language: the model
 * in a few words, then `what` (what the figure shows of it: a message, or a list of them, each
 * after a ' · '), and a link to the model card's section on it. */
export function showDrawnBy(element, facts, file, what) {
  const notes = [what].flat().filter(Boolean).map((note) => ` · ${say(note)}`).join('');
  element.replaceChildren(t('Drawn by {model}{notes}. ', { model: describe(facts, file, say), notes }), cardLink(facts, file));
}

/** The worker's familiarity of a result (web/page/familiarity.mjs: {level, text}) in `element`, which
 * is hidden where there is none (a method without the pair's forward model, or not measured). */
export function showFamiliarity(element, familiarity) {
  element.hidden = !familiarity;
  showSaid(element, familiarity?.said ?? familiarity?.text ?? '');
  element.dataset.level = familiarity?.level ?? '';
}

/** The files `method` reads for `pair`: {forward?, reverse?, statistical?}. */
export function filesOf(rules, pair, method) {
  const rule = methodRule(rules, method);
  const files = {};
  if (rule.needsModel) files.forward = pair.files.forward;
  if (rule.needsReverse) files.reverse = pair.files.reverse;
  if (rule.needsStatistical || !rule.needsModel) files.statistical = pair.files[statisticalKindOf(rules, rule)];
  return Object.fromEntries(Object.entries(files).filter(([, file]) => file));
}

/** The line under an alignment figure: what drew it (the files the method reads), the method and
 * its dev-set AER for the pair, for a method that mixes in a statistical aligner, that the cells
 * are attention while the links come from the mix, and where the pair attaches English articles,
 * that it does; said by `speak` (English by default). */
export function modelLine(rules, facts, pair, method, speak = english) {
  const rule = methodRule(rules, method);
  const effective = method === 'attention' ? pair.attentionMethod : method;
  const { forward, reverse, statistical } = filesOf(rules, pair, method);
  const model = (file) => describe(facts, file, speak);
  const attention = !forward ? '' : reverse && reverse === forward ? message('{model}, both directions', { model: model(forward) })
    : reverse ? message('{forward} and {reverse}', { forward: model(forward), reverse: model(reverse) }) : model(forward);
  const drawer = forward && statistical ? message('{attention} with {aligner}', { attention, aligner: model(statistical) })
    : attention || model(statistical);
  const aer = pair.devAer?.[method];
  const how = method === 'attention' ? message('method attention ({effective}, the pair’s best attention-only)', { effective }) : message('method {method}', { method });
  const score = aer === undefined ? message('no dev-set AER measured') : message('dev AER {aer} on {pair}’s gold dev set', { aer: aer.toFixed(3), pair: pair.name });
  const mixed = rule.needsModel && rule.needsStatistical ? message('; cells show attention, links come from the mix') : '';
  // the pairs whose gold links join an English article with the next word's translation (models/pairs.json)
  const articles = pair.attachArticles ? message('; an English article left unlinked takes the next word’s links') : '';
  // the pairs whose hybrid also links words that are each other's best (models/pairs.json's mutualBest)
  const mutual = pair.mutualBest && method === 'hybrid' ? message('; words that are each other’s best are linked too') : '';
  return speak(message('Drawn by {drawer} · {how} · {score}{mixed}{articles}{mutual}.', { drawer, how, score, mixed, articles, mutual }));
}

// A model's kind in plain words: the index's kind less its parenthesis ('multilingual Transformer').
const kindOf = (facts, file) => (facts[file]?.kind ?? 'model').replace(/\s*\(.*\)\s*$/, '');

/** The line under an alignment figure in plain words: what the colours are, where the links come
 * from, and what the method's dev-set AER says. modelLine's details follow it a click away. */
export function plainLine(rules, facts, pair, method) {
  const rule = methodRule(rules, method);
  const { forward, statistical } = filesOf(rules, pair, method);
  const language = t(pair.languageName);
  const colours = forward
    ? t('Colours: where the {kind} looked while reading each {language} word', { kind: t(kindOf(facts, forward)), language })
    : t('Colours: how likely the {kind} finds each English word as each {language} word\'s counterpart', { kind: t(kindOf(facts, statistical)), language });
  const links = rule.needsModel && rule.needsStatistical ? t('outlined: links that mix this attention with a statistical aligner')
    : t('outlined: the {method} method\'s links', { method });
  const aer = pair.devAer?.[method];
  const score = aer === undefined ? '' : t(' AER {aer} against people\'s links (0 is perfect).', { aer: aer.toFixed(2) });
  return t('{colours}; {links}.{score}', { colours, links, score });
}

/** The line under a figure: the plain sentence, then the details (the technical line and the
 * model card's link) a click away, in `element`. */
export function showModelLine(element, plain, technical, link) {
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = t('details');
  details.append(summary, `${technical} `, link);
  element.replaceChildren(`${plain} `, details);
}

// The file a method needs that `pair` does not ship (described), or '' when it has them all.
export function missingFor(rules, rule, pair) {
  const kind = rule.needsStatistical ? statisticalKindOf(rules, rule) : null;
  if (rule.needsModel && !pair.files.forward) return 'an attention model';
  if (rule.needsReverse && !pair.files.reverse) return `the ${pair.language}-en model`;
  if (kind && !pair.files[kind]) return kind === 'hmm' ? 'the HMM aligner' : 'IBM Model 2';
  return '';
}

export class AlignView {
  constructor(client, { alignment, facts = {} }) {
    this.client = client;    // the model worker's WorkerClient (worker-client.mjs)
    this.rules = alignment;  // the library's alignment rules (attn.alignment)
    this.facts = facts;      // the model index's facts about each shipped file
    this.pair = null;        // the language pair of the model index: {name, language, languageName, files, method, …}
    this.result = null;
    this.heatmap = new Heatmap($('heatmap'), {
      label: 'alignment heatmap: target words as rows, English words as columns', onSpot: (spot) => this.lines.setSpot(spot),
    });
    this.general = new Heatmap($('heatmap-general'), { label: 'attention heatmap of the general-attention model' });
    this.lines = new LineView($('lines'), { onSpot: (spot) => this.heatmap.setSpot(spot) });
    this.requests = new Requests($('align-busy'), (settings, newer) => this.send(settings, newer), { onCancel: () => client.cancel() });
    this.busy = this.requests.busy;  // also shows a model's download while a request waits for it
    this.waiting = false;
  }

  // Lists the library's methods for `pair` with their dev-set AER (those whose files it lacks are
  // disabled, saying why; `attn align --pair`'s default says so) and keeps the chosen method where
  // the pair can run it, else (and always when `reset`, as when the reader switches pairs) takes
  // the pair's default, its best measured method, what `attn align --pair` uses.
  setPair(pair, { reset = false } = {}) {
    this.pair = pair;
    const select = $('method'), chosen = select.value;
    listMethods(select, this.rules.methods, { method: pair.method }, pair.devAer);
    select.disabled = false;  // disabled in the page until the module's methods are listed
    for (const option of select.options) {
      const lacking = missingFor(this.rules, this.rules.methods.find((rule) => rule.name === option.value), pair);
      if (lacking) {
        option.disabled = true;
        Object.assign(option.dataset, { lacking, pair: pair.name });
        option.textContent = methodLabel(option);
      }
    }
    const keep = !reset && [...select.options].some((option) => option.value === chosen && !option.disabled);
    select.value = keep ? chosen : pair.method;
    const compare = $('compare');
    compare.disabled = !pair.files.general;
    compare.parentElement.title = pair.files.general ? '' : `no general-attention model is shipped for ${pair.name}`;
    this.alwaysShifted = false;  // known from the model's first answer
    this.fitShift();
    for (const hint of document.querySelectorAll('[data-pair-kind]')) {
      if (!(hint instanceof HTMLElement)) continue;
      hint.hidden = hint.dataset.pairKind !== (pair.files.forward ? 'attention' : 'statistical');
    }
    // a language's own hint: how Chinese typed without spaces is cut into words (the worker's segmenter)
    for (const hint of document.querySelectorAll('[data-pair-language]')) {
      if (hint instanceof HTMLElement) hint.hidden = hint.dataset.pairLanguage !== pair.language;
    }
    $('target').lang = pair.language;
  }

  // Sets the default threshold and listens to the controls.
  start() {
    $('threshold').value = String(this.rules.defaults.threshold);
    onLanguage(() => {  // the methods' descriptions, and the chosen one's whole text under the select
      relabelMethods($('method'));
      this.fitThreshold();
      this.fitShift();
    });
    // file names carry the pair and the method: attention-en-fr-hybrid.svg
    const shown = () => this.result?.preview?.method ?? $('method').value;  // the HMM's, while a model downloads
    const named = (extension) => `attention-${this.pair?.name ?? 'pair'}-${shown()}.${extension}`;
    $('export-svg').addEventListener('click', () => exportSvg(this.heatmap, named('svg')));
    $('export-png').addEventListener('click', () => exportPng(this.heatmap, named('png')));
    $('export-json').addEventListener('click', () => this.heatmap.figure && exportJson(this.heatmap.figure, named('json')));
    $('export-links').addEventListener('click', () => this.result && exportLinks(this.result.pharaoh, `links-${this.pair?.name ?? 'pair'}-${shown()}.txt`));
    $('copy').addEventListener('click', () => copyText($('pharaoh').textContent).then(
      () => { $('copy').textContent = t('Copied'); setTimeout(() => { $('copy').textContent = t('Copy'); }, 1200); },
      () => { $('align-status').textContent = t('The browser refused the clipboard; select the links and copy them.'); }));
    let timer = 0;
    const soon = () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.update(), 15);  // typing: one request per pause, however short
    };
    for (const id of ['source', 'target']) $(id).addEventListener('input', soon);
    for (const id of ['method', 'shift', 'threshold', 'compare']) $(id).addEventListener('input', () => this.update());
    for (const id of ['colormap', 'show-links']) $(id).addEventListener('input', () => this.draw());
    this.client.addEventListener('progress', ({ detail }) => this.downloading(detail));
    this.client.addEventListener('restart', () => this.busy.stop());
    this.setExports(false);
  }

  // A model download while a request waits for it: its progress in the busy indicator.
  downloading({ what, loaded, total }) {
    if (!this.waiting) return;
    if (total && loaded >= total) {
      this.busy.start('Aligning');
      this.busy.progress(0, 0);
    } else {
      this.busy.start(`Loading ${what}${total ? ` (${megabytes(total)})` : ''}`);
      this.busy.progress(loaded, total);
    }
  }

  // The threshold box is live only for a method that reads it (the rule's readsThreshold); it keeps
  // what was typed either way.
  fitThreshold() {
    const box = $('threshold'), rule = this.rules.methods.find((method) => method.name === $('method').value);
    // the chosen method in full: a narrow select cuts its option's text
    $('method-note').textContent = rule ? $('method').selectedOptions[0]?.textContent ?? '' : '';
    box.disabled = !rule?.readsThreshold;
    box.parentElement.title = box.disabled ? `${rule?.name ?? 'this method'} does not read a threshold` : '';
    if (box.disabled) showProblem(box, '');
  }

  // The shift box is live only where it changes the figure: a method that reads a model's
  // attention, of a model not always read shifted (a Transformer whose aligning head was trained on
  // the shifted rows, alignment_shift 1, is read there whatever the box says); it says why.
  fitShift() {
    const box = $('shift'), rule = this.rules.methods.find((method) => method.name === $('method').value);
    const reason = !this.pair?.files.forward ? message('no attention model is shipped for {pair}', { pair: this.pair?.name })
      : !rule?.needsModel ? message('{method} reads no attention', { method: rule?.name ?? 'this method' })
        : this.alwaysShifted ? message('this model is always read there: its aligning head was trained on those rows (alignment_shift 1)') : '';
    box.disabled = Boolean(reason);
    box.parentElement.title = reason ? say(reason) : '';
    showSaid($('shift-note'), reason ? message('Shift does nothing here: {reason}.', { reason }) : '');
  }

  // The settings, or null when one is refused (its message is then next to it).
  settings() {
    this.fitThreshold();
    this.fitShift();
    const box = $('threshold');
    const threshold = box.disabled ? this.rules.defaults.threshold : readNumber(box);
    if (threshold === null) return null;
    return {
      pair: this.pair.name, source: $('source').value, target: $('target').value, method: $('method').value,
      shift: $('shift').checked && !$('shift').disabled, threshold, compare: $('compare').checked && !$('compare').disabled,
    };
  }

  // Both requests of one update: the chosen method, and the general model's argmax to compare.
  async send({ compare, ...settings }, newer = () => false) {
    const [main, general] = await Promise.all([
      this.previewThenAlign(settings, newer),
      compare ? this.client.request({ type: 'align', ...settings, method: 'argmax', model: 'general' }) : null,
    ]);
    return { ...main, general };
  }

  // While the method's attention model downloads, the worker answers at once with the pair's HMM
  // (result.preview): drawn, named as such, until the method's own answer replaces it. Sentences
  // edited meanwhile do not wait for the download: their own preview is drawn at once.
  async previewThenAlign(settings, newer) {
    const first = await this.client.request({ type: 'align', ...settings, preview: true });
    if (first.type !== 'result' || !first.result.preview) return first;
    if (this.waiting) {
      this.result = first.result;
      this.generalResult = null;
      await this.draw();
    }
    const full = this.client.request({ type: 'align', ...settings });
    for (;;) {
      const reply = await Promise.race([full, new Promise((resolve) => { setTimeout(resolve, 100, null); })]);
      if (reply) return reply;
      if (newer()) return { type: 'superseded' };  // the worker finishes it; its answer is dropped
    }
  }

  /** Aligns with the current settings; resolves once the answer is drawn (or refused). */
  async update() {
    const settings = this.settings();
    if (!settings) {
      this.requests.refuse();
      this.clear();
      return;
    }
    this.waiting = true;
    $('align-view').dataset.state = 'busy';
    const reply = await this.requests.ask('Aligning', settings);
    if (!reply) return;
    this.waiting = false;
    for (const id of ['source', 'target', 'method', 'compare']) showProblem($(id), '');
    if (reply.type !== 'result') {
      const message = reply.type === 'cancelled' ? 'Cancelled. Edit the sentences or choose a method to align again.' : reply.message;
      showProblem($(reply.type === 'cancelled' ? 'source' : controlFor(message)), message);
      this.clear();
      return;
    }
    this.result = reply.result;
    if (reply.result.alignmentShift !== undefined) {
      this.alwaysShifted = reply.result.alignmentShift === 1;
      this.fitShift();
    }
    this.generalResult = reply.general?.type === 'result' ? reply.general.result : null;
    if (reply.general && reply.general.type !== 'result') showProblem($('compare'), reply.general.message ?? 'cancelled');
    $('heatmap').dataset.answeredAt = String(performance.now());
    $('align-view').dataset.state = 'ok';
    await this.draw();
  }

  // Nothing shown: no figure, no links, no exports that would describe an older pair.
  clear() {
    this.result = null;
    this.generalResult = null;
    this.heatmap.clear();
    this.general.clear();
    this.lines.clear();
    $('compare-figure').hidden = true;
    $('pharaoh').textContent = '';
    $('align-model').replaceChildren();
    showFamiliarity($('align-familiarity'), null);
    $('align-status').textContent = '';
    $('align-view').dataset.state = 'error';
    this.setExports(false);
  }

  setExports(on) {
    for (const id of EXPORTS) $(id).disabled = !on;
  }

  async draw() {
    const r = this.result;
    if (!r) return;
    const colormap = $('colormap').value;
    const preview = r.preview;  // the HMM's answer while the chosen method's model downloads
    const method = preview ? preview.method : $('method').value, pair = this.pair;
    const needsModel = Boolean(this.rules.methods.find((rule) => rule.name === method)?.needsModel);
    // the figure's title: in English on the page's figure, in the interface's language in an export
    const title = message(needsModel ? 'Attention of the {pair} model, {language} rows and English columns, {method} links'
      : 'Posteriors of the {aligner} aligner ({pair}), {language} rows and English columns, {method} links',
    { pair: pair.name, language: message(pair.languageName), method, aligner: method === 'ibm2' ? 'IBM Model 2' : 'HMM' });
    const figure = figureOf(r, colormap, english(title));
    const attention = !preview && needsModel;
    const long = attention ? lengthMessage(r.sourceWords.length, r.targetWords.length) : '';
    // the line in English for the exports, and in the interface's language under the figure
    const technical = (speak) => (preview ? speak(message('Shown while the {method} method\'s model downloads (its figure follows): ', { method: $('method').value })) : '')
      + modelLine(this.rules, this.facts, pair, method, speak) + (long ? speak(message(' {note}.', { note: long })) : '');
    figure.caption = technical(english);
    // what an exported picture says, in the interface's language at the time of the export
    figure.captionIn = () => technical(say);
    figure.titleIn = () => say(title);
    const rest = attention ? restMessage(r.weights, r.targetWords.length, r.sourceWords.length, 'the end of the English sentence (its token </s>)') : '';
    $('align-status').textContent = t('{rows} × {cols} words, aligned in {ms} ms', { rows: r.targetWords.length, cols: r.sourceWords.length, ms: r.milliseconds.toFixed(1) }) + (rest ? `${t('; ')}${say(rest)}` : '');
    const files = filesOf(this.rules, pair, method);
    figure.about = { pair: pair.name, method, models: Object.values(files), caption: figure.caption };
    const plain = (preview ? t('Shown while the {method} method\'s model downloads (its figure follows): ', { method: $('method').value }) : '')
      + plainLine(this.rules, this.facts, pair, method) + (long ? t(' {note}.', { note: say(long) }) : '');
    showModelLine($('align-model'), plain, technical(say), cardLink(this.facts, files.forward ?? files.statistical));
    showFamiliarity($('align-familiarity'), r.familiarity);
    $('pharaoh').textContent = r.pharaoh;
    this.setExports(true);
    this.lines.draw({ ...figure, topK: figure.cols > 40 ? 2 : 3 });
    $('compare-figure').hidden = !this.generalResult;
    const drawn = [this.heatmap.draw(figure)];
    if (this.generalResult) {
      drawn.push(this.general.draw(figureOf(this.generalResult, colormap, 'Attention of the general-attention model, argmax links')));
      showDrawnBy($('compare-model'), this.facts, pair.files.general, 'its attention, argmax links (not the alignment view\'s method)');
    } else {
      this.general.clear();
      $('compare-model').replaceChildren();
    }
    await Promise.all(drawn);
  }
}
