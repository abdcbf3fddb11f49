// The playground's set-ups: the tutorials' worked examples with their own shapes (queries, keys
// and values of any size, a batch with a valid length per element or per row), each turned into
// the module's call, and checked against what the tutorial printed. Pure (tests/js/playground.test.mjs
// runs every set-up through the module and compares with the published outputs).
import { english, message, problem } from './messages.mjs';
import { formatTensor, parseTensor } from './tensors.mjs';

const D2L_VALUES = 'torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)';
const D2L_SCORING = 'd2l.ai, “Attention Scoring Functions”';
// Both of d2l's scoring examples print this: with identical keys every valid key weighs the same,
// so each query gets the mean of its batch's first 2 (or 6) value rows.
const D2L_OUTPUT = { shape: [2, 1, 4], data: [2, 3, 4, 5, 10, 11, 12, 13] };

/**
 * kind: 'tokens' (the five-token table, queries = keys = values), 'attention' (queries, keys and
 * values boxes) or 'softmax' (a batch of scores through the masked softmax). texts: the boxes'
 * contents the set-up puts there; published: the output the tutorial printed; rule: what its
 * printed output shows when the inputs are random (the page's random numbers are not PyTorch's).
 */
export const SETUPS = {
  tokens: {
    label: 'five tokens, self-attention (the QKV tutorial)', kind: 'tokens',
    note: 'Five 4-d tokens serve as queries, keys and values. Edit a value, or change the score and probability functions; the weights update as you type.',
  },
  'd2l-masked-softmax': {
    label: 'd2l: masked_softmax, a (2, 2, 4) batch, valid lengths 2 and 3', kind: 'softmax',
    texts: { x: 'torch.rand(2, 2, 4)', validLengths: 'torch.tensor([2, 3])' },
    note: `${D2L_SCORING}: masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3])). Keys past each batch element's valid length get weight 0; the others share 1.`,
    rule: 'd2l prints random weights (ours are seeded, not PyTorch\'s), zero past each valid length: batch element 1 keeps keys 1–2, element 2 keys 1–3, and every row sums to 1.',
  },
  'd2l-masked-softmax-rows': {
    label: 'd2l: masked_softmax with a valid length per row, [[1, 3], [2, 4]]', kind: 'softmax',
    texts: { x: 'torch.rand(2, 2, 4)', validLengths: 'torch.tensor([[1, 3], [2, 4]])' },
    note: `${D2L_SCORING}: masked_softmax(torch.rand(2, 2, 4), torch.tensor([[1, 3], [2, 4]])): one valid length per query row.`,
    rule: 'd2l prints random weights (ours are seeded), with rows keeping 1, 3, 2 and 4 keys: a row of valid length 1 is all on its first key.',
  },
  'd2l-dot': {
    label: 'd2l: scaled dot-product attention, 10 keys, valid lengths 2 and 6', kind: 'attention', score: 'scaled_dot',
    texts: { queries: 'torch.ones((2, 1, 2))', keys: 'torch.ones((2, 10, 2))', values: D2L_VALUES, validLengths: 'torch.tensor([2, 6])' },
    note: `${D2L_SCORING}: DotProductAttention on queries (2, 1, 2), keys (2, 10, 2), values (2, 10, 4), valid_lens [2, 6].`,
    published: D2L_OUTPUT,
  },
  'd2l-additive': {
    label: 'd2l: additive (MLP) attention, the same tensors', kind: 'attention', score: 'additive',
    texts: { queries: 'torch.ones((2, 1, 2))', keys: 'torch.ones((2, 10, 2))', values: D2L_VALUES, validLengths: 'torch.tensor([2, 6])' },
    note: `${D2L_SCORING}: AdditiveAttention (8 hidden units; its weights here are the page's own, seeded) on the same tensors. Identical keys get identical scores whatever the weights.`,
    published: D2L_OUTPUT,
  },
  tensors: {
    label: 'queries, keys and values of your own', kind: 'attention',
    texts: { queries: '[[[1, 0], [0, 1]]]', keys: '[[[1, 0], [0, 1], [1, 1]]]', values: '[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]', validLengths: '' },
    note: 'Type a list ([[1, 0], [0, 1]]) or PyTorch (torch.ones((2, 3, 4)), torch.arange(12).reshape(1, 3, 4).repeat(2, 1, 1)): shapes (batch, rows, size), or (rows, size) for one.',
  },
};

