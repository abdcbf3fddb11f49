// The playground: attention recomputed (in the module worker) whenever an input changes, with the
// weights drawn as a heatmap and the scores and output as numbers. Its set-ups
// (playground-setups.mjs): the tutorials' five tokens (queries = keys = values), and d2l's worked
// examples with queries, keys and values of their own shapes, a batch with valid lengths, and the
// output the tutorial printed beside the page's own.
import { readNumber, showProblem } from './controls.mjs';
import { SETUPS, compareWithPublished, parameters, tensorRequest } from './playground-setups.mjs';
import { Heatmap } from './views.mjs';
import { buildMatrices, matmul, merge, projectionField, readMatrix, showMatrix, split } from './projections.mjs';
import { onLanguage, say, showSaid, t } from './i18n.mjs';
import { message, problemOf, saidBy } from './messages.mjs';
import { latestOnly } from './worker-client.mjs';

const TOKENS = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0.5, 0.5, 0]];
const LENGTH = TOKENS.length;
const DIM = TOKENS[0].length;
const HIDDEN = 4;  // the five tokens' additive and local-p scores
const NAMES = TOKENS.map((_, i) => `x${i + 1}`);  // the tokens as queries (rows) and keys (columns)
// The tensor set-ups' boxes: the request's field -> the box's id.
const BOXES = { queries: 'pg-queries', keys: 'pg-keys', values: 'pg-values', x: 'pg-x', validLengths: 'pg-valid-lengths' };

/** @type {(id: string) => any} index.html's element of that id (a control, a figure, a section) */
const $ = (id) => document.getElementById(id);

const splitHeads = (tokens, heads) => split(tokens, LENGTH, DIM, heads);

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

// A number control's value, or an error that stops the update (its message is already beside it).
function number(id) {
  const value = readNumber($(id));
  if (value === null) throw Object.assign(new Error(`${$(id).dataset.name} needs a number`), { beside: true });
  return value;
}

// D, the local window's half-width. local-p weighs the keys by a Gaussian of standard deviation
// D / 2 around the position it predicts, so D = 0 leaves it no window: refused beside D, in words.
function halfWidth(local) {
  const value = number('half-width');
  if (local !== 'predictive' || value >= 1) return value;
  const said = message('D = 0 leaves local-p no window: it weighs the keys by a bell curve D / 2 wide around the position ' +
    'it predicts. Choose D of 1 or more (local-m takes D = 0: each query then sees the key at its own position only).');
  showProblem($('half-width'), said);
  throw problemOf(said, { beside: true });
}

const setupName = () => (SETUPS[$('playground-setup').value] ? $('playground-setup').value : 'tokens');

// Shows the controls of the chosen set-up's kind and its one-line note; the masked softmax takes
// its scores as given, so the score function and the local window are disabled, with the reason.
function showSetup() {
  const setup = SETUPS[setupName()];
  for (const element of $('playground').querySelectorAll('[data-kinds]')) element.hidden = !element.dataset.kinds.split(' ').includes(setup.kind);
  showSaid($('playground-note'), setup.note);
  const given = setup.kind === 'softmax';
  for (const id of ['score', 'local']) {
    $(id).disabled = given;
    $(id).title = given ? t('the masked softmax takes its scores as given (the box “scores X”)') : '';
  }
  showSaid($('scores-caption'), given ? 'scores X (the input)' : 'scores (before masking and the probability function)');
  showSaid($('output-caption'), given ? 'output = masked softmax of X' : 'output = weights × values');
  return setup;
}

// Puts a set-up's tensors in the boxes (and its score function), as choosing it does.
function fillSetup(name) {
  const setup = SETUPS[name];
  for (const [field, id] of Object.entries(BOXES)) $(id).value = setup.texts?.[field] ?? '';
  if (setup.score) $('score').value = setup.score;
  $('pg-show').value = '0';
}

// A tensor set-up whose boxes are all empty (a link that names only the set-up) gets its own.
function fillIfEmpty() {
  const name = setupName();
  if (SETUPS[name].kind !== 'tokens' && Object.values(BOXES).every((id) => !$(id).value.trim())) fillSetup(name);
}

// The module call for a tensor set-up: its boxes and the controls that apply. A problem names its
// box (the error's field) where it is one box's.
function tensorsRequest(name, setup) {
  const texts = Object.fromEntries(Object.entries(BOXES).map(([field, id]) => [field, $(id).value]));
  const controls = {
    score: $('score').value, probability: $('probability').value, temperature: number('temperature'),
    causal: $('causal').checked, local: $('local').value, halfWidth: 0,
  };
  let asked;
  try {
    asked = tensorRequest(setup.kind, texts, controls);
  } catch (problem) {
    throw Object.assign(problem, { box: BOXES[problem.field] });
  }
  $('pg-show').max = String(asked.batch - 1);
  $('half-width').max = String(Math.max(1, asked.cols - 1));  // the local window's half-width, up to the keys
  const { local } = /** @type {{local?: {mode: string, halfWidth: number}}} */ (asked.options);
  if (local) local.halfWidth = halfWidth(local.mode);
  return { ...asked, kind: setup.kind, setup, shown: number('pg-show') };
}

