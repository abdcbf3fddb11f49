// "Bring your own": attention matrices from any model, dropped as .npy (2-D [target][source],
// 3-D [heads][target][source], 4-D [layers][heads][target][source]) or JSON
// ({ source: [...], target: [...], weights: [[...]] }, weights 2-D to 4-D), viewed with head and
// layer selection or aggregation, special tokens hidden with renormalization, subwords merged into
// words, links extracted, and a dropped gold Pharaoh file scored (AER, precision, recall).
import { drawHeatmap } from './views.mjs';

const $ = (id) => document.getElementById(id);
const SPECIAL = /^(<s>|<\/s>|<pad>|<unk>|<eos>|<bos>|\[CLS\]|\[SEP\]|\[PAD\]|\[MASK\]|<\|endoftext\|>)$/i;

// A parsed tensor: { shape: [..], data: Float32Array }.
export function parseNpy(buffer) {
  const bytes = new Uint8Array(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];  // \x93NUMPY
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error('not a .npy file (no \\x93NUMPY magic)');
  const major = bytes[6];
  const view = new DataView(buffer);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (start + headerLength > bytes.length) throw new Error('truncated .npy header');
  const header = new TextDecoder('latin1').decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw new Error('unreadable .npy header');
  if (fortran === 'True') throw new Error('Fortran-ordered .npy arrays are not supported; save with C order');
  const shape = shapeText.split(',').map((x) => x.trim()).filter(Boolean).map(Number);
  if (shape.some((d) => !Number.isInteger(d) || d < 1)) throw new Error(`bad .npy shape (${shapeText})`);
  const count = shape.reduce((a, b) => a * b, 1);
  const readers = { '<f4': [4, (o) => view.getFloat32(o, true)], '<f8': [8, (o) => view.getFloat64(o, true)], '|u1': [1, (o) => view.getUint8(o)] };
  const reader = readers[descr];
  if (!reader) throw new Error(`unsupported .npy dtype ${descr} (use float32 or float64)`);
  const offset = start + headerLength;
  if (offset + count * reader[0] > bytes.length) throw new Error(`truncated .npy data: ${count} values of ${descr} expected`);
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = reader[1](offset + i * reader[0]);
  return { shape, data };
}

// { shape, data, source?, target? } from a JSON attention file.
export function parseAttentionJson(text) {
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`not valid JSON: ${error.message}`);
  }
  if (!json || !Array.isArray(json.weights)) throw new Error('the JSON needs a "weights" array');
  const shape = [];
  for (let level = json.weights; Array.isArray(level); level = level[0]) shape.push(level.length);
  const values = json.weights.flat(Infinity);
  if (values.length !== shape.reduce((a, b) => a * b, 1) || values.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
    throw new Error('"weights" must be a rectangular array of finite numbers');
  }
  const words = (name) => (json[name] === undefined ? undefined
    : Array.isArray(json[name]) && json[name].every((w) => typeof w === 'string') ? json[name]
      : (() => { throw new Error(`"${name}" must be an array of strings`); })());
  return { shape, data: Float32Array.from(values), source: words('source'), target: words('target') };
}

// Reduce [layers][heads][T][S] (any leading dims) to one [T][S] matrix: a chosen slice, or the
// mean or max over every leading index.
export function selectMatrix({ shape, data }, { layer = 0, head = 0, aggregate = 'select' } = {}) {
  if (shape.length < 2 || shape.length > 4) throw new Error(`expected 2 to 4 dimensions, got ${shape.length}`);
  const [rows, cols] = shape.slice(-2);
  const size = rows * cols;
  const slices = data.length / size;
  const leading = shape.slice(0, -2);
  if (aggregate === 'select') {
    const heads = leading.length >= 1 ? leading.at(-1) : 1;
    const index = (leading.length === 2 ? layer * heads : 0) + (leading.length >= 1 ? head : 0);
    if (index >= slices) throw new Error('no such layer or head');
    return { rows, cols, weights: data.slice(index * size, (index + 1) * size) };
  }
  const out = new Float32Array(size).fill(aggregate === 'max' ? -Infinity : 0);
  for (let k = 0; k < slices; k++) {
    for (let i = 0; i < size; i++) {
      const x = data[k * size + i];
      out[i] = aggregate === 'max' ? Math.max(out[i], x) : out[i] + x / slices;
    }
  }
  return { rows, cols, weights: out };
}

