// The playground's set-ups (web/page/playground-setups.mjs) and the tensors they are written in
// (web/page/tensors.mjs): the PyTorch expressions of the tutorials parsed as PyTorch reads them, bad
// text refused with the box and the place named, and every d2l set-up, run through the module in
// both builds, printing what d2l printed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SETUPS, compareWithPublished, parameters, tensorRequest } from '../../web/page/playground-setups.mjs';
import { MAX_ELEMENTS, formatTensor, parseTensor } from '../../web/page/tensors.mjs';
import { forEachBuild } from './helpers.mjs';

const CONTROLS = { score: 'scaled_dot', probability: 'softmax', temperature: 1, causal: false, local: 'none', halfWidth: 1 };
const plain = ({ shape, data }) => ({ shape, data: Array.from(data) });

describe('tensors as the tutorials write them', () => {
  it('reads lists and the PyTorch expressions of the worked examples', () => {
    assert.deepEqual(plain(parseTensor('[[1, 2.5], [-3, 4e-1]]')), { shape: [2, 2], data: [1, 2.5, -3, 0.4000000059604645] });
    assert.deepEqual(plain(parseTensor('torch.ones((2, 1, 2))')), { shape: [2, 1, 2], data: [1, 1, 1, 1] });
    assert.deepEqual(plain(parseTensor('zeros(3)')), { shape: [3], data: [0, 0, 0] });
    assert.deepEqual(plain(parseTensor('torch.tensor([2, 6])')), { shape: [2], data: [2, 6] });
    assert.deepEqual(plain(parseTensor('2, 6')), { shape: [2], data: [2, 6] });
    assert.deepEqual(plain(parseTensor('torch.arange(2, 8, 2)')), { shape: [3], data: [2, 4, 6] });
    assert.deepEqual(plain(parseTensor('arange(6).reshape(-1, 3)')), { shape: [2, 3], data: [0, 1, 2, 3, 4, 5] });
  });

  it('repeats as PyTorch does: tiles along each dimension, leading ones added', () => {
    const v = parseTensor('torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)');
    assert.deepEqual(v.shape, [2, 10, 4]);
    assert.deepEqual(Array.from(v.data.slice(36, 44)), [36, 37, 38, 39, 0, 1, 2, 3]);
    assert.deepEqual(plain(parseTensor('tensor([1, 2]).repeat(2, 2)')), { shape: [2, 4], data: [1, 2, 1, 2, 1, 2, 1, 2] });
  });

  it('draws the same random numbers for the same text, in [0, 1) for rand', () => {
    const a = parseTensor('torch.rand(2, 2, 4)'), b = parseTensor('torch.rand(2, 2, 4)');
    assert.deepEqual(a.data, b.data);
    assert.ok(a.data.every((x) => x >= 0 && x < 1));
    assert.notDeepEqual(Array.from(parseTensor('torch.rand(2, 2, 4) ').data), Array.from(parseTensor('rand(2, 2, 4)').data));
    assert.ok(parseTensor('torch.normal(0, 1, (2, 1, 20))').data.every(Number.isFinite));
    const standard = parseTensor('torch.randn(400)').data;  // the standard normal, seeded like the others
    assert.deepEqual(Array.from(standard), Array.from(parseTensor('torch.randn(400)').data));
    const mean = standard.reduce((x, y) => x + y, 0) / 400, spread = Math.sqrt(standard.reduce((x, y) => x + (y - mean) ** 2, 0) / 400);
    assert.ok(Math.abs(mean) < 0.2 && Math.abs(spread - 1) < 0.2, `mean ${mean}, standard deviation ${spread}`);
    assert.deepEqual(parseTensor('torch.randn((2, 3))').shape, [2, 3]);
  });

  it('refuses what it cannot read, naming the box and the place', () => {
    const refused = (text, pattern) => assert.throws(() => parseTensor(text, 'keys'), pattern, text);
    refused('', /^Error: keys is empty/);
    refused('[[1, 2], [3]]', /keys: rows of different lengths/);
    refused('[1, 2', /keys: “\]” expected at the end/);
    refused('[]', /keys: an empty list has no shape/);
    refused('torch.eye(3)', /keys: torch\.eye\(\) is not one of/);
    refused('ones(2, 3).transpose(0, 1)', /keys: \.transpose\(\) is not one of/);
    refused('arange(3).reshape(2, 2)', /keys: cannot reshape 3 \(3 numbers\) to \(2, 2\)/);
    refused('ones(0, 2)', /keys: every size must be a whole number of at least 1, got 0/);
    refused('ones(100, 100)', new RegExp(`keys: 100 × 100 is 10000 numbers, more than the playground's ${MAX_ELEMENTS}`));
    refused('ones(2, device=cuda)', /keys: the argument device= is not understood/);
    refused('[1, 2] junk', /keys: unexpected text at “junk”/);
    refused('[1e39]', /keys: element 0 is not a finite number/);
    refused('arange(4).reshape(-1, 3)', /keys: cannot reshape 4 \(4 numbers\) to \(-1, 3\)/);
    refused('['.repeat(10000), /keys: lists nested more than 8 deep/);
    // hostile text comes back as the page shows labels: a lone emoji whole, bidi and invisible characters as code points
    assert.throws(() => parseTensor('😀[1]', 'keys'), (error) => error.message.includes('“😀”') && !/[\ud800-\udfff](?![\udc00-\udfff])/.test(error.message.replace('😀', '')));
    assert.throws(() => parseTensor('[1,\u202e2]', 'keys'), (error) => !error.message.includes('\u202e') && error.message.includes('U+202E'));
    assert.throws(() => parseTensor('[1,\u200b2]', 'keys'), (error) => error.message.includes('U+200B'));
  });

  it('prints tensors as PyTorch does', () => {
    assert.equal(formatTensor({ shape: [2, 1, 2], data: [2, 3, -0, 1.23456] }), '[[[2.0000, 3.0000]],\n\n [[0.0000, 1.2346]]]');
  });
});

