// The page's parsers (web/page/parsers.mjs) and its matrix reshaping (web/page/matrices.mjs) under Node:
// pure functions, no browser. Expected values are worked out by hand from the inputs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hideSpecial, mergeSubwords, restNote, restShare, selectMatrix, wordsOf } from '../../web/page/matrices.mjs';
import { goldOutOfRange, goldShapeNote, parseAttentionJson, parseGoldLine, parseNpy, pharaohPairs } from '../../web/page/parsers.mjs';
import { npy } from './npy.mjs';

const near = (actual, expected, label) => {
  assert.equal(actual.length, expected.length, label);
  expected.forEach((x, i) => assert.ok(Math.abs(actual[i] - x) < 1e-6, `${label}[${i}]: ${actual[i]} vs ${x}`));
};

describe('parseNpy', () => {
  it('reads a float32 array with its shape, from bytes or from an ArrayBuffer', () => {
    const values = [0.5, 0.25, 0.125, 1, 2, 3];
    const file = npy([2, 3], values);
    for (const input of [file, file.buffer.slice(file.byteOffset, file.byteOffset + file.length)]) {
      const { shape, data } = parseNpy(input);
      assert.deepEqual(shape, [2, 3]);
      assert.ok(data instanceof Float32Array);
      assert.deepEqual(Array.from(data), values);
    }
  });

  it('reads float64 and uint8 arrays, and version 2 headers, as float32', () => {
    assert.deepEqual(Array.from(parseNpy(npy([1, 3], [0.1, 0.2, 0.7], { descr: '<f8' })).data), [0.1, 0.2, 0.7].map(Math.fround));
    assert.deepEqual(Array.from(parseNpy(npy([2, 2], [0, 1, 255, 7], { descr: '|u1' })).data), [0, 1, 255, 7]);
    const four = parseNpy(npy([1, 2, 1, 2], [1, 2, 3, 4], { version: 2 }));
    assert.deepEqual(four.shape, [1, 2, 1, 2]);
    assert.deepEqual(Array.from(four.data), [1, 2, 3, 4]);
  });

  it('refuses what it cannot read, saying why', () => {
    const good = npy([2, 2], [1, 2, 3, 4]);
    assert.throws(() => parseNpy(Buffer.from('not numpy at all')), /not a \.npy file/);
    assert.throws(() => parseNpy(good.subarray(0, 40)), /truncated \.npy header/);
    assert.throws(() => parseNpy(good.subarray(0, good.length - 1)), /truncated \.npy data: 4 values of <f4 expected/);
    const edit = (from, to) => Buffer.from(good.toString('latin1').replace(from, to), 'latin1');
    assert.throws(() => parseNpy(edit("'fortran_order': False", "'fortran_order': True ")), /Fortran-ordered/);
    assert.throws(() => parseNpy(edit("'<f4'", "'<i4'")), /unsupported \.npy dtype <i4/);
    assert.throws(() => parseNpy(edit("(2, 2)", "(2, 0)")), /bad \.npy shape/);
    assert.throws(() => parseNpy(edit("'shape'", "'shapf'")), /unreadable \.npy header/);
  });

  it('refuses what cannot be drawn: fewer than 2 or more than 4 dimensions, NaN or infinite values', () => {
    assert.throws(() => parseNpy(npy([4], [1, 2, 3, 4])), /the \.npy array has 1 dimension \(shape \[4\]\); expected 2 \(\[target\]\[source\]\) to 4/);
    assert.throws(() => parseNpy(npy([1, 1, 1, 2, 2], [1, 2, 3, 4])), /has 5 dimensions \(shape \[1,1,1,2,2\]\)/);
    assert.throws(() => parseNpy(npy([2, 2], [0.5, 0.5, NaN, 0.5])), /holds NaN at \[1, 0\]; every weight must be a finite number/);
    assert.throws(() => parseNpy(npy([1, 2, 2], [0.5, 0.5, 0.5, Infinity], { descr: '<f8' })), /holds Infinity at \[0, 1, 1\]/);
  });
});