export const HIDDEN = 8;  // the additive and local-p scores' hidden units in the tensor set-ups (d2l's num_hiddens)

// Fixed, seeded parameters for the general and additive scores, so the page is reproducible.
function seededValues(count, seed) {
  let state = seed >>> 0;
  return Float32Array.from({ length: count }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state / 2 ** 32) * 2 - 1;
  });
}

/** The scores' parameters for queries of size d and keys of size keyDim, with `hidden` units. */
export function parameters(d, keyDim = d, hidden = HIDDEN) {
  return {
    general: { weight: seededValues(d * keyDim, 1) },
    additive: { hidden, queryWeight: seededValues(hidden * d, 2), keyWeight: seededValues(hidden * keyDim, 3), v: seededValues(hidden, 4) },
    local: { hidden, positionWeight: seededValues(hidden * d, 5), positionV: seededValues(hidden, 6) },
  };
}

// The tensor in box `field` (named `what` in messages): an error it raises names the box.
function boxed(field, what, read) {
  try {
    return read(what);
  } catch (problem) {
    throw Object.assign(problem, { field: problem.field ?? field });
  }
}

// A batch of matrices: a 2-D tensor is one element; 3-D is (batch, rows, size).
function batched(tensor, what) {
  if (tensor.shape.length === 2) return { batch: 1, rows: tensor.shape[0], size: tensor.shape[1], data: tensor.data };
  if (tensor.shape.length === 3) return { batch: tensor.shape[0], rows: tensor.shape[1], size: tensor.shape[2], data: tensor.data };
  throw problem('{what} must have 2 or 3 dimensions ((batch,) rows, size), got {count}: {shape}', { what: message(what), count: tensor.shape.length, shape: tensor.shape.join(' × ') });
}

// An element repeated to `batch` (a batch of 1 goes with any batch, as PyTorch broadcasts it).
function toBatch(m, batch, what) {
  if (m.batch === batch) return m.data;
  if (m.batch !== 1) throw problem('{what} has a batch of {batch} where the others have {others}', { what: message(what), batch: m.batch, others: batch });
  const out = new Float32Array(batch * m.data.length);
  for (let b = 0; b < batch; b++) out.set(m.data, b * m.data.length);
  return out;
}

// Valid lengths: empty for none, one per batch element, or one per (element, row).
function validLengths(text, batch, rows, cols) {
  if (!text.trim()) return null;
  const { shape, data } = parseTensor(text, 'valid lengths');
  const count = data.length;
  const shapeOk = (shape.length === 1 && count === batch) || (shape.length === 2 && shape[0] === batch && shape[1] === rows);
  if (!shapeOk) {
    throw problem('valid lengths: {shape} given; one per batch element ({batch}) or one per row ({batch} × {rows}) is needed', { shape: shape.join(' × '), batch, rows });
  }
  const bad = data.find((n) => !Number.isInteger(n) || n < 0 || n > cols);
  if (bad !== undefined) throw problem('valid lengths must be whole numbers from 0 to {cols} (the number of keys), got {value}', { cols, value: bad });
  return Int32Array.from(data);
}

/**
 * The module call a set-up's boxes and controls describe: {type, options, batch, rows, cols,
 * outputSize}. texts: {queries, keys, values, x, validLengths}; controls: {score, probability,
 * temperature, causal, local, halfWidth}. Throws an Error naming the box and the problem, with the
 * box's field (a key of texts) as error.field where the problem is one box's.
 */
