// The translation view: the model translates in the worker; a slider steps through the output,
// showing the attention rows of the words produced so far (later rows stay empty).
import { drawHeatmap } from './views.mjs';

const $ = (id) => document.getElementById(id);

export class TranslateView {
  constructor(client) {
    this.client = client;  // a WorkerClient (worker-client.mjs)
    this.result = null;
  }

  start() {
    $('translate').addEventListener('click', () => this.translate());
    $('translate-source').addEventListener('keydown', (event) => { if (event.key === 'Enter') this.translate(); });
    $('step').addEventListener('input', () => this.draw());
    $('step-back').addEventListener('click', () => this.move(-1));
    $('step-forward').addEventListener('click', () => this.move(1));
    return this.translate();  // the prefilled sentence, so the view is never empty
  }

  move(delta) {
    const step = $('step');
    step.value = String(Math.min(Number(step.max), Math.max(0, Number(step.value) + delta)));
    this.draw();
  }

  async translate() {
    $('translate-view').dataset.state = 'busy';
    const beam = Number($('beam').value);
    const reply = await this.client.request({ type: 'translate', text: $('translate-source').value, beam });
    if (reply.type === 'error') {
      $('translation').textContent = reply.message;
      $('translate-view').dataset.state = 'error';
      return;
    }
    this.result = reply.result;
    $('translate-view').dataset.state = 'ok';
    $('translation').textContent = this.result.text;
    const step = $('step');
    step.max = String(this.result.targetWords.length);
    step.value = step.max;
    this.draw();
  }

  draw() {
    const r = this.result;
    if (!r) return;
    const shown = Number($('step').value);
    const rows = r.targetWords.length, cols = r.sourceWords.length;
    const weights = new Float32Array(r.weights);
    weights.fill(0, shown * cols);  // words not produced yet have no attention to show
    const labels = r.targetWords.map((word, t) => (t < shown ? word : '…'));
    drawHeatmap($('translate-heatmap'), { weights, rows, cols, rowLabels: labels, colLabels: r.sourceWords });
    $('translate-heatmap').dataset.step = String(shown);
    $('step-label').textContent = shown ? `${shown} of ${rows}: “${r.targetWords[shown - 1]}”` : `0 of ${rows}`;
  }
}
