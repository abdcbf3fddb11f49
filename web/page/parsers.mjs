// Parsers of the files the explorer reads, as pure functions (no DOM; the bring-your-own worker
// runs them, tests/js/parsers.test.mjs runs them under Node): attention tensors as .npy (numpy's
// format: float32, float64 or uint8, C order) or JSON ({ source: [...], target: [...], weights }),
// both 2-D [target][source] to 4-D [layers][heads][target][source] and every value finite, and
// gold alignments as a Pharaoh line. Each throws an Error that names what is wrong (with its
// message for the page to say in the reader's language, messages.mjs); nothing is reshaped or guessed.
import { english, message, problem } from './messages.mjs';

const DIMENSIONS = 'expected 2 ([target][source]) to 4 ([layers][heads][target][source])';

function checkDimensions(shape, what) {
  if (shape.length < 2 || shape.length > 4) {
    const params = { what, count: shape.length, shape: JSON.stringify(shape) };
    throw problem(shape.length === 1 ? `{what} has 1 dimension (shape {shape}); ${DIMENSIONS}` : `{what} has {count} dimensions (shape {shape}); ${DIMENSIONS}`, params);
  }
}

// [i, j, ...] of the flat index `index` in an array of `shape`.
export function position(index, shape) {
  const at = [];
  for (let k = shape.length - 1; k >= 0; k--) {
    at.unshift(index % shape[k]);
    index = Math.floor(index / shape[k]);
  }
  return `[${at.join(', ')}]`;
}

function checkFinite(data, shape, what) {
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) throw problem('{what} holds {value} at {at}; every weight must be a finite number', { what, value: data[i], at: position(i, shape) });
  }
}

// A .npy file (ArrayBuffer or bytes) -> { shape: [..], data: Float32Array }.
export function parseNpy(buffer) {
  const bytes = ArrayBuffer.isView(buffer) ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];  // \x93NUMPY
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw problem('not a .npy file (no \\x93NUMPY magic)');
  const major = bytes[6];  // version 1 counts the header's bytes in 2 bytes, later versions in 4
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = major === 1 ? 10 : 12;
  if (start > bytes.length) throw problem('truncated .npy header');
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (start + headerLength > bytes.length) throw problem('truncated .npy header');
  const header = new TextDecoder('latin1').decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw problem('unreadable .npy header');
  if (fortran === 'True') throw problem('Fortran-ordered .npy arrays are not supported; save with C order');
  const shape = shapeText.split(',').map((x) => x.trim()).filter(Boolean).map(Number);
  if (shape.some((d) => !Number.isInteger(d) || d < 1)) throw problem('bad .npy shape ({shape})', { shape: shapeText });
  checkDimensions(shape, message('the .npy array'));
  const count = shape.reduce((a, b) => a * b, 1);
  const readers = { '<f4': [4, (o) => view.getFloat32(o, true)], '<f8': [8, (o) => view.getFloat64(o, true)], '|u1': [1, (o) => view.getUint8(o)] };
  const reader = readers[descr];
  if (!reader) throw problem('unsupported .npy dtype {dtype} (use float32 or float64)', { dtype: descr });
  const offset = start + headerLength;
  if (offset + count * reader[0] > bytes.length) throw problem('truncated .npy data: {count} values of {dtype} expected', { count, dtype: descr });
  let data;
  if (descr === '<f4' && (bytes.byteOffset + offset) % 4 === 0) {  // numpy pads the header so that this is the usual case
    data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + count * 4));
  } else {
    data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = reader[1](offset + i * reader[0]);
  }
  checkFinite(data, shape, message('the .npy array'));
  return { shape, data };
}

// The values of nested arrays that must form one rectangular block, refused where one level is ragged.
function rectangular(weights) {
  const shape = [];
  for (let level = weights; Array.isArray(level); level = level[0]) shape.push(level.length);
  checkDimensions(shape, '"weights"');
  if (shape.includes(0)) throw problem('"weights" is empty (shape {shape})', { shape: JSON.stringify(shape) });
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  let next = 0;
  const walk = (node, depth, path) => {
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      const found = Array.isArray(node) ? message('{count} entries', { count: node.length }) : message('a {type}', { type: typeof node });
      const template = depth === shape.length - 1 ? '"weights" is not rectangular: {path} has {found} where {count} numbers were expected'
        : '"weights" is not rectangular: {path} has {found} where {count} arrays were expected';
      throw problem(template, { path, found, count: shape[depth] });
    }
    if (depth < shape.length - 1) {
      node.forEach((child, k) => walk(child, depth + 1, `${path}[${k}]`));
      return;
    }
    node.forEach((x, k) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) throw problem('{path} is {value}; every weight must be a finite number', { path: `${path}[${k}]`, value: JSON.stringify(x) });
      data[next++] = x;
    });
  };
  walk(weights, 0, 'weights');
  return { shape, data };
}

