// Tensors as the tutorials write them, for the playground: a nested list ([[1, 2], [3, 4]]) or
// the few PyTorch expressions their worked examples use (torch.ones((2, 1, 2)),
// torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1), torch.tensor([2, 6]),
// torch.normal(0, 1, (2, 1, 20)), torch.rand(2, 2, 4), torch.randn(2, 4)). Random ones come from a seeded
// generator, so a link reproduces them; their values are not PyTorch's. Pure (tests/js/playground.test.mjs).

import { message, problem } from './messages.mjs';
import { shortLabel } from './text.mjs';

export const MAX_ELEMENTS = 4096;
const MAX_DEPTH = 8;  // nested lists: the playground's tensors have at most 3 dimensions

const size = (shape) => shape.reduce((a, b) => a * b, 1);

function checkShape(shape, what) {
  if (!shape.length) throw problem('{what} needs a shape', { what });
  for (const n of shape) {
    if (!Number.isInteger(n) || n < 1) throw problem('{what}: every size must be a whole number of at least 1, got {size}', { what, size: n });
  }
  if (size(shape) > MAX_ELEMENTS) {
    throw problem('{what}: {shape} is {count} numbers, more than the playground\'s {most}', { what, shape: shape.join(' × '), count: size(shape), most: MAX_ELEMENTS });
  }
  return shape;
}

// A seeded generator of uniform numbers in [0, 1): the same sequence for the same text.
function uniform(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state / 2 ** 32;
  };
}

const TOKEN = /\s*(?:(-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)|([A-Za-z_][\w.]*)|(.))/iuy;

function tokenize(text) {
  const tokens = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m || m[0].trim() === '') break;
    if (m[1] !== undefined) tokens.push({ kind: 'number', value: Number(m[1]), at });
    else if (m[2] !== undefined) tokens.push({ kind: 'name', value: m[2], at });
    else tokens.push({ kind: 'punct', value: m[3], at });
  }
  return tokens;
}

class Parser {
  constructor(text, what) {
    this.tokens = tokenize(text);
    this.i = 0;
    this.what = message(what);  // the box's name, said in the reader's language
    this.random = uniform([...text].reduce((h, c) => Math.imul(h ^ c.codePointAt(0), 16777619), 2166136261));
  }

  /** @param {import('./messages.mjs').Message} said what is wrong (messages.mjs) @returns {never} */
  fail(said) {
    const token = this.tokens[this.i];
    if (!token) throw problem('{what}: {problem} at the end', { what: this.what, problem: said });
    // the text as the page shows labels: invisible and bidi characters as their code points
    const shown = shortLabel(String(token.value), 20).replace(/[\u2068\u2069]/g, '');
    throw problem('{what}: {problem} at “{text}” (character {at})', { what: this.what, problem: said, text: shown, at: token.at + 1 });
  }

  peek(value) { return this.tokens[this.i]?.value === value; }

  take(value) {
    if (!this.peek(value)) this.fail(message('“{text}” expected', { text: value }));
    this.i++;
  }

  /** @returns {number} */
  number() {
    const token = this.tokens[this.i];
    if (token?.kind !== 'number') this.fail('a number expected');
    this.i++;
    return Number(token.value);
  }

  // A nested list of numbers -> {shape, data}; every row the same length.
  list(depth = 1) {
    const start = this.i;
    if (depth > MAX_DEPTH) this.fail(message('lists nested more than {depth} deep', { depth: MAX_DEPTH }));
    this.take('[');
    const items = [];
    while (!this.peek(']')) {
      items.push(this.peek('[') ? this.list(depth + 1) : { shape: [], data: [this.number()] });
      if (this.i >= this.tokens.length) this.fail(message('“{text}” expected', { text: ']' }));
      if (!this.peek(']')) this.take(',');
    }
    this.take(']');
    if (!items.length) this.fail('an empty list has no shape');
    const inner = items[0].shape;
    if (items.some((item) => item.shape.join() !== inner.join())) {
      this.i = start;
      this.fail('rows of different lengths in the list');
    }
    const shape = [items.length, ...inner];
    if (size(shape) > MAX_ELEMENTS) this.fail(message('more than {most} numbers', { most: MAX_ELEMENTS }));
    return { shape, data: items.flatMap((item) => item.data) };
  }

