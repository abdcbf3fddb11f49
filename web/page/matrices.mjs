// What the bring-your-own view does to a parsed attention tensor before drawing it, as pure
// functions (tests/js/parsers.test.mjs runs them under Node): pick or aggregate a layer and head,
// hide special tokens, merge subword tokens into words. Matrices are { rows, cols, weights: [rows][cols] }.
import { english, message } from './messages.mjs';

const SPECIAL = /^(<s>|<\/s>|<pad>|<unk>|<eos>|<bos>|\[CLS\]|\[SEP\]|\[PAD\]|\[MASK\]|<\|endoftext\|>)$/i;

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
// (WordPiece), a trailing "@@" continues into the next (subword-nmt). A special token (</s>,
// [SEP], …) is a word of its own: it never joins the word before it, and the token after it
// starts a new word. Returns the words and the word of each token.
export function wordsOf(tokens) {
  const words = [], index = [];
  const sentencePiece = tokens.some((t) => t.startsWith('▁'));
  let open = false;  // the previous token ended with @@
  let afterSpecial = false;
  for (const token of tokens) {
    const special = SPECIAL.test(token);
    const joins = token.startsWith('##') || open || (!token.startsWith('▁') && sentencePiece);
    const text = special ? token : token.replace(/^##/, '').replace(/@@$/, '').replace(/^▁/, '');
    if (joins && !special && !afterSpecial && words.length) words[words.length - 1] += text;
    else words.push(text);
    index.push(words.length - 1);
    open = !special && token.endsWith('@@');
    afterSpecial = special;
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

// What a word-level row leaves out: each row's 1 − sum (the rows of a model's pieces sum to 1,
// and the word level leaves out the special tokens), over the rows with any weight. Null when
// every such row sums to 1 (within 0.005).
export function restShare(weights, rows, cols) {
  let least = Infinity, most = -Infinity;
  for (let r = 0; r < rows; r++) {
    let sum = 0;
    for (let c = 0; c < cols; c++) sum += weights[r * cols + c];
    if (sum <= 0) continue;
    least = Math.min(least, 1 - sum);
    most = Math.max(most, 1 - sum);
  }
  if (most === -Infinity || most < 0.005) return null;
  return { least: Math.max(0, least), most };
}

// The sentence that says so: "each row sums to 0.62–0.97 over the words; the rest (3–38 %) went
// to </s>", with `where` naming what the words leave out.
export const restNote = (weights, rows, cols, where) => english(restMessage(weights, rows, cols, where));

/** restNote's sentence as a message (messages.mjs) for the page to say in the reader's language;
 * `where` is English text or a message. */
export function restMessage(weights, rows, cols, where) {
  const rest = restShare(weights, rows, cols);
  if (!rest) return '';
  const percent = (x) => Math.round(x * 100);
  const span = percent(rest.least) === percent(rest.most) ? `${percent(rest.most)} %` : `${percent(rest.least)}–${percent(rest.most)} %`;
  return message("each row's weights over the words add up to less than 1: the rest ({span} of a row) went to {where}", { span, where: typeof where === 'string' ? message(where) : where });
}