// { shape, data, source?, target? } from a JSON attention file: { source, target, weights }, or a
// line of `attn attentions` ({ source, target, cross: [layer][head][t][s], encoder, decoder }, whose
// encoder–decoder attention is read; a file of such lines gives its first).
export function parseAttentionJson(text) {
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const lines = text.split(/\r?\n/).filter((line) => line.trim());
    try {
      if (lines.length < 2) throw error;
      json = JSON.parse(lines[0]);  // JSON Lines, as attn attentions writes them
    } catch {
      throw problem('not valid JSON: {reason}', { reason: error.message });
    }
  }
  const weights = json && (Array.isArray(json.weights) ? json.weights : Array.isArray(json.cross) ? json.cross : null);
  if (!weights) throw problem('the JSON needs a "weights" array (or "cross", as attn attentions writes it)');
  const { shape, data } = rectangular(weights);
  const words = (name, count, axis) => {
    const given = json[name];
    if (given === undefined) return undefined;
    if (!Array.isArray(given) || !given.every((w) => typeof w === 'string')) throw problem('"{name}" must be an array of strings', { name });
    if (given.length !== count) throw problem('"{name}" has {words} words but "weights" has {count} {axis}', { name, words: given.length, count, axis: message(axis) });
    return given;
  };
  return { shape, data, source: words('source', shape.at(-1), 'columns'), target: words('target', shape.at(-2), 'rows') };
}

// A gold alignment file -> its first non-empty line, trimmed: Pharaoh links, 's-t' sure, 's?t' or 'spt' possible.
export function parseGoldLine(text) {
  return (text.split(/\r?\n/).find((line) => line.trim()) ?? '').trim();
}

// The [source, target] pairs of a Pharaoh line, sure and possible alike.
export function pharaohPairs(line) {
  return line.split(/\s+/).filter(Boolean).map((link) => link.split(/[-?p]/).map(Number));
}

// The first link outside a matrix of `cols` source and `rows` target words, as a sentence, or ''.
export const goldOutOfRange = (pairs, rows, cols) => english(goldOutside(pairs, rows, cols));

/** ... as a message (messages.mjs). @returns {import('./messages.mjs').Message} */
export function goldOutside(pairs, rows, cols) {
  const outside = pairs.find(([s, t]) => !(s >= 0 && s < cols && t >= 0 && t < rows));
  if (!outside) return '';
  return message('gold link {link} is outside the matrix shown (source words 0-{lastSource}, target words 0-{lastTarget})',
    { link: `${outside[0]}-${outside[1]}`, lastSource: cols - 1, lastTarget: rows - 1 });
}

// A gold file that covers much less of the matrix than the matrix holds was likely made for
// another one (a 6 × 7 sentence's gold scored against a 512 × 512 matrix): '' when its links reach
// the last rows and columns but for a few (unlinked end punctuation is usual), else why it looks so.
export const goldShapeNote = (pairs, rows, cols) => english(goldShape(pairs, rows, cols));

/** ... as a message (messages.mjs). @returns {import('./messages.mjs').Message} */
export function goldShape(pairs, rows, cols) {
  if (pairs.length === 0) return '';
  const reach = (index) => Math.max(...pairs.map((pair) => pair[index])) + 1;
  const sourceWords = reach(0), targetWords = reach(1);
  const short = (reached, size) => size - reached > Math.max(2, Math.floor(size / 10));
  if (!short(targetWords, rows) && !short(sourceWords, cols)) return '';
  return message('its links reach only {targetWords} target × {sourceWords} source words of this {rows} × {cols} matrix: ' +
    'made for another sentence or matrix, it scores nothing meaningful here', { targetWords, sourceWords, rows, cols });
}