  // Sizes: (2, 3), [2, 3], or 2, 3 as bare arguments (up to a keyword argument or the parenthesis).
  sizes() {
    const shape = [];
    if (this.peek('(') || this.peek('[')) {
      const close = this.peek('(') ? ')' : ']';
      this.i++;
      while (!this.peek(close)) {
        shape.push(this.number());
        if (!this.peek(close)) this.take(',');
      }
      this.take(close);
      return shape;
    }
    shape.push(this.number());
    while (this.peek(',') && this.tokens[this.i + 1]?.kind === 'number') {
      this.i++;
      shape.push(this.number());
    }
    return shape;
  }

  // Keyword arguments the examples pass and that change nothing here (dtype=torch.float32).
  keywords() {
    while (this.peek(',')) this.i++;
    while (this.tokens[this.i + 1]?.value === '=') {
      const name = this.tokens[this.i].value;
      if (name !== 'dtype' && name !== 'requires_grad') this.fail(message('the argument {name}= is not understood', { name }));
      this.i += 3;
      if (this.peek(',')) this.i++;
    }
  }

  call(name) {
    const fn = name.replace(/^(torch|np|numpy)\./, '');
    this.take('(');
    let tensor;
    if (fn === 'ones' || fn === 'zeros' || fn === 'rand') {
      const shape = checkShape(this.sizes(), this.what);
      const fill = fn === 'ones' ? () => 1 : fn === 'zeros' ? () => 0 : this.random;
      tensor = { shape, data: Array.from({ length: size(shape) }, fill) };
    } else if (fn === 'normal' || fn === 'randn') {
      let mean = 0, std = 1;  // randn: the standard normal
      if (fn === 'normal') {
        mean = this.number(); this.take(',');
        std = this.number(); this.take(',');
      }
      const shape = checkShape(this.sizes(), this.what);
      tensor = { shape, data: Array.from({ length: size(shape) }, () => mean + std * Math.sqrt(-2 * Math.log(1 - this.random())) * Math.cos(2 * Math.PI * this.random())) };
    } else if (fn === 'arange') {
      const args = [this.number()];
      while (this.peek(',') && this.tokens[this.i + 2]?.value !== '=') { this.i++; args.push(this.number()); }
      const [start, stop, step] = args.length === 1 ? [0, args[0], 1] : [args[0], args[1], args[2] ?? 1];
      if (!(step !== 0) || !Number.isFinite(step)) this.fail('arange needs a step other than 0');
      const count = Math.max(0, Math.ceil((stop - start) / step));
      checkShape([count], this.what);
      tensor = { shape: [count], data: Array.from({ length: count }, (_, k) => start + k * step) };
    } else if (fn === 'tensor' || fn === 'array' || fn === 'FloatTensor') {
      tensor = this.list();
    } else {
      this.fail(message('{name}() is not one of ones, zeros, arange, rand, randn, normal, tensor', { name }));
    }
    this.keywords();
    this.take(')');
    return tensor;
  }

