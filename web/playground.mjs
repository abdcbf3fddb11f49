// The playground: self-attention over the tutorials' five tokens, recomputed whenever an input
// changes, with the weights drawn as a heatmap and the output as numbers.
import { readNumber } from './controls.mjs';
import { Heatmap } from './views.mjs';

const TOKENS = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0.5, 0.5, 0]];
const LENGTH = TOKENS.length;
const DIM = TOKENS[0].length;
const HIDDEN = 4;
const NAMES = TOKENS.map((_, i) => `x${i + 1}`);  // the tokens as queries (rows) and keys (columns)

const $ = (id) => document.getElementById(id);

// Fixed, seeded parameters for the general and additive scores, so the page is reproducible.
function seededValues(count, seed) {
  let state = seed >>> 0;
  return Float32Array.from({ length: count }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state / 2 ** 32) * 2 - 1;
  });
}
// Parameters for a head size d (4 with one head, 2 with two).
function parameters(d) {
  return {
    general: { weight: seededValues(d * d, 1) },
    additive: { hidden: HIDDEN, queryWeight: seededValues(HIDDEN * d, 2), keyWeight: seededValues(HIDDEN * d, 3), v: seededValues(HIDDEN, 4) },
    local: { hidden: HIDDEN, positionWeight: seededValues(HIDDEN * d, 5), positionV: seededValues(HIDDEN, 6) },
  };
}

// [length][heads * d] token rows -> [heads][length][d], the Transformer's split.
function splitHeads(tokens, heads) {
  const d = DIM / heads;
  const out = new Float32Array(tokens.length);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < LENGTH; i++) {
      for (let k = 0; k < d; k++) out[(h * LENGTH + i) * d + k] = tokens[i * DIM + h * d + k];
    }
  }
  return out;
}

function buildTokenTable() {
  const table = $('tokens');
  TOKENS.forEach((token, i) => {
    const row = table.insertRow();
    const header = document.createElement('th');
    header.scope = 'row';
    header.textContent = NAMES[i];
    row.append(header);
    token.forEach((value, d) => {
      const input = document.createElement('input');
      input.type = 'number';
      input.step = 'any';
      input.dataset.name = `token ${i + 1}, component ${d + 1}`;
      input.value = String(value);
      input.id = `token-${i}-${d}`;
      input.setAttribute('aria-label', `token ${i + 1}, component ${d + 1}`);
      row.insertCell().append(input);
    });
  });
}

function readTokens() {
  const values = new Float32Array(LENGTH * DIM);
  for (let i = 0; i < LENGTH; i++) {
    for (let d = 0; d < DIM; d++) {
      const value = readNumber($(`token-${i}-${d}`));
      if (value === null) throw Object.assign(new Error(`token ${i + 1}, component ${d + 1} needs a number`), { beside: true });
      values[i * DIM + d] = value;
    }
  }
  return values;
}

// A table of `rows` x `cols` numbers from values[offset...], each row headed `${label}${i + 1}`.
function drawTable(id, label, values, offset, rows, cols, digits) {
  const table = $(id);
  table.replaceChildren();
  for (let i = 0; i < rows; i++) {
    const row = table.insertRow();
    const header = document.createElement('th');
    header.scope = 'row';
    header.textContent = `${label}${i + 1}`;
    row.append(header);
    for (let j = 0; j < cols; j++) row.insertCell().textContent = values[offset + i * cols + j].toFixed(digits);
  }
}

const drawScores = (scores, offset) => drawTable('scores', 'q', scores, offset, LENGTH, LENGTH, 3);
const drawOutput = (output, rows, cols) => drawTable('output', 'y', output, 0, rows, cols, 4);

// A number control's value, or an error that stops the update (its message is already beside it).
function number(id) {
  const value = readNumber($(id));
  if (value === null) throw Object.assign(new Error(`${$(id).dataset.name} needs a number`), { beside: true });
  return value;
}

function update(attn, heatmap) {
  const error = $('error');
  try {
    const heads = Number($('heads').value), d = DIM / heads;
    $('show-head').max = String(heads - 1);
    const shown = number('show-head');
    const tokens = splitHeads(readTokens(), heads);
    const score = $('score').value, local = $('local').value;
    const p = parameters(d);
    const { output, weights, scores } = attn.attention({
      query: tokens, key: tokens, value: tokens,
      heads, queryLength: LENGTH, keyLength: LENGTH, dim: d,
      score,
      ...(score === 'general' ? { general: p.general } : {}),
      ...(score === 'additive' ? { additive: p.additive } : {}),
      probability: $('probability').value,
      temperature: number('temperature'),
      causal: $('causal').checked,
      validLength: number('valid-length'),
      ...(local === 'none' ? {} : { local: { mode: local, halfWidth: number('half-width'), ...(local === 'predictive' ? p.local : {}) } }),
      returnScores: true,
    });
    const offset = shown * LENGTH * LENGTH;
    heatmap.draw({
      weights: weights.slice(offset, offset + LENGTH * LENGTH), rows: LENGTH, cols: LENGTH, rowLabels: NAMES, colLabels: NAMES,
      links: [], colormap: $('colormap').value, title: `Self-attention weights of the playground (head ${shown})`,
    });
    drawScores(scores, offset);
    // the heads' outputs side by side again: [length][heads * d]
    const merged = new Float32Array(LENGTH * DIM);
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < LENGTH; i++) {
        for (let k = 0; k < d; k++) merged[i * DIM + h * d + k] = output[(h * LENGTH + i) * d + k];
      }
    }
    drawOutput(merged, LENGTH, DIM);
    error.hidden = true;
  } catch (e) {
    // nothing stale stays: the weights, scores and output of other settings go
    heatmap.clear();
    for (const id of ['scores', 'output']) $(id).replaceChildren();
    error.textContent = e.message;  // text, never markup
    error.hidden = Boolean(e.beside);  // a refused number is said next to its control
  }
}

// attn: a loaded module (the page's main-thread instance; these matrices are tiny). beforeFirst():
// called once the token table exists, before the first update (the URL hash is read then).
export function startPlayground(attn, beforeFirst = () => {}) {
  buildTokenTable();
  beforeFirst();
  const heatmap = new Heatmap($('playground-heatmap'), { label: 'attention weights of the playground: queries as rows, keys as columns' });
  for (const id of [...PLAYGROUND_CONTROLS, 'colormap']) $(id).addEventListener('input', () => update(attn, heatmap));
  $('tokens').addEventListener('input', () => update(attn, heatmap));
  update(attn, heatmap);
}

export const PLAYGROUND_CONTROLS = ['score', 'probability', 'temperature', 'causal', 'valid-length', 'local', 'half-width', 'heads', 'show-head'];

// The token table as one value for the URL hash: twenty numbers, comma-separated.
export const tokenField = {
  get: () => TOKENS.flatMap((token, i) => token.map((_, d) => $(`token-${i}-${d}`).value)).join(','),
  set: (text) => {
    const values = text.split(',');
    TOKENS.forEach((token, i) => token.forEach((_, d) => { $(`token-${i}-${d}`).value = values[i * DIM + d] ?? ''; }));
  },
  get element() { return $('tokens'); },
};
