// The translation view: the model translates in the worker; a slider steps through the output,
// showing the attention rows of the words produced so far (later rows stay empty). A busy
// indicator with Cancel shows while it works; an error (an empty sentence, a beam out of range)
// shows next to its control and clears the translation it no longer matches. A language pair with
// no translation model says so instead of translating (never with another pair's model).
import { Requests, readNumber, showProblem } from './controls.mjs';
import { Heatmap } from './views.mjs';

const $ = (id) => document.getElementById(id);

export class TranslateView {
  constructor(client) {
    this.client = client;  // the model worker's WorkerClient (worker-client.mjs)
    this.result = null;
    this.pair = null;
    this.wantedStep = '';
    this.heatmap = new Heatmap($('translate-heatmap'), { label: 'attention of the translation so far' });
    this.requests = new Requests($('translate-busy'), (request) => client.request(request), { onCancel: () => client.cancel() });
  }

  start() {
    $('translate').addEventListener('click', () => this.translate());
    $('translate-source').addEventListener('keydown', (event) => { if (event.key === 'Enter') this.translate(); });
    $('step').addEventListener('input', () => this.draw());
    $('step-back').addEventListener('click', () => this.move(-1));
    $('step-forward').addEventListener('click', () => this.move(1));
    $('colormap').addEventListener('input', () => this.draw());
  }

  // The pair whose English -> language model translates; one without a model says so, and the
  // controls wait for a pair that has one.
  setPair(pair) {
    this.pair = pair;
    const none = !pair.files.forward;
    for (const id of ['translate', 'beam', 'translate-source', 'step', 'step-back', 'step-forward']) $(id).disabled = none;
    $('translate-none').hidden = !none;
    $('translate-none').textContent = none
      ? `No translation model is shipped for English–${pair.languageName} yet (no attention model could be trained for it so far): the alignment view above uses its HMM aligner.`
      : '';
    $('translation').lang = pair.language;
    $('translate-view').dataset.pair = pair.name;
    if (none) {
      this.requests.refuse();
      this.clear();
      $('translate-view').dataset.state = 'none';
    }
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
    $('translate-view').dataset.state = 'busy';
    const reply = await this.requests.ask('Translating', { type: 'translate', pair: this.pair.name, text: $('translate-source').value, beam });
    if (!reply) return;
    if (reply.type !== 'result') {
      showProblem($('translate-source'), reply.type === 'cancelled' ? 'Cancelled.' : reply.message);
      this.clear();
      return;
    }
    showProblem($('translate-source'), '');
    this.result = reply.result;
    $('translate-view').dataset.state = 'ok';
    $('translation').textContent = this.result.text;
    $('step').max = String(this.result.targetWords.length);
    await this.showStep();
  }

  clear() {
    this.result = null;
    this.heatmap.clear();
    $('translation').textContent = '';
    $('step-label').textContent = '';
    $('step').max = '0';
    $('translate-view').dataset.state = 'error';
  }

  draw() {
    const r = this.result;
    if (!r) return null;
    const shown = Number($('step').value);
    const rows = r.targetWords.length, cols = r.sourceWords.length;
    const weights = new Float32Array(r.weights);
    weights.fill(0, shown * cols);  // words not produced yet have no attention to show
    const labels = r.targetWords.map((word, t) => (t < shown ? word : '…'));
    $('translate-heatmap').dataset.step = String(shown);
    $('step-label').textContent = shown ? `${shown} of ${rows}: “${r.targetWords[shown - 1]}”` : `0 of ${rows}`;
    return this.heatmap.draw({
      weights, rows, cols, rowLabels: labels, colLabels: r.sourceWords, links: [], colormap: $('colormap').value,
      title: `Translation of “${$('translate-source').value}” after ${shown} of ${rows} words`,
    });
  }
}
