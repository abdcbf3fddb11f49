// Parsers of the files the explorer reads, as pure functions (no DOM; tests/js/parsers.test.mjs
// runs them under Node): attention matrices as .npy (numpy's format: float32, float64 or uint8,
// C order) or JSON ({ source: [...], target: [...], weights: [[...]] },
// weights 2-D to 4-D), and gold alignments as a Pharaoh line. Each throws an Error saying what is wrong.

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

// A gold alignment file -> its first non-empty line, trimmed: Pharaoh links, 's-t' sure, 's?t' possible.
export function parseGoldLine(text) {
  return (text.split(/\r?\n/).find((line) => line.trim()) ?? '').trim();
}

// The [source, target] pairs of a Pharaoh line, sure and possible alike.
export function pharaohPairs(line) {
  return line.split(/\s+/).filter(Boolean).map((link) => link.split(/[-?]/).map(Number));
}
