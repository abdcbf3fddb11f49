// Parsers of the files the explorer reads, as pure functions (no DOM; the bring-your-own worker
// runs them, tests/js/parsers.test.mjs runs them under Node): attention tensors as .npy (numpy's
// format: float32, float64 or uint8, C order) or JSON ({ source: [...], target: [...], weights }),
// both 2-D [target][source] to 4-D [layers][heads][target][source] and every value finite, and
// gold alignments as a Pharaoh line. Each throws an Error that names what is wrong; nothing is
// reshaped or guessed.

const DIMENSIONS = '2 ([target][source]) to 4 ([layers][heads][target][source])';

function checkDimensions(shape, what) {
  if (shape.length < 2 || shape.length > 4) {
    throw new Error(`${what} has ${shape.length} dimension${shape.length === 1 ? '' : 's'} (shape ${JSON.stringify(shape)}); expected ${DIMENSIONS}`);
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
    if (!Number.isFinite(data[i])) throw new Error(`${what} holds ${data[i]} at ${position(i, shape)}; every weight must be a finite number`);
  }
}

// A .npy file (ArrayBuffer or bytes) -> { shape: [..], data: Float32Array }.
export function parseNpy(buffer) {
  const bytes = ArrayBuffer.isView(buffer) ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];  // \x93NUMPY
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error('not a .npy file (no \\x93NUMPY magic)');
  const major = bytes[6];  // version 1 counts the header's bytes in 2 bytes, later versions in 4
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = major === 1 ? 10 : 12;
  if (start > bytes.length) throw new Error('truncated .npy header');
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (start + headerLength > bytes.length) throw new Error('truncated .npy header');
  const header = new TextDecoder('latin1').decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw new Error('unreadable .npy header');
  if (fortran === 'True') throw new Error('Fortran-ordered .npy arrays are not supported; save with C order');
  const shape = shapeText.split(',').map((x) => x.trim()).filter(Boolean).map(Number);
  if (shape.some((d) => !Number.isInteger(d) || d < 1)) throw new Error(`bad .npy shape (${shapeText})`);
  checkDimensions(shape, 'the .npy array');
  const count = shape.reduce((a, b) => a * b, 1);
  const readers = { '<f4': [4, (o) => view.getFloat32(o, true)], '<f8': [8, (o) => view.getFloat64(o, true)], '|u1': [1, (o) => view.getUint8(o)] };
  const reader = readers[descr];
  if (!reader) throw new Error(`unsupported .npy dtype ${descr} (use float32 or float64)`);
  const offset = start + headerLength;
  if (offset + count * reader[0] > bytes.length) throw new Error(`truncated .npy data: ${count} values of ${descr} expected`);
  let data;
  if (descr === '<f4' && (bytes.byteOffset + offset) % 4 === 0) {  // numpy pads the header so that this is the usual case
    data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + count * 4));
  } else {
    data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = reader[1](offset + i * reader[0]);
  }
  checkFinite(data, shape, 'the .npy array');
  return { shape, data };
}

// The values of nested arrays that must form one rectangular block, refused where one level is ragged.
function rectangular(weights) {
  const shape = [];
  for (let level = weights; Array.isArray(level); level = level[0]) shape.push(level.length);
  checkDimensions(shape, '"weights"');
  if (shape.includes(0)) throw new Error(`"weights" is empty (shape ${JSON.stringify(shape)})`);
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  let next = 0;
  const walk = (node, depth, path) => {
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      const found = Array.isArray(node) ? `${node.length} entries` : `a ${typeof node}`;
      throw new Error(`"weights" is not rectangular: ${path} has ${found} where ${shape[depth]} ${depth === shape.length - 1 ? 'numbers' : 'arrays'} were expected`);
    }
    if (depth < shape.length - 1) {
      node.forEach((child, k) => walk(child, depth + 1, `${path}[${k}]`));
      return;
    }
    node.forEach((x, k) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`${path}[${k}] is ${JSON.stringify(x)}; every weight must be a finite number`);
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
      throw new Error(`not valid JSON: ${error.message}`);
    }
  }
  const weights = json && (Array.isArray(json.weights) ? json.weights : Array.isArray(json.cross) ? json.cross : null);
  if (!weights) throw new Error('the JSON needs a "weights" array (or "cross", as attn attentions writes it)');
  const { shape, data } = rectangular(weights);
  const words = (name, count, axis) => {
    const given = json[name];
    if (given === undefined) return undefined;
    if (!Array.isArray(given) || !given.every((w) => typeof w === 'string')) throw new Error(`"${name}" must be an array of strings`);
    if (given.length !== count) throw new Error(`"${name}" has ${given.length} words but "weights" has ${count} ${axis}`);
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
export function goldOutOfRange(pairs, rows, cols) {
  const outside = pairs.find(([s, t]) => !(s >= 0 && s < cols && t >= 0 && t < rows));
  if (!outside) return '';
  return `gold link ${outside[0]}-${outside[1]} is outside the matrix shown (source words 0-${cols - 1}, target words 0-${rows - 1})`;
}

// A gold file that covers much less of the matrix than the matrix holds was likely made for
// another one (a 6 × 7 sentence's gold scored against a 512 × 512 matrix): '' when its links reach
// the last rows and columns but for a few (unlinked end punctuation is usual), else why it looks so.
export function goldShapeNote(pairs, rows, cols) {
  if (pairs.length === 0) return '';
  const reach = (index) => Math.max(...pairs.map((pair) => pair[index])) + 1;
  const sourceWords = reach(0), targetWords = reach(1);
  const short = (reached, size) => size - reached > Math.max(2, Math.floor(size / 10));
  if (!short(targetWords, rows) && !short(sourceWords, cols)) return '';
  return `its links reach only ${targetWords} target × ${sourceWords} source words of this ${rows} × ${cols} matrix: ` +
    'made for another sentence or matrix, it scores nothing meaningful here';
}
