// The Images view's pure modules under Node: scenes in the URL hash and kept inside the image
// (web/page/caption-scene.mjs), what a scene has that training never showed, and another
// captioner's maps read from .npy or JSON with a clear message for each bad file (web/page/caption-byo.mjs).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SCENE_PRESETS, SIZE_LIMITS, decodeScene, encodeScene, freeSpot, outsideTraining, placed, spriteRects } from '../../web/page/caption-scene.mjs';
import { parseCaptionAttention, typedWords } from '../../web/page/caption-byo.mjs';
import { npy } from './npy.mjs';

const KNOWN = new Set(['dog', 'ball', 'cat', 'tree', 'house']);

describe('scenes', () => {
  it('go into the hash and come back the same, to a thousandth of the side', () => {
    const scene = { objects: [{ name: 'dog', x: 0.104, y: 0.417, size: 0.333 }, { name: 'ball', x: 0.646, y: 0.521, size: 0.25 }] };
    assert.equal(encodeScene(scene), 'dog_104_417_333.ball_646_521_250');
    assert.deepEqual(decodeScene(encodeScene(scene), KNOWN), scene);
  });

  it('from a hand-edited hash keep the objects the model knows, inside the image', () => {
    assert.deepEqual(decodeScene('dog_900_0_300.unicorn_1_2_300.cat_x_1_2.tree_0_0_999', KNOWN),
      { objects: [{ name: 'dog', x: 0.7, y: 0, size: 0.3 }, { name: 'tree', x: 0, y: 0, size: SIZE_LIMITS[1] }] });
    assert.equal(decodeScene('', KNOWN), null);
    assert.equal(decodeScene('unicorn_1_2_3', KNOWN), null);
  });

  it('are drawn at the training renderer\'s rounded pixels', () => {
    assert.deepEqual(spriteRects({ objects: [{ name: 'dog', x: 10 / 96, y: 40 / 96, size: 32 / 96 }] }, 96), [{ x: 10, y: 40, side: 32 }]);
    assert.deepEqual(spriteRects({ objects: [{ name: 'dog', x: 0.5, y: 0.25, size: 0.001 }] }, 96), [{ x: 48, y: 24, side: 1 }]);
  });

  it('give a new object a free spot, and say what training never showed', () => {
    const spot = freeSpot({ objects: [{ name: 'dog', x: 0, y: 0, size: 0.3 }] }, 0.28);
    assert.ok(spot.x + spot.y > 1, `far from the dog in the corner: ${JSON.stringify(spot)}`);
    assert.equal(placed({ name: 'cat', x: -1, y: 2, size: 0.3 }).x, 0);
    for (const preset of SCENE_PRESETS) assert.equal(outsideTraining(preset.scene), '', preset.id);
    assert.match(outsideTraining({ objects: [] }), /empty scene/);
    assert.match(outsideTraining({ objects: [{ name: 'cat', x: 0, y: 0, size: 0.55 }] }), /outside the trained sizes/);
    assert.match(outsideTraining({ objects: [{ name: 'cat', x: 0.1, y: 0.1, size: 0.3 }, { name: 'dog', x: 0.15, y: 0.12, size: 0.3 }] }), /overlapping/);
  });
});

describe("another captioner's maps", () => {
  const maps = Array.from({ length: 2 * 3 * 4 }, (_, i) => i / 24);
  const file = (name, content) => ({ name, bytes: typeof content === 'string' ? new TextEncoder().encode(content) : new Uint8Array(content) });

  it('are read from .npy [words][h][w] or [words][h * w], and from JSON with or without its words', () => {
    const fromNpy = parseCaptionAttention(file('alphas.npy', npy([2, 3, 4], maps)), ['a', 'dog']);
    assert.deepEqual(fromNpy.shape, [2, 3, 4]);
    assert.deepEqual(fromNpy.words, ['a', 'dog']);
    assert.deepEqual(parseCaptionAttention(file('flat.npy', npy([2, 9], maps.slice(0, 18), { descr: '<f8' })), ['a', 'b']).shape, [2, 3, 3]);
    const nested = [[[0, 1], [0, 0]], [[1, 0], [0, 0]]];
    const json = parseCaptionAttention(file('att.json', JSON.stringify({ words: ['<start>', '<end>'], alphas: nested })));
    assert.deepEqual(json.words, ['<start>', '<end>']);
    assert.deepEqual(Array.from(json.data), [0, 1, 0, 0, 1, 0, 0, 0]);
    assert.deepEqual(parseCaptionAttention(file('bare.json', JSON.stringify(nested)), typedWords(' a  dog ')).words, ['a', 'dog']);
  });

  it('name the problem of every bad file', () => {
    for (const [bad, words, message] of [
      [file('x.npy', npy([2, 3, 4], [...maps.slice(0, 5), NaN, ...maps.slice(6)])), ['a', 'b'], /holds NaN at \[0, 1, 1\]/],
      [file('x.npy', npy([2, 3, 4], maps)), ['a'], /1 word \(typed\) but 2 maps in x\.npy/],
      [file('x.npy', npy([2, 3, 4], maps)), [], /holds 2 maps but no words/],
      [file('x.npy', npy([24], maps)), ['a'], /shape \[24\]; expected \[words\]\[height\]\[width\]/],
      [file('x.npy', npy([2, 7], maps.slice(0, 14))), ['a', 'b'], /7 cells a word is no square grid/],
      [file('x.npy', npy([1, 1, 2, 2], [0, 0, 0, 0])), ['a'], /4 dimensions/],
      [file('x.npy', new Uint8Array([1, 2, 3])), ['a'], /not a \.npy file/],
      [file('x.npy', npy([2, 3, 4], maps).subarray(0, 100)), ['a', 'b'], /truncated/],
      [file('x.json', '{"words": ["a"], "attention": [[[0, -1]]]}'), [], /holds -1 at \[0, 0, 1\]: attention weights are not negative/],
      [file('x.json', '{"words": ["a"], "attention": [[[0, 1], [0]]]}'), [], /not a block: attention\[0\]\[1\] has 1 entries where 2 numbers/],
      [file('x.json', '{"words": ["a"], "attention": [[[0, "x"]]]}'), [], /attention\[0\]\[0\]\[1\] is "x"/],
      [file('x.json', '{"words": "a dog", "attention": [[[0]]]}'), [], /"words" must be an array of strings/],
      [file('x.json', '{"maps": []}'), [], /needs an "attention" array/],
      [file('x.json', '{"words": ['), [], /not valid JSON/],
      [file('x.txt', 'a'), ['a'], /an attention file is \.npy or \.json/],
    ]) {
      assert.throws(() => parseCaptionAttention(bad, words), message);
    }
  });
});