export function tensorRequest(kind, texts, controls) {
  const common = { probability: controls.probability, temperature: controls.temperature, causal: controls.causal };
  const matrix = (field, what) => boxed(field, what, () => batched(parseTensor(texts[field], what), what));
  const lengths = (batch, rows, cols) => boxed('validLengths', 'valid lengths', () => validLengths(texts.validLengths, batch, rows, cols));
  if (kind === 'softmax') {
    const x = matrix('x', 'scores X');
    const valid = lengths(x.batch, x.rows, x.size);
    const options = { scores: x.data, batch: x.batch, rows: x.rows, cols: x.size, ...common, ...(valid ? { validLength: valid } : {}) };
    return { type: 'maskedSoftmax', options, batch: x.batch, rows: x.rows, cols: x.size, outputSize: x.size, input: x.data };
  }
  const q = matrix('queries', 'queries'), k = matrix('keys', 'keys'), v = matrix('values', 'values');
  if (k.rows !== v.rows) {
    throw problem('keys have {keys} rows and values {values}: one value per key is needed', { keys: k.rows, values: v.rows }, { field: 'values' });
  }
  const batch = Math.max(q.batch, k.batch, v.batch);
  const [query, key, value] = [[q, 'queries'], [k, 'keys'], [v, 'values']].map(([m, what]) => boxed(what, what, () => toBatch(m, batch, what)));
  const valid = lengths(batch, q.rows, k.rows);
  const p = parameters(q.size, k.size);
  const score = controls.score;
  const options = {
    query, key, value,
    heads: batch, queryLength: q.rows, keyLength: k.rows, dim: q.size, keyDim: k.size, valueDim: v.size,
    score, ...(score === 'general' ? { general: p.general } : {}), ...(score === 'additive' ? { additive: p.additive } : {}),
    ...common, ...(valid ? { validLength: valid } : {}),
    ...(controls.local === 'none' ? {} : { local: { mode: controls.local, halfWidth: controls.halfWidth, ...(controls.local === 'predictive' ? p.local : {}) } }),
    returnScores: true,
  };
  return { type: 'attention', options, batch, rows: q.rows, cols: k.rows, outputSize: v.size };
}

/**
 * The set-up's output beside what the tutorial printed: {ours, theirs, verdict, said (the verdict as a
 * message, messages.mjs), agrees}.
 * output: [batch][rows][outputSize] floats; valid: the request's valid lengths (for the rule).
 */
export function compareWithPublished(setup, output, { batch, rows, cols, outputSize, options }) {
  const ours = formatTensor({ shape: [batch, rows, outputSize], data: output });
  if (setup.published) {
    const theirs = formatTensor(setup.published);
    const same = setup.published.shape.join() === [batch, rows, outputSize].join();
    const difference = same ? Math.max(...setup.published.data.map((x, i) => Math.abs(x - output[i]))) : Infinity;
    const agrees = difference <= 1e-4;
    const said = !same ? message('The shapes differ: the tutorial printed {theirs}, this is {ours}.', { theirs: setup.published.shape.join(' × '), ours: `${batch} × ${rows} × ${outputSize}` })
      : agrees ? message('The same as the tutorial\'s output (largest difference {difference}).', { difference: difference.toExponential(1) })
        : message('Not the tutorial\'s output: the largest difference is {difference} (the inputs or settings were changed).', { difference: difference.toFixed(4) });
    return { ours, theirs, verdict: english(said), said, agrees };
  }
  if (setup.rule) {
    const valid = options.validLength;
    let agrees = true;
    for (let b = 0; b < batch; b++) {
      for (let r = 0; r < rows; r++) {
        const keep = valid ? valid[valid.length === batch ? b : b * rows + r] : cols;
        const row = output.subarray((b * rows + r) * cols, (b * rows + r + 1) * cols);
        const sum = row.reduce((a, x) => a + x, 0);
        // a row with no valid key is all zeros (the library's rule; d2l's -1e6 would make it uniform)
        if (row.some((x, c) => c >= keep && x !== 0) || (keep > 0 && Math.abs(sum - 1) > 1e-5)) agrees = false;
      }
    }
    const verdict = agrees ? 'As the tutorial shows: zero past every valid length, each row summing to 1.'
      : 'Not as the tutorial shows: some weight lies past a valid length, or a row does not sum to 1 (the settings were changed).';
    return { ours, theirs: setup.rule, verdict, said: verdict, agrees };
  }
  return { ours, theirs: '', verdict: '', said: '', agrees: null };
}