// Drops special tokens (rows and columns) and renormalizes each row to sum to 1.
export function hideSpecial(matrix, rowLabels, colLabels) {
  const keepRows = rowLabels.map((w, i) => (SPECIAL.test(w) ? -1 : i)).filter((i) => i >= 0);
  const keepCols = colLabels.map((w, i) => (SPECIAL.test(w) ? -1 : i)).filter((i) => i >= 0);
  const weights = new Float32Array(keepRows.length * keepCols.length);
  const removedColumns = keepCols.length < colLabels.length;  // rows lose mass only then
  keepRows.forEach((t, r) => {
    let sum = 0;
    keepCols.forEach((s, c) => { sum += (weights[r * keepCols.length + c] = matrix.weights[t * matrix.cols + s]); });
    if (removedColumns && sum > 0) for (let c = 0; c < keepCols.length; c++) weights[r * keepCols.length + c] /= sum;
  });
  return { matrix: { rows: keepRows.length, cols: keepCols.length, weights }, rowLabels: keepRows.map((i) => rowLabels[i]), colLabels: keepCols.map((i) => colLabels[i]) };
}

// Groups subword tokens into words: "▁" starts a word (SentencePiece), "##" continues one
// (WordPiece), a trailing "@@" continues into the next (subword-nmt). Returns word of each token.
export function wordsOf(tokens) {
  const words = [], index = [];
  let open = false;  // the previous token ended with @@
  for (const token of tokens) {
    const continues = token.startsWith('##') || open || (words.length > 0 && !token.startsWith('▁') && tokens.some((t) => t.startsWith('▁')));
    const text = token.replace(/^##/, '').replace(/@@$/, '').replace(/^▁/, '');
    if (continues && words.length) words[words.length - 1] += text;
    else words.push(text);
    index.push(words.length - 1);
    open = token.endsWith('@@');
  }
  return { words, index };
}

// Columns of a word are summed, rows of a word averaged (the same rule as the models' pieces).
export function mergeSubwords(matrix, rowLabels, colLabels) {
  const rowsOf = wordsOf(rowLabels), colsOf = wordsOf(colLabels);
  const R = rowsOf.words.length, C = colsOf.words.length;
  const weights = new Float32Array(R * C), counts = new Float32Array(R);
  for (let t = 0; t < matrix.rows; t++) {
    const r = rowsOf.index[t];
    counts[r]++;
    for (let s = 0; s < matrix.cols; s++) weights[r * C + colsOf.index[s]] += matrix.weights[t * matrix.cols + s];
  }
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) weights[r * C + c] /= counts[r];
  return { matrix: { rows: R, cols: C, weights }, rowLabels: rowsOf.words, colLabels: colsOf.words };
}

export class ByoView {
  constructor(attn) {
    this.attn = attn;  // the page's module instance: extraction and AER
    this.tensor = null;
    this.gold = null;
  }

  start() {
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
        const line = (await file.text()).split(/\r?\n/).find((l) => l.trim()) ?? '';
        this.attn.alignmentError([line], [line]);  // validates the links
        this.gold = line.trim();
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
      for (const link of this.gold.split(/\s+/).filter(Boolean)) {
        const [s, t] = link.split(/[-?]/).map(Number);
        const cell = $('byo-heatmap').querySelector(`rect.cell[data-row="${t}"][data-col="${s}"]`);
        if (cell) cell.classList.add('gold');
      }
      const score = this.attn.alignmentError([links.pharaoh], [this.gold]);
      $('byo-score').textContent = `AER ${score.aer.toFixed(3)} · precision ${score.precision.toFixed(3)} · recall ${score.recall.toFixed(3)}`;
      $('byo-score').dataset.aer = String(score.aer);
    }
  }
}
