// The thread for work that needs the module but no model, so that it works from the first second
// and the page's own thread never instantiates WebAssembly: bring-your-own files are read,
// parsed, reshaped and their links extracted here (a 60 MB matrix never stops the page), and the
// playground's attention is computed here. It keeps the last good tensor and gold line: a file
// that is refused leaves them as they were. Messages:
//   {type: 'init', simd}                    -> {type: 'module', threads, alignment}
//   {type: 'file', id, file, settings}      -> {type: 'result', id, result: {loaded, view}} | {type: 'error', id, message}
//   {type: 'view', id, settings}            -> {type: 'result', id, result: {view}} | {type: 'error', id, message}
//   {type: 'attention', id, options}        -> {type: 'result', id, result: attn.attention(options)} | same
//   {type: 'maskedSoftmax', id, options}    -> {type: 'result', id, result: {weights: attn.maskedSoftmax(options)}} | same
// settings: {layer, head (text, as typed), aggregate, special, merge, method}. The view: the shown
// matrix {weights, rows, cols, rowLabels, colLabels, links, pharaoh}, the tensor's layers and
// heads, the layer and head shown with what was changed about them (clamped or rounded), and the
// gold links with their score, or why they cannot be scored. What it says (a refusal, a change, a
// note) goes as a message (messages.mjs), for the page to say in the reader's language.
import loadAttn from './dist/attn.mjs';
import { numberCheck } from './controls.mjs';
import { hideSpecial, mergeSubwords, selectMatrix } from './matrices.mjs';
import { problem, problemOf } from './messages.mjs';

/** @typedef {import('./messages.mjs').Message} Message */
import { goldOutside, goldShape, parseAttentionJson, parseGoldLine, parseNpy, pharaohPairs } from './parsers.mjs';
import { answerRequests } from './worker-client.mjs';

let attn = null;
let tensor = null;  // the last good one: {shape, data, source?, target?, name}
let gold = null;    // the last good gold line: {line, name}

const MATRIX_FILE = /\.(npy|json)$/i;

// layer and head: numbers within the tensor's own ranges (0 when it has no such dimension).
function choose(settings, layers, heads) {
  const pick = (text, count, name) => numberCheck(count === 1 && text === '' ? '0' : text, { name, min: 0, max: count - 1, step: 1 });
  return { layer: pick(settings.layer, layers, 'layer'), head: pick(settings.head, heads, 'head') };
}

// The matrix a tensor shows with the page's settings, its links, and the gold line scored.
function view(of, goldLine, settings) {
  const leading = of.shape.slice(0, -2);
  const layers = leading.length === 2 ? leading[0] : 1, heads = leading.length >= 1 ? leading.at(-1) : 1;
  const chosen = choose(settings, layers, heads);
  for (const [what, { value, said }] of Object.entries(chosen)) {
    if (value === null) throw problemOf(said, { field: what });
  }
  let matrix = selectMatrix(of, { layer: chosen.layer.value, head: chosen.head.value, aggregate: settings.aggregate });
  const numbered = (n) => Array.from({ length: n }, (_, i) => String(i));
  let rowLabels = of.target ?? numbered(matrix.rows), colLabels = of.source ?? numbered(matrix.cols);
  if (settings.special) ({ matrix, rowLabels, colLabels } = hideSpecial(matrix, rowLabels, colLabels));
  if (settings.merge) ({ matrix, rowLabels, colLabels } = mergeSubwords(matrix, rowLabels, colLabels));
  if (!matrix.rows || !matrix.cols) throw problem('nothing is left to show once special tokens are hidden');
  const extracted = attn.extractLinks({ weights: matrix.weights, rows: matrix.rows, cols: matrix.cols, method: settings.method });
  const result = {
    ...matrix, rowLabels, colLabels, links: extracted.links, pharaoh: extracted.pharaoh, layers, heads,
    layer: chosen.layer, head: chosen.head, gold: [], goldProblem: /** @type {Message} */ (''), score: null, goldName: goldLine?.name ?? '',
    goldNote: /** @type {Message} */ (''),
  };
  if (goldLine) {
    const pairs = pharaohPairs(goldLine.line);
    result.goldProblem = goldOutside(pairs, matrix.rows, matrix.cols);
    if (!result.goldProblem) {
      result.gold = pairs;
      result.score = attn.alignmentError([extracted.pharaoh], [goldLine.line]);
      result.goldNote = goldShape(pairs, matrix.rows, matrix.cols);
    }
  }
  return result;
}

async function readFile({ file, settings }) {
  if (file.size > 64 * 1024 * 1024) throw problem('{file} is larger than 64 MiB', { file: file.name });
  if (MATRIX_FILE.test(file.name)) {
    const parsed = /\.npy$/i.test(file.name) ? parseNpy(await file.arrayBuffer()) : parseAttentionJson(await file.text());
    const candidate = { ...parsed, name: file.name };
    const shown = view(candidate, gold, settings);  // refused here if it cannot be shown: the last good one stays
    tensor = candidate;
    return { loaded: { name: file.name, kind: 'matrix', shape: parsed.shape }, view: shown };
  }
  // a gold alignment: one Pharaoh line (the first non-empty line is used)
  const line = parseGoldLine(await file.text());
  // an empty file would score every matrix as AER 1: refused, so the last good gold stays
  if (!line) throw problem('the gold file has no links (one Pharaoh line such as "0-0 1-2" is needed)');
  attn.alignmentError([line], [line]);  // the module's Pharaoh parser validates the links
  const candidate = { line, name: file.name };
  let shown = null;
  if (tensor) {
    shown = view(tensor, candidate, settings);
    if (shown.goldProblem) throw problemOf(shown.goldProblem);
  }
  gold = candidate;
  return { loaded: { name: file.name, kind: 'gold', links: pharaohPairs(line).length }, view: shown };
}

async function showView({ settings }) {
  return { view: tensor ? view(tensor, gold, settings) : null };
}

async function init({ simd }) {
  attn = await loadAttn({ simd, warmUp: false });
  self.postMessage({ type: 'module', threads: attn.threads, alignment: attn.alignment });
}

const handlers = {
  file: readFile, view: showView,
  attention: ({ options }) => attn.attention(options),
  maskedSoftmax: ({ options }) => ({ weights: attn.maskedSoftmax(options) }),
};
answerRequests({ init, handlers, transfer: (result) => [result.view?.weights, result.weights, result.output, result.scores] });
