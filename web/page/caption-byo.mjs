// Bring your own captioner's attention: an image's words and their maps from any captioner, as
// .npy (numpy's format, [words][height][width], or [words][height * width] over a square grid) or
// JSON ({"words": [...], "attention": [[[...]]]}, "alphas" also read, or the bare nested array),
// the words from the JSON or typed. PyTorch's "Show, Attend and Tell" tutorial gives its alphas as
// [words][14][14] with the words they belong to (<start> and <end> included): np.save or
// json.dump them as they are. Pure: each problem is an Error that names it; nothing is guessed.
import { parseNpy, position } from './parsers.mjs';

export const MAX_GRID = 128;
const EXPECTED = '[words][height][width] (or [words][height × width] over a square grid)';

// A 2-D [words][cells] block over a square grid becomes [words][side][side].
function gridShape(shape, what) {
  if (shape.length === 2) {
    const side = Math.round(Math.sqrt(shape[1]));
    if (side * side !== shape[1]) throw new Error(`${what} has shape [${shape.join(', ')}]: ${shape[1]} cells a word is no square grid; save it as ${EXPECTED}`);
    return [shape[0], side, side];
  }
  if (shape.length !== 3) throw new Error(`${what} has ${shape.length} dimension${shape.length === 1 ? '' : 's'} (shape [${shape.join(', ')}]); expected ${EXPECTED}`);
  return shape;
}

// Every weight finite and not negative, and the grid of a sensible size.
function checkMaps(data, shape, what) {
  const [words, height, width] = shape;
  if (words < 1 || height < 1 || width < 1) throw new Error(`${what} is empty (shape [${shape.join(', ')}])`);
  if (height > MAX_GRID || width > MAX_GRID) throw new Error(`${what}'s grid is ${height} × ${width}: at most ${MAX_GRID} × ${MAX_GRID} cells a map`);
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) throw new Error(`${what} holds ${data[i]} at ${position(i, shape)}: every weight must be a finite number`);
    if (data[i] < 0) throw new Error(`${what} holds ${data[i]} at ${position(i, shape)}: attention weights are not negative`);
  }
}

// Nested arrays of numbers that form one block -> {shape, data}.
function block(nested, what) {
  const shape = [];
  for (let level = nested; Array.isArray(level); level = level[0]) shape.push(level.length);
  if (shape.length < 2 || shape.length > 3 || shape.includes(0)) {
    throw new Error(`${what} has shape [${shape.join(', ')}]; expected ${EXPECTED}`);
  }
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  let next = 0;
  const walk = (node, depth, path) => {
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      const found = Array.isArray(node) ? `${node.length} entries` : `a ${node === null ? 'null' : typeof node}`;
      throw new Error(`${what} is not a block: ${path} has ${found} where ${shape[depth]} ${depth === shape.length - 1 ? 'numbers' : 'arrays'} were expected`);
    }
    if (depth < shape.length - 1) {
      node.forEach((child, k) => walk(child, depth + 1, `${path}[${k}]`));
      return;
    }
    node.forEach((x, k) => {
      if (typeof x !== 'number') throw new Error(`${path}[${k}] is ${JSON.stringify(x)}: every weight must be a finite number`);
      data[next++] = x;
    });
  };
  walk(nested, 0, what === 'the JSON array' ? 'attention' : what.replace(/^"|"$/g, ''));
  return { shape, data };
}

/** The words typed: split at spaces; [] when none. */
export const typedWords = (text) => String(text ?? '').split(/\s+/).filter(Boolean);

/**
 * An attention file ({name, bytes: Uint8Array}) and the typed words -> {words, shape: [T, h, w],
 * data: Float32Array}. The typed words, when given, are used; else the JSON's "words".
 */
export function parseCaptionAttention({ name, bytes }, typed = []) {
  let parsed, fileWords = null;
  if (/\.npy$/i.test(name)) {
    try {
      parsed = parseNpy(bytes);
    } catch (error) {
      // parsers.mjs speaks of alignment matrices: a shape problem is said for maps over an image
      const shape = /shape (\[[^\]]*\])/.exec(error.message)?.[1];
      if (/dimension/.test(error.message) && shape) throw new Error(`the .npy array has shape ${shape.replace(/,/g, ', ')}; expected ${EXPECTED}`, { cause: error });
      throw error;
    }
  } else if (/\.json$/i.test(name)) {
    let json;
    try {
      json = JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      throw new Error(`not valid JSON: ${error.message}`, { cause: error });
    }
    const nested = Array.isArray(json) ? json : json?.attention ?? json?.alphas;
    if (!Array.isArray(nested)) throw new Error('the JSON needs an "attention" array (or "alphas"), [words][height][width]');
    const what = Array.isArray(json) ? 'the JSON array' : `"${json.attention ? 'attention' : 'alphas'}"`;
    parsed = block(nested, what);
    if (!Array.isArray(json) && json.words !== undefined) {
      if (!Array.isArray(json.words) || !json.words.every((w) => typeof w === 'string')) throw new Error('"words" must be an array of strings');
      fileWords = json.words;
    }
  } else {
    throw new Error(`${name}: an attention file is .npy or .json`);
  }
  const what = /\.npy$/i.test(name) ? 'the .npy array' : 'the attention';
  const shape = gridShape(parsed.shape, what);
  checkMaps(parsed.data, shape, what);
  const words = typed.length ? typed : fileWords;
  if (!words) throw new Error(`${name} holds ${shape[0]} maps but no words: type the caption's ${shape[0]} words (one a map)`);
  if (words.length !== shape[0]) {
    throw new Error(`${words.length} word${words.length === 1 ? '' : 's'} (${typed.length ? 'typed' : `${name}'s "words"`}) but ${shape[0]} map${shape[0] === 1 ? '' : 's'} in ${name}: one word a map`);
  }
  return { words, shape, data: parsed.data };
}