describe('set-ups: the request their boxes describe', () => {
  const texts = (name) => ({ queries: '', keys: '', values: '', x: '', validLengths: '', ...SETUPS[name].texts });

  it('maps a batch onto heads, with a valid length per element or per row', () => {
    const request = tensorRequest('attention', texts('d2l-dot'), CONTROLS);
    assert.equal(request.type, 'attention');
    const { heads, queryLength, keyLength, dim, keyDim, valueDim, validLength } = request.options;
    assert.deepEqual({ heads, queryLength, keyLength, dim, keyDim, valueDim }, { heads: 2, queryLength: 1, keyLength: 10, dim: 2, keyDim: 2, valueDim: 4 });
    assert.deepEqual(Array.from(validLength), [2, 6]);
    const rows = tensorRequest('softmax', texts('d2l-masked-softmax-rows'), CONTROLS);
    assert.deepEqual(Array.from(rows.options.validLength), [1, 3, 2, 4]);
  });

  it('broadcasts a batch of one, as the values of d2l\'s example before repeat()', () => {
    const request = tensorRequest('attention', { ...texts('d2l-dot'), values: 'arange(40).reshape(1, 10, 4)' }, CONTROLS);
    assert.deepEqual(Array.from(request.options.value.slice(40, 44)), [0, 1, 2, 3]);
  });

  it('refuses shapes that do not fit, naming what is wrong and which box', () => {
    const refused = (changes, pattern, field) => assert.throws(() => tensorRequest('attention', { ...texts('d2l-dot'), ...changes }, CONTROLS),
      (error) => pattern.test(error.message) && error.field === field, `${pattern} in ${field}`);
    refused({ values: 'ones(2, 9, 4)' }, /keys have 10 rows and values 9: one value per key is needed/, 'values');
    refused({ keys: 'ones(3, 10, 2)' }, /queries has a batch of 2 where the others have 3/, 'queries');
    refused({ queries: 'ones(2)' }, /queries must have 2 or 3 dimensions/, 'queries');
    refused({ keys: 'ones(2, 10' }, /keys: “\)” expected/, 'keys');
    refused({ keys: '' }, /keys is empty/, 'keys');
    refused({ validLengths: '2, 6, 1' }, /valid lengths: 3 given; one per batch element \(2\) or one per row \(2 × 1\) is needed/, 'validLengths');
    refused({ validLengths: '2, 11' }, /valid lengths must be whole numbers from 0 to 10 \(the number of keys\), got 11/, 'validLengths');
    refused({ validLengths: '2, 1.5' }, /got 1\.5/, 'validLengths');
    assert.throws(() => tensorRequest('softmax', { ...texts('d2l-masked-softmax'), x: '[[1, 2], [3]]' }, CONTROLS), (error) => error.field === 'x');
  });

});