  // tensor.reshape(...) / .view(...) / .repeat(...) / .float()
  method(tensor) {
    this.take('.');
    const token = this.tokens[this.i];
    if (token?.kind !== 'name') this.fail('a method name expected');
    this.i++;
    const name = token.value;
    this.take('(');
    let result = tensor;
    if (name === 'reshape' || name === 'view') {
      const shape = this.sizes();
      const asked = shape.join(', ');
      const cannot = () => this.fail(message('cannot reshape {shape} ({count} numbers) to ({asked})', { shape: tensor.shape.join(' × '), count: size(tensor.shape), asked }));
      if (shape.filter((n) => n === -1).length === 1) {
        const known = size(shape.filter((n) => n !== -1));
        if (known < 1 || size(tensor.shape) % known) cannot();
        shape[shape.indexOf(-1)] = size(tensor.shape) / known;
      }
      checkShape(shape, this.what);
      if (size(shape) !== size(tensor.shape)) cannot();
      result = { shape, data: tensor.data };
    } else if (name === 'repeat') {
      result = repeat(tensor, checkShape(this.sizes(), this.what), (said) => this.fail(said));
    } else if (name !== 'float') {
      this.fail(message('.{name}() is not one of reshape, view, repeat, float', { name }));
    }
    this.take(')');
    return result;
  }

  expression() {
    const token = this.tokens[this.i];
    let tensor;
    if (token?.value === '[') tensor = this.list();
    else if (token?.kind === 'name') { this.i++; tensor = this.call(token.value); }
    else if (token?.kind === 'number') {  // bare numbers: 2, 6
      const data = [this.number()];
      while (this.peek(',') && this.tokens[this.i + 1]?.kind === 'number') { this.i++; data.push(this.number()); }
      tensor = { shape: [data.length], data };
    }
    else this.fail('a list such as [[1, 2], [3, 4]] or torch.ones((2, 3)) expected');
    while (this.peek('.')) tensor = this.method(tensor);
    if (this.i < this.tokens.length) this.fail('unexpected text');
    return tensor;
  }
}

// PyTorch's repeat: the tensor tiled `times[d]` along each dimension (missing leading ones added).
function repeat(tensor, times, fail) {
  if (times.length < tensor.shape.length) fail(message('repeat needs at least {count} sizes', { count: tensor.shape.length }));
  const shape = [...Array(times.length - tensor.shape.length).fill(1), ...tensor.shape];
  const out = shape.map((n, d) => n * times[d]);
  if (size(out) > MAX_ELEMENTS) fail(message('more than {most} numbers', { most: MAX_ELEMENTS }));
  const data = new Array(size(out));
  const strides = shape.map((_, d) => size(shape.slice(d + 1)));
  for (let flat = 0; flat < data.length; flat++) {
    let rest = flat, source = 0;
    for (let d = out.length - 1; d >= 0; d--) {
      const index = rest % out[d];
      rest = Math.floor(rest / out[d]);
      source += (index % shape[d]) * strides[d];
    }
    data[flat] = tensor.data[source];
  }
  return { shape: out, data };
}

/**
 * text -> {shape, data: Float32Array}; `what` names the box in messages. Throws an Error that says
 * what is wrong and where (with its message for the page, messages.mjs).
 */
export function parseTensor(text, what = 'tensor') {
  if (!text.trim()) throw problem('{what} is empty', { what: message(what) });
  const { shape, data } = new Parser(text, what).expression();
  const floats = Float32Array.from(data);
  const bad = floats.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw problem('{what}: element {index} is not a finite number (in 32-bit floats)', { what: message(what), index: bad });
  return { shape, data: floats };
}

/** A tensor printed as PyTorch prints it: nested brackets, four decimals. */
export function formatTensor({ shape, data }, digits = 4) {
  const text = (x) => (Object.is(x, -0) ? 0 : x).toFixed(digits);
  const nest = (offset, d, indent) => {
    if (d === shape.length - 1) return `[${Array.from(data.slice(offset, offset + shape[d]), text).join(', ')}]`;
    const step = size(shape.slice(d + 1));
    const rows = Array.from({ length: shape[d] }, (_, i) => nest(offset + i * step, d + 1, `${indent} `));
    return `[${rows.join(`,${'\n'.repeat(shape.length - 1 - d)}${indent} `)}]`;
  };
  return nest(0, 0, '');
}
