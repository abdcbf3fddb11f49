// The playground's projections, as Transformer Explainer shows them: the tokens X times W_Q, W_K and
// W_V give the queries, keys and values (Q = X·W_Q, ...), each head attends over its slice of them,
// and with several heads the heads' outputs side by side times W_O give the output. The matrices
// are [in][out] as the formulas read (PyTorch's Linear holds the transpose, [out][in]); each is an
// editable table of inputs, kept in the URL hash as one field. The module computes the attention;
// these products of 5 x 4 by 4 x 4 numbers only feed it and show its steps.
import { readNumber, readableNumber } from './controls.mjs';

export const MATRICES = ['wq', 'wk', 'wv', 'wo'];
export const MATRIX_NAMES = { wq: 'W_Q', wk: 'W_K', wv: 'W_V', wo: 'W_O' };

/** The n x n identity, row-major. */
export const identity = (n) => Float32Array.from({ length: n * n }, (_, k) => (k % (n + 1) === 0 ? 1 : 0));

/** x [rows][n] · w [n][m] -> [rows][m], row-major. */
export function matmul(x, rows, n, w, m) {
  const out = new Float32Array(rows * m);
  for (let i = 0; i < rows; i++) {
    for (let k = 0; k < n; k++) {
      const a = x[i * n + k];
      for (let j = 0; j < m; j++) out[i * m + j] += a * w[k * m + j];
    }
  }
  return out;
}

/** [length][dim] rows -> [heads][length][dim / heads], the Transformer's split into heads. */
export function split(rows, length, dim, heads) {
  const d = dim / heads, out = new Float32Array(length * dim);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < length; i++) for (let k = 0; k < d; k++) out[(h * length + i) * d + k] = rows[i * dim + h * d + k];
  }
  return out;
}

/** [heads][length][dim / heads] -> [length][dim]: the heads' outputs side by side, as split's inverse. */
export function merge(heads3d, length, dim, heads) {
  const d = dim / heads, out = new Float32Array(length * dim);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < length; i++) for (let k = 0; k < d; k++) out[i * dim + h * d + k] = heads3d[(h * length + i) * d + k];
  }
  return out;
}

/** w [n][m] -> its transpose [m][n] (PyTorch's Linear layout, [out][in]). */
export function transpose(w, n, m) {
  const out = new Float32Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) out[j * n + i] = w[i * m + j];
  return out;
}

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** Builds the four `dim` x `dim` tables of inputs (ids `wq-i-j` ...), each the identity at first. */
export function buildMatrices(dim) {
  for (const name of MATRICES) {
    const table = /** @type {HTMLTableElement} */ ($(`pg-${name}`));
    const start = identity(dim);
    for (let i = 0; i < dim; i++) {
      const row = table.insertRow();
      for (let j = 0; j < dim; j++) {
        const input = Object.assign(document.createElement('input'), { type: 'number', step: 'any', id: `${name}-${i}-${j}`, value: String(start[i * dim + j]) });
        input.dataset.name = `${MATRIX_NAMES[name]} row ${i + 1}, column ${j + 1}`;
        input.setAttribute('aria-label', input.dataset.name);
        row.insertCell().append(input);
      }
    }
  }
}

/** The matrix `name` ('wq', ...) as typed: [dim][dim]; a box without a number throws (said beside it). */
export function readMatrix(name, dim) {
  const values = new Float32Array(dim * dim);
  for (let i = 0; i < dim * dim; i++) {
    const input = /** @type {HTMLInputElement} */ ($(`${name}-${Math.floor(i / dim)}-${i % dim}`));
    const value = readNumber(input);
    if (value === null) throw Object.assign(new Error(`${input.dataset.name} needs a number`), { beside: true });
    values[i] = value;
  }
  return values;
}

/** A read-only table of `rows` x `cols` numbers from values[offset...], each row headed `${label}${i + 1}`. */
export function showMatrix(id, label, values, rows, cols, offset = 0, digits = 3) {
  const table = /** @type {HTMLTableElement} */ ($(id));
  table.replaceChildren();
  for (let i = 0; i < rows; i++) {
    const row = table.insertRow();
    const header = document.createElement('th');
    header.scope = 'row';
    header.textContent = `${label}${i + 1}`;
    row.append(header);
    for (let j = 0; j < cols; j++) row.insertCell().textContent = readableNumber(values[offset + i * cols + j], digits);
  }
}

/** The four matrices as one value for the URL hash: every number, comma-separated, W_Q first. */
export const projectionField = (dim) => ({
  get: () => MATRICES.flatMap((name) => Array.from({ length: dim * dim }, (_, k) => (/** @type {HTMLInputElement} */ ($(`${name}-${Math.floor(k / dim)}-${k % dim}`))).value)).join(','),
  set: (text) => {
    const values = text.split(',');
    MATRICES.forEach((name, m) => {
      for (let k = 0; k < dim * dim; k++) (/** @type {HTMLInputElement} */ ($(`${name}-${Math.floor(k / dim)}-${k % dim}`))).value = values[m * dim * dim + k] ?? '';
    });
  },
  get element() { return $('pg-projections'); },
});