describe('parseAttentionJson', () => {
  it('reads the lines of attn attentions: the cross-attention of every layer and head, the first line of many', () => {
    const line = { source: ['a', 'b'], target: ['x'], cross: [[[[0.25, 0.75]], [[0.5, 0.5]]]], encoder: [[[[1, 0], [0, 1]]]] };
    const parsed = parseAttentionJson(JSON.stringify(line));
    assert.deepEqual(parsed.shape, [1, 2, 1, 2]);
    assert.deepEqual(Array.from(parsed.data), [0.25, 0.75, 0.5, 0.5]);
    assert.deepEqual(parsed.source, ['a', 'b']);
    assert.deepEqual(parsed.target, ['x']);
    const lines = `${JSON.stringify(line)}\n${JSON.stringify({ ...line, target: ['y'] })}\n`;
    assert.deepEqual(parseAttentionJson(lines).target, ['x']);
    assert.throws(() => parseAttentionJson(JSON.stringify({ source: ['a'], target: ['x'], cross: [[[[1, 0]]]] })), /"source" has 1 words/);
  });

  it('reads 2-D to 4-D weights with the words of both sentences', () => {
    const parsed = parseAttentionJson(JSON.stringify({ source: ['a', 'b'], target: ['x'], weights: [[0.25, 0.75]] }));
    assert.deepEqual(parsed.shape, [1, 2]);
    assert.deepEqual(Array.from(parsed.data), [0.25, 0.75]);
    assert.deepEqual([parsed.source, parsed.target], [['a', 'b'], ['x']]);
    const four = parseAttentionJson(JSON.stringify({ weights: [[[[1], [0]], [[0], [1]]]] }));
    assert.deepEqual(four.shape, [1, 2, 2, 1]);
    assert.equal(four.source, undefined);
  });

  it('refuses invalid JSON, missing or ragged weights, non-numbers and words that are not strings', () => {
    assert.throws(() => parseAttentionJson('{"weights": '), /not valid JSON/);
    assert.throws(() => parseAttentionJson('{"weights": \n[[1]]'), /not valid JSON/);
    assert.throws(() => parseAttentionJson('{"w": [[1]]}'), /needs a "weights" array/);
    assert.throws(() => parseAttentionJson('{"weights": [[1, 2], [3]]}'), /"weights" is not rectangular: weights\[1\] has 1 entries where 2 numbers were expected/);
    assert.throws(() => parseAttentionJson('{"weights": [[1, "2"]]}'), /weights\[0\]\[1\] is "2"; every weight must be a finite number/);
    assert.throws(() => parseAttentionJson('{"weights": [[1]], "source": ["a", 2]}'), /"source" must be an array of strings/);
  });

  it('refuses a ragged array even when its number of values would fill a rectangle', () => {
    // 2 + 1 + 3 = 6 values, which a 3 x 2 matrix would hold: not reshaped
    assert.throws(() => parseAttentionJson('{"weights": [[1, 2], [3], [4, 5, 6]]}'), /weights\[1\] has 1 entries where 2 numbers were expected/);
    assert.throws(() => parseAttentionJson('{"weights": [[[1], [2]], [[3], 4]]}'), /weights\[1\]\[1\] has a number where 1 numbers were expected/);
    assert.throws(() => parseAttentionJson('{"weights": [0.5, 0.5]}'), /"weights" has 1 dimension/);
    assert.throws(() => parseAttentionJson('{"weights": [[]]}'), /"weights" is empty/);
  });

  it('refuses words that do not match the matrix', () => {
    assert.throws(() => parseAttentionJson('{"weights": [[0.5, 0.5]], "source": ["a"]}'), /"source" has 1 words but "weights" has 2 columns/);
    assert.throws(() => parseAttentionJson('{"weights": [[0.5, 0.5]], "target": ["x", "y"]}'), /"target" has 2 words but "weights" has 1 rows/);
  });
});

describe('gold alignments', () => {
  it('takes the first non-empty line and gives its sure and possible pairs', () => {
    assert.equal(parseGoldLine('\n  \r\n 0-0 1?2 \n3-3\n'), '0-0 1?2');
    assert.equal(parseGoldLine(''), '');
    assert.deepEqual(pharaohPairs('0-0 1?2  4-3'), [[0, 0], [1, 2], [4, 3]]);
    assert.deepEqual(pharaohPairs(''), []);
  });

  it('names the first gold link outside the matrix shown', () => {
    assert.equal(goldOutOfRange([[0, 0], [1, 2]], 3, 2), '');
    assert.equal(goldOutOfRange([[0, 0], [2, 1], [5, 5]], 3, 2), 'gold link 2-1 is outside the matrix shown (source words 0-1, target words 0-2)');
    // a gold file made for a 6 x 7 pair, scored against a 512 x 512 matrix, is flagged; one that
    // leaves a word or two unlinked at the end (punctuation) is not
    const small = [[0, 0], [1, 1], [6, 5], [3, 2]];
    assert.equal(goldShapeNote(small, 512, 512), 'its links reach only 6 target × 7 source words of this 512 × 512 matrix: made for another sentence or matrix, it scores nothing meaningful here');
    assert.equal(goldShapeNote(small, 6, 7), '');
    assert.equal(goldShapeNote(small, 8, 9), '');
    assert.match(goldShapeNote(small, 6, 20), /6 target × 7 source words of this 6 × 20 matrix/);
  });
});