forEachBuild('the playground\'s d2l set-ups print what d2l printed', (attn) => {
  const run = (name, controls = CONTROLS) => {
    const setup = SETUPS[name];
    const request = tensorRequest(setup.kind, { queries: '', keys: '', values: '', x: '', validLengths: '', ...setup.texts }, { ...controls, ...(setup.score ? { score: setup.score } : {}) });
    const output = request.type === 'attention' ? attn.attention(request.options).output : attn.maskedSoftmax(request.options);
    return { setup, output, compared: compareWithPublished(setup, output, request) };
  };

  for (const name of ['d2l-dot', 'd2l-additive']) {
    it(`${name}: [[[2, 3, 4, 5]], [[10, 11, 12, 13]]]`, () => {
      const { output, compared } = run(name);
      Array.from(output).forEach((x, i) => assert.ok(Math.abs(x - [2, 3, 4, 5, 10, 11, 12, 13][i]) < 1e-4, `${i}: ${x}`));
      assert.equal(compared.agrees, true);
      assert.match(compared.verdict, /^The same as the tutorial's output/);
      assert.equal(compared.ours, compared.theirs);
    });
  }

  it('says so when the output is not the tutorial\'s (keys made different)', () => {
    const setup = SETUPS['d2l-dot'];
    const request = tensorRequest('attention', { ...setup.texts, keys: 'arange(40).reshape(2, 10, 2)', x: '' }, CONTROLS);
    const compared = compareWithPublished(setup, attn.attention(request.options).output, request);
    assert.equal(compared.agrees, false);
    assert.match(compared.verdict, /^Not the tutorial's output: the largest difference is \d/);
  });

  for (const name of ['d2l-masked-softmax', 'd2l-masked-softmax-rows']) {
    it(`${name}: zero past each valid length, rows summing to 1`, () => {
      const { output, compared } = run(name);
      assert.equal(compared.agrees, true, compared.verdict);
      const keep = name === 'd2l-masked-softmax' ? [2, 2, 3, 3] : [1, 3, 2, 4];
      keep.forEach((k, row) => {
        const w = output.subarray(row * 4, row * 4 + 4);
        assert.ok(w.every((x, c) => (c >= k ? x === 0 : x > 0)), `row ${row}: ${Array.from(w)}`);
      });
    });
  }

  it('a valid length of 0 gives rows of zeros (the library\'s rule for a row with no valid key), which the rule accepts', () => {
    const setup = SETUPS['d2l-masked-softmax'];
    const request = tensorRequest('softmax', { ...setup.texts, validLengths: '0, 3' }, CONTROLS);
    const weights = attn.maskedSoftmax(request.options);
    assert.ok(weights.subarray(0, 8).every((x) => x === 0));
    assert.equal(compareWithPublished(setup, weights, request).agrees, true);
  });

  it('a rule-checked set-up notices weight past a valid length it no longer has', () => {
    const setup = SETUPS['d2l-masked-softmax'];
    const request = tensorRequest('softmax', { ...setup.texts, validLengths: '4, 4' }, CONTROLS);
    const compared = compareWithPublished(setup, attn.maskedSoftmax(request.options), { ...request, options: { validLength: Int32Array.from([2, 3]) } });
    assert.equal(compared.agrees, false);
  });

  it('the five-token parameters are the same seeded weights as before (d = keyDim = 4, 4 hidden units)', () => {
    const p = parameters(4, 4, 4);
    assert.equal(p.general.weight.length, 16);
    assert.equal(p.additive.queryWeight.length, 16);
    assert.ok(Math.abs(p.general.weight[0] - ((1013904223 + 1664525) / 2 ** 32 * 2 - 1)) < 1e-6);
  });
});
