// "Bring your own": attention matrices from any model, dropped as .npy (2-D [target][source],
// 3-D [heads][target][source], 4-D [layers][heads][target][source]) or JSON
// ({ source: [...], target: [...], weights: [[...]] }, weights 2-D to 4-D), viewed with head and
// layer selection or aggregation, special tokens hidden with renormalization, subwords merged into
// words, links extracted, and a dropped gold Pharaoh file scored (AER, precision, recall). The
// files are read by parsers.mjs, the matrices reshaped by matrices.mjs; this module is the view.
import { hideSpecial, mergeSubwords, selectMatrix } from './matrices.mjs';
import { listMethods, readsOneMatrix } from './methods.mjs';
import { parseAttentionJson, parseGoldLine, parseNpy, pharaohPairs } from './parsers.mjs';
import { drawHeatmap } from './views.mjs';

const $ = (id) => document.getElementById(id);

export class ByoView {
  constructor(attn) {
    this.attn = attn;  // the page's module instance: extraction and AER
    this.tensor = null;
    this.gold = null;
  }

  start() {
    // The methods that extract links from one matrix, as the library lists them.
    const { methods, defaults } = this.attn.alignment;
    listMethods($('byo-method'), methods.filter(readsOneMatrix), defaults);
    const drop = $('drop');
    drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('dragging'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
    drop.addEventListener('drop', (event) => {
      event.preventDefault();
      drop.classList.remove('dragging');
      for (const file of event.dataTransfer.files) this.load(file);
    });
    $('byo-file').addEventListener('change', (event) => { for (const file of event.target.files) this.load(file); });
    for (const id of ['byo-layer', 'byo-head', 'byo-aggregate', 'byo-special', 'byo-merge', 'byo-method']) $(id).addEventListener('input', () => this.draw());
  }

  async load(file) {
    try {
      if (file.size > 64 * 1024 * 1024) throw new Error(`${file.name} is larger than 64 MiB`);
      if (/\.npy$/i.test(file.name)) {
        this.tensor = parseNpy(await file.arrayBuffer());
      } else if (/\.json$/i.test(file.name)) {
        this.tensor = parseAttentionJson(await file.text());
      } else {  // a gold alignment: one Pharaoh line (the first non-empty line is used)
        const line = parseGoldLine(await file.text());
        this.attn.alignmentError([line], [line]);  // the module's Pharaoh parser validates the links
        this.gold = line;
      }
      $('byo-status').textContent = `loaded ${file.name}`;
      $('byo-view').dataset.state = 'ok';
      this.draw();
    } catch (error) {
      $('byo-status').textContent = `${file.name}: ${error.message}`;
      $('byo-view').dataset.state = 'error';
    }
  }

  draw() {
    if (!this.tensor) return;
    const { shape } = this.tensor;
    const leading = shape.slice(0, -2);
    $('byo-layer').max = String(leading.length === 2 ? leading[0] - 1 : 0);
    $('byo-head').max = String(leading.length >= 1 ? leading.at(-1) - 1 : 0);
    let matrix = selectMatrix(this.tensor, {
      layer: Math.min(Number($('byo-layer').value), Number($('byo-layer').max)),
      head: Math.min(Number($('byo-head').value), Number($('byo-head').max)),
      aggregate: $('byo-aggregate').value,
    });
    const given = (words, n) => (words && words.length === n ? words : Array.from({ length: n }, (_, i) => String(i)));
    let rowLabels = given(this.tensor.target, matrix.rows), colLabels = given(this.tensor.source, matrix.cols);
    if ($('byo-special').checked) ({ matrix, rowLabels, colLabels } = hideSpecial(matrix, rowLabels, colLabels));
    if ($('byo-merge').checked) ({ matrix, rowLabels, colLabels } = mergeSubwords(matrix, rowLabels, colLabels));
    const links = this.attn.extractLinks({ weights: matrix.weights, rows: matrix.rows, cols: matrix.cols, method: $('byo-method').value });
    drawHeatmap($('byo-heatmap'), { weights: matrix.weights, rows: matrix.rows, cols: matrix.cols, rowLabels, colLabels, links: links.links });
    $('byo-pharaoh').textContent = links.pharaoh;
    if (this.gold !== null) {
      for (const [s, t] of pharaohPairs(this.gold)) {
        const cell = $('byo-heatmap').querySelector(`rect.cell[data-row="${t}"][data-col="${s}"]`);
        if (cell) cell.classList.add('gold');
      }
      const score = this.attn.alignmentError([links.pharaoh], [this.gold]);
      $('byo-score').textContent = `AER ${score.aer.toFixed(3)} · precision ${score.precision.toFixed(3)} · recall ${score.recall.toFixed(3)}`;
      $('byo-score').dataset.aer = String(score.aer);
    }
  }
}