// The call the controls describe now, with what drawing its answer needs; a number that is
// refused throws (its message is beside its control).
function request() {
  const setup = showSetup();
  if (setup.kind !== 'tokens') return tensorsRequest(setupName(), setup);
  $('half-width').max = String(LENGTH - 1);
  const heads = Number($('heads').value), d = DIM / heads;
  $('show-head').max = String(heads - 1);
  const shown = number('show-head');
  const projected = projections(heads);
  const tokens = projected ? null : splitHeads(readTokens(), heads);
  const score = $('score').value, local = $('local').value;
  const p = parameters(d, d, HIDDEN);
  const options = {
    query: projected ? splitHeads(projected.q, heads) : tokens, key: projected ? splitHeads(projected.k, heads) : tokens,
    value: projected ? splitHeads(projected.v, heads) : tokens,
    heads, queryLength: LENGTH, keyLength: LENGTH, dim: d,
    score,
    ...(score === 'general' ? { general: p.general } : {}),
    ...(score === 'additive' ? { additive: p.additive } : {}),
    probability: $('probability').value,
    temperature: number('temperature'),
    causal: $('causal').checked,
    validLength: number('valid-length'),
    ...(local === 'none' ? {} : { local: { mode: local, halfWidth: halfWidth(local), ...(local === 'predictive' ? p.local : {}) } }),
    returnScores: true,
  };
  return { type: 'attention', kind: 'tokens', options, heads, d, shown, projected };
}

// With the projections box ticked: Q, K and V from the tokens and W_Q, W_K, W_V, and W_O for the
// heads' outputs (several heads only); null without it. Shows the matrices that apply.
function projections(heads) {
  const on = $('pg-project').checked;
  $('pg-projections').hidden = !on;
  $('pg-wo-figure').hidden = heads === 1;
  $('pg-final-figure').hidden = !on || heads === 1;
  $('playground').dataset.projected = String(on);
  showSaid($('tokens-caption'), on ? 'tokens X (their queries, keys and values come from the projections)' : 'tokens (queries = keys = values)');
  if (!on) return null;
  const x = readTokens();
  const [q, k, v] = ['wq', 'wk', 'wv'].map((name) => matmul(x, LENGTH, DIM, readMatrix(name, DIM), DIM));
  return { q, k, v, wo: heads === 1 ? null : readMatrix('wo', DIM) };
}

// A tensor set-up's answer: the shown batch element's weights, scores and output, and the whole
// output beside what the tutorial printed.
function drawTensors(result, asked, heatmap) {
  const { rows, cols, outputSize, shown, kind } = asked;
  const offset = shown * rows * cols;
  const output = kind === 'softmax' ? result.weights : result.output;
  showMatrix('scores', 'q', kind === 'softmax' ? asked.options.scores : result.scores, rows, cols, offset, 3);
  showMatrix('output', 'y', output, rows, outputSize, shown * rows * outputSize, 4);
  const compared = compareWithPublished(asked.setup, output, asked);
  $('pg-ours').textContent = compared.ours;
  $('pg-theirs').textContent = say(compared.theirs);  // the tutorial's tensor, or in words what it shows
  $('pg-theirs-figure').hidden = !compared.theirs;
  showSaid($('pg-verdict'), compared.said);
  $('pg-verdict').dataset.agrees = String(compared.agrees);
  const labels = (letter, n) => Array.from({ length: n }, (_, i) => `${letter}${i + 1}`);
  return heatmap.draw({
    weights: result.weights.slice(offset, offset + rows * cols), rows, cols, rowLabels: labels('q', rows), colLabels: labels('k', cols),
    links: [], colormap: $('colormap').value, title: `Attention weights of the playground (batch element ${shown})`,
  });
}

function draw(result, asked, heatmap) {
  if (asked.kind !== 'tokens') return drawTensors(result, asked, heatmap);
  const { output, weights, scores } = result;
  const { heads, shown } = asked;
  const offset = shown * LENGTH * LENGTH;
  showMatrix('scores', 'q', scores, LENGTH, LENGTH, offset, 3);
  const merged = merge(output, LENGTH, DIM, heads);  // the heads' outputs side by side again
  showMatrix('output', 'y', merged, LENGTH, DIM, 0, 4);
  const { projected } = asked;
  if (projected) {
    showMatrix('pg-q', 'q', projected.q, LENGTH, DIM);
    showMatrix('pg-k', 'k', projected.k, LENGTH, DIM);
    showMatrix('pg-v', 'v', projected.v, LENGTH, DIM);
    if (projected.wo) showMatrix('pg-final', 'y', matmul(merged, LENGTH, DIM, projected.wo, DIM), LENGTH, DIM);
  }
  return heatmap.draw({
    weights: weights.slice(offset, offset + LENGTH * LENGTH), rows: LENGTH, cols: LENGTH, rowLabels: NAMES, colLabels: NAMES,
    links: [], colormap: $('colormap').value, title: `Self-attention weights of the playground (head ${shown})`,
  });
}

