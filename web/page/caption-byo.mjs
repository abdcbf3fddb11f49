// Bring your own captioner's attention: an image's words and their maps from any captioner, as
// .npy (numpy's format, [words][height][width], or [words][height * width] over a square grid) or
// JSON ({"words": [...], "attention": [[[...]]]}, "alphas" also read, or the bare nested array),
// the words from the JSON or typed. PyTorch's "Show, Attend and Tell" tutorial gives its alphas as
// [words][14][14] with the words they belong to (<start> and <end> included): np.save or
// json.dump them as they are. Pure: each problem is an Error that names it; nothing is guessed.
import { message, problem } from './messages.mjs';
import { parseNpy, position } from './parsers.mjs';

export const MAX_GRID = 128;
const EXPECTED = message('[words][height][width] (or [words][height × width] over a square grid)');
// what a problem is in (English text, e.g. 'the .npy array'), said in the reader's language
const named = (what) => message(what);
const shapeOf = (shape) => `[${shape.join(', ')}]`;

// A 2-D [words][cells] block over a square grid becomes [words][side][side].
function gridShape(shape, what) {
  if (shape.length === 2) {
    const side = Math.round(Math.sqrt(shape[1]));
    if (side * side !== shape[1]) throw problem('{what} has shape {shape}: {cells} cells a word is no square grid; save it as {expected}', { what: named(what), shape: shapeOf(shape), cells: shape[1], expected: EXPECTED });
    return [shape[0], side, side];
  }
  if (shape.length !== 3) {
    throw problem(shape.length === 1 ? '{what} has 1 dimension (shape {shape}); expected {expected}' : '{what} has {count} dimensions (shape {shape}); expected {expected}',
      { what: named(what), count: shape.length, shape: shapeOf(shape), expected: EXPECTED });
  }
  return shape;
}

// Every weight finite and not negative, and the grid of a sensible size.
function checkMaps(data, shape, what) {
  const [words, height, width] = shape;
  if (words < 1 || height < 1 || width < 1) throw problem('{what} is empty (shape {shape})', { what: named(what), shape: shapeOf(shape) });
  if (height > MAX_GRID || width > MAX_GRID) throw problem("{what}'s grid is {height} × {width}: at most {most} × {most} cells a map", { what: named(what), height, width, most: MAX_GRID });
  for (let i = 0; i < data.length; i++) {
    const at = () => ({ what: named(what), value: data[i], at: position(i, shape) });
    if (!Number.isFinite(data[i])) throw problem('{what} holds {value} at {at}: every weight must be a finite number', at());
    if (data[i] < 0) throw problem('{what} holds {value} at {at}: attention weights are not negative', at());
  }
}

// Nested arrays of numbers that form one block -> {shape, data}.
function block(nested, what) {
  const shape = [];
  for (let level = nested; Array.isArray(level); level = level[0]) shape.push(level.length);
  if (shape.length < 2 || shape.length > 3 || shape.includes(0)) {
    throw problem('{what} has shape {shape}; expected {expected}', { what: named(what), shape: shapeOf(shape), expected: EXPECTED });
  }
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  let next = 0;
  const walk = (node, depth, path) => {
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      const found = Array.isArray(node) ? message('{count} entries', { count: node.length }) : message('a {type}', { type: node === null ? 'null' : typeof node });
      const template = depth === shape.length - 1 ? '{what} is not a block: {path} has {found} where {count} numbers were expected'
        : '{what} is not a block: {path} has {found} where {count} arrays were expected';
      throw problem(template, { what: named(what), path, found, count: shape[depth] });
    }
    if (depth < shape.length - 1) {
      node.forEach((child, k) => walk(child, depth + 1, `${path}[${k}]`));
      return;
    }
    node.forEach((x, k) => {
      if (typeof x !== 'number') throw problem('{path} is {value}: every weight must be a finite number', { path: `${path}[${k}]`, value: JSON.stringify(x) });
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
      if (/dimension/.test(error.message) && shape) throw problem('{what} has shape {shape}; expected {expected}', { what: named('the .npy array'), shape: shape.replace(/,/g, ', '), expected: EXPECTED }, { cause: error });
      throw error;
    }
  } else if (/\.json$/i.test(name)) {
    let json;
    try {
      json = JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      throw problem('not valid JSON: {problem}', { problem: error.message }, { cause: error });
    }
    const nested = Array.isArray(json) ? json : json?.attention ?? json?.alphas;
    if (!Array.isArray(nested)) throw problem('the JSON needs an "attention" array (or "alphas"), [words][height][width]');
    const what = Array.isArray(json) ? 'the JSON array' : `"${json.attention ? 'attention' : 'alphas'}"`;
    parsed = block(nested, what);
    if (!Array.isArray(json) && json.words !== undefined) {
      if (!Array.isArray(json.words) || !json.words.every((w) => typeof w === 'string')) throw problem('"words" must be an array of strings');
      fileWords = json.words;
    }
  } else {
    throw problem('{file}: an attention file is .npy or .json', { file: name });
  }
  const what = /\.npy$/i.test(name) ? 'the .npy array' : 'the attention';
  const shape = gridShape(parsed.shape, what);
  checkMaps(parsed.data, shape, what);
  const words = typed.length ? typed : fileWords;
  if (!words) throw problem("{file} holds {count} maps but no words: type the caption's {count} words (one a map)", { file: name, count: shape[0] });
  if (words.length !== shape[0]) {
    const counted = (count, one, many) => (count === 1 ? message(one) : message(many, { count }));
    throw problem('{words} ({from}) but {maps} in {file}: one word a map', {
      words: counted(words.length, '1 word', '{count} words'), from: typed.length ? message('typed') : message('{file}\'s "words"', { file: name }),
      maps: counted(shape[0], '1 map', '{count} maps'), file: name,
    });
  }
  return { words, shape, data: parsed.data };
}
