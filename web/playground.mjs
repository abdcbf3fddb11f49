// The playground: self-attention over the tutorials' five tokens, recomputed (in the module
// worker) whenever an input changes, with the weights drawn as a heatmap and the output as numbers.
import { readNumber, readableNumber } from './controls.mjs';
import { Heatmap } from './views.mjs';
import { latestOnly } from './worker-client.mjs';

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
    for (let j = 0; j < cols; j++) row.insertCell().textContent = readableNumber(values[offset + i * cols + j], digits);
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

// The attention() call the controls describe now, with what drawing its answer needs; a number
// that is refused throws (its message is beside its control).
function request() {
  const heads = Number($('heads').value), d = DIM / heads;
  $('show-head').max = String(heads - 1);
  const shown = number('show-head');
  const tokens = splitHeads(readTokens(), heads);
  const score = $('score').value, local = $('local').value;
  const p = parameters(d);
  const options = {
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
  };
  return { options, heads, d, shown };
}

function draw({ output, weights, scores }, { heads, d, shown }, heatmap) {
  const offset = shown * LENGTH * LENGTH;
  drawScores(scores, offset);
  // the heads' outputs side by side again: [length][heads * d]
  const merged = new Float32Array(LENGTH * DIM);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < LENGTH; i++) {
      for (let k = 0; k < d; k++) merged[i * DIM + h * d + k] = output[(h * LENGTH + i) * d + k];
    }
  }
  drawOutput(merged, LENGTH, DIM);
  return heatmap.draw({
    weights: weights.slice(offset, offset + LENGTH * LENGTH), rows: LENGTH, cols: LENGTH, rowLabels: NAMES, colLabels: NAMES,
    links: [], colormap: $('colormap').value, title: `Self-attention weights of the playground (head ${shown})`,
  });
}

// A problem: said in the playground's alert (or beside its control), and nothing stale stays.
function refuse(problem, heatmap) {
  heatmap.clear();
  for (const id of ['scores', 'output']) $(id).replaceChildren();
  $('error').textContent = problem.message;  // text, never markup
  $('error').hidden = Boolean(problem.beside);
}

async function update(run, heatmap) {
  let asked;
  try {
    asked = request();
  } catch (problem) {
    run.drop();  // an answer still on its way is for settings that are gone
    refuse(problem, heatmap);
    return;
  }
  const reply = await run(asked.options);
  if (reply.type === 'superseded') return;
  if (reply.type !== 'result') {
    refuse(new Error(reply.message ?? 'cancelled'), heatmap);
    return;
  }
  $('error').hidden = true;
  await draw(reply.result, asked, heatmap);
}

/**
 * client: the module worker's WorkerClient, which computes the attention (tiny, but WebAssembly
 * instantiated on this thread would hold it for a long moment at start). beforeFirst(): called
 * once the token table exists, before the first update (the URL hash is read then). Resolves
 * once the first weights are drawn.
 */
export function startPlayground(client, beforeFirst = () => {}) {
  buildTokenTable();
  beforeFirst();
  const heatmap = new Heatmap($('playground-heatmap'), { label: 'attention weights of the playground: queries as rows, keys as columns' });
  const run = latestOnly((options) => client.request({ type: 'attention', options }));
  for (const id of [...PLAYGROUND_CONTROLS, 'colormap']) $(id).addEventListener('input', () => update(run, heatmap));
  $('tokens').addEventListener('input', () => update(run, heatmap));
  return update(run, heatmap);
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