// A problem: said in the playground's alert (or beside its control), and nothing stale stays.
function refuse(problem, heatmap) {
  heatmap.clear();
  for (const id of ['scores', 'output']) $(id).replaceChildren();
  for (const id of ['pg-ours', 'pg-theirs']) $(id).textContent = '';
  showSaid($('pg-verdict'), '');
  $('pg-theirs-figure').hidden = true;
  showSaid($('error'), saidBy(problem));  // text, never markup; the library's own words after a lead-in
  $('error').hidden = Boolean(problem.beside);
  for (const id of Object.values(BOXES)) $(id).setAttribute('aria-invalid', String(id === problem.box));
}

// The number controls the chosen set-up reads now: a problem shown beside one it no longer reads
// (D once the local window is off, the five tokens' valid length in a tensor set-up) is cleared.
function clearUnread() {
  const kind = SETUPS[setupName()].kind, local = kind !== 'softmax' && $('local').value !== 'none';
  const reads = (input) => {
    if (input.closest('#tokens')) return kind === 'tokens';
    return { 'temperature': true, 'half-width': local, 'valid-length': kind === 'tokens', 'show-head': kind === 'tokens', 'pg-show': kind !== 'tokens' }[input.id] ?? true;
  };
  for (const input of $('playground').querySelectorAll('input[type="number"]')) if (!reads(input)) showProblem(input, '');
}

async function update(run, heatmap) {
  clearUnread();
  let asked;
  try {
    asked = request();
  } catch (problem) {
    run.drop();  // an answer still on its way is for settings that are gone
    refuse(problem, heatmap);
    return;
  }
  const reply = await run({ type: asked.type, options: asked.options });
  if (reply.type === 'superseded') return;
  if (reply.type !== 'result') {
    refuse(reply.type === 'cancelled' ? { said: 'cancelled' } : reply, heatmap);
    return;
  }
  $('error').hidden = true;
  for (const id of Object.values(BOXES)) $(id).setAttribute('aria-invalid', 'false');
  await draw(reply.result, asked, heatmap);
}

/**
 * client: the module worker's WorkerClient, which computes the attention (tiny, but WebAssembly
 * instantiated on this thread would hold it for a long moment at start). beforeFirst(): called
 * once the token table exists, before the first update (the URL hash is read then); restoring():
 * true while the URL hash sets the controls (a set-up restored keeps the hash's tensors). Resolves
 * once the first weights are drawn.
 */
export function startPlayground(client, beforeFirst = () => {}, restoring = () => false) {
  buildTokenTable();
  buildMatrices(DIM);
  const select = $('playground-setup');
  for (const [name, setup] of Object.entries(SETUPS)) select.add(new Option(t(setup.label), name));
  beforeFirst();
  const heatmap = new Heatmap($('playground-heatmap'), { label: 'attention weights of the playground: queries as rows, keys as columns' });
  const run = latestOnly((message) => client.request(message));
  // Choosing a set-up puts its tensors in the boxes; a set-up restored from the URL hash keeps the hash's.
  select.addEventListener('input', () => (restoring() ? fillIfEmpty() : fillSetup(setupName())));
  fillIfEmpty();  // the URL hash's set-up, read by beforeFirst()
  for (const id of [...PLAYGROUND_CONTROLS, 'colormap']) $(id).addEventListener('input', () => update(run, heatmap));
  $('tokens').addEventListener('input', () => update(run, heatmap));
  $('pg-projections').addEventListener('input', () => update(run, heatmap));
  onLanguage(() => update(run, heatmap));  // its notes, captions and problems in the new language
  return update(run, heatmap);
}

export const PLAYGROUND_CONTROLS = ['score', 'probability', 'temperature', 'causal', 'valid-length', 'local', 'half-width', 'heads', 'show-head', 'pg-project',
  'playground-setup', ...Object.values(BOXES), 'pg-show'];

// The projections' four matrices as one value for the URL hash.
export const projectionsField = projectionField(DIM);

// The token table as one value for the URL hash: twenty numbers, comma-separated.
export const tokenField = {
  get: () => TOKENS.flatMap((token, i) => token.map((_, d) => $(`token-${i}-${d}`).value)).join(','),
  set: (text) => {
    const values = text.split(',');
    TOKENS.forEach((token, i) => token.forEach((_, d) => { $(`token-${i}-${d}`).value = values[i * DIM + d] ?? ''; }));
  },
  get element() { return $('tokens'); },
};