describe('reshaping a dropped tensor', () => {
  // [layers 2][heads 2][target 1][source 2]: slice k holds (k, 10 k)
  const tensor = { shape: [2, 2, 1, 2], data: Float32Array.from([0, 0, 1, 10, 2, 20, 3, 30]) };

  it('selects a layer and head, or takes the mean or the max of every slice', () => {
    assert.deepEqual(Array.from(selectMatrix(tensor, { layer: 1, head: 0 }).weights), [2, 20]);
    assert.deepEqual(Array.from(selectMatrix(tensor, { layer: 0, head: 1 }).weights), [1, 10]);
    const mean = selectMatrix(tensor, { aggregate: 'mean' });
    assert.deepEqual([mean.rows, mean.cols], [1, 2]);
    near(mean.weights, [1.5, 15], 'mean');
    assert.deepEqual(Array.from(selectMatrix(tensor, { aggregate: 'max' }).weights), [3, 30]);
    assert.throws(() => selectMatrix(tensor, { layer: 2 }), /no such layer or head/);
    assert.throws(() => selectMatrix({ shape: [4], data: new Float32Array(4) }), /expected 2 to 4 dimensions, got 1/);
  });

  it('hides special tokens, renormalizing rows only when a column went', () => {
    const matrix = { rows: 2, cols: 3, weights: Float32Array.from([0.2, 0.6, 0.2, 0.5, 0.25, 0.25]) };
    const hidden = hideSpecial(matrix, ['gato', '</s>'], ['<s>', 'cat', 'sleeps']);
    assert.deepEqual([hidden.rowLabels, hidden.colLabels], [['gato'], ['cat', 'sleeps']]);
    near(hidden.matrix.weights, [0.75, 0.25], 'renormalized row');
    const rowsOnly = hideSpecial(matrix, ['<pad>', 'gato'], ['a', 'b', 'c']);
    near(rowsOnly.matrix.weights, [0.5, 0.25, 0.25], 'untouched row');
  });

  it('groups SentencePiece, WordPiece and subword-nmt pieces into words', () => {
    assert.deepEqual(wordsOf(['▁The', '▁ca', 't', '▁sleeps']), { words: ['The', 'cat', 'sleeps'], index: [0, 1, 1, 2] });
    assert.deepEqual(wordsOf(['the', 'ca', '##t']), { words: ['the', 'cat'], index: [0, 1, 1] });
    assert.deepEqual(wordsOf(['the', 'ca@@', 't', 'sleeps']), { words: ['the', 'cat', 'sleeps'], index: [0, 1, 1, 2] });
  });

  it('keeps special tokens their own words: never glued to the word before or after them', () => {
    assert.deepEqual(wordsOf(['▁duerme', '</s>']), { words: ['duerme', '</s>'], index: [0, 1] });
    assert.deepEqual(wordsOf(['<s>', 'Hola', '▁mundo', '.', '</s>']), { words: ['<s>', 'Hola', 'mundo.', '</s>'], index: [0, 1, 2, 2, 3] });
    assert.deepEqual(wordsOf(['[CLS]', 'sl', '##eeps', '.', '[SEP]']), { words: ['[CLS]', 'sleeps', '.', '[SEP]'], index: [0, 1, 1, 2, 3] });
    assert.deepEqual(wordsOf(['sleeps@@', '[SEP]', 'x']), { words: ['sleeps', '[SEP]', 'x'], index: [0, 1, 2] });
    // merged with the special tokens shown, they keep their own rows and columns
    const matrix = { rows: 2, cols: 3, weights: Float32Array.from([0.2, 0.5, 0.3, 0.1, 0.1, 0.8]) };
    const merged = mergeSubwords(matrix, ['▁duerme', '</s>'], ['▁sleeps', '.', '[SEP]']);
    assert.deepEqual([merged.rowLabels, merged.colLabels], [['duerme', '</s>'], ['sleeps.', '[SEP]']]);
    near(merged.matrix.weights, [0.7, 0.3, 0.2, 0.8], 'the special column keeps its own weight');
  });

  it('says where a word-level row\'s missing weight went', () => {
    assert.equal(restShare(Float32Array.from([0.5, 0.5, 0.2, 0.8]), 2, 2), null);
    const rest = restShare(Float32Array.from([0.5, 0.3, 0.9, 0.05, 0, 0]), 3, 2);  // an empty row is not counted
    assert.ok(Math.abs(rest.least - 0.05) < 1e-6 && Math.abs(rest.most - 0.2) < 1e-6, JSON.stringify(rest));
    assert.equal(restNote(Float32Array.from([0.5, 0.3, 0.9, 0.05]), 2, 2, '</s>'),
      'each row\'s weights over the words add up to less than 1: the rest (5–20 % of a row) went to </s>');
    assert.equal(restNote(Float32Array.from([1, 0]), 1, 2, '</s>'), '');
  });

  it('merges pieces: a word\'s columns are summed, its rows averaged', () => {
    // target pieces: ▁ga to (one word), ▁duerme; source pieces: ▁ca t, ▁sleeps
    const matrix = { rows: 3, cols: 3, weights: Float32Array.from([0.1, 0.5, 0.4, 0.3, 0.3, 0.4, 0, 0.2, 0.8]) };
    const merged = mergeSubwords(matrix, ['▁ga', 'to', '▁duerme'], ['▁ca', 't', '▁sleeps']);
    assert.deepEqual([merged.rowLabels, merged.colLabels], [['gato', 'duerme'], ['cat', 'sleeps']]);
    near(merged.matrix.weights, [(0.6 + 0.6) / 2, (0.4 + 0.4) / 2, 0.2, 0.8], 'merged');
  });
});
