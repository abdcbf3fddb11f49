// The captioner from JS: loadModel on the tiny fixture (tests/data/captioner-tiny.*, made by
// tools/train/captioner/make_fixture.py) gives info.architecture 'captioner' with its objects, image
// size and grid; model.caption(imageData, options) gives the numpy reference's words, maps and
// log-probabilities, soft and hard; bad images and options are refused with the reason; nothing
// leaks (Embind handles, heap). Both builds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import loadAttn from '../../web/dist/attn.mjs';

const DATA = new URL('../data/', import.meta.url);
const bytes = (name) => new Uint8Array(readFileSync(new URL(name, DATA)));
const reference = JSON.parse(readFileSync(new URL('captioner-tiny.json', DATA), 'utf8'));
const image = {
  data: Uint8ClampedArray.from(reference.image.data),
  width: reference.image.width,
  height: reference.image.height,
};

function assertMatches(result, expected) {
  assert.deepEqual(result.words, expected.words);
  const T = expected.words.length;
  assert.deepEqual(result.attention.shape, [T, 4, 4]);
  assert.ok(result.attention.data instanceof Float32Array);
  const flat = expected.attention.flat();
  assert.equal(result.attention.data.length, flat.length);
  result.attention.data.forEach((x, i) => assert.ok(Math.abs(x - flat[i]) < 1e-5, `attention ${i}: ${x} vs ${flat[i]}`));
  assert.ok(result.logProbs instanceof Float32Array);
  result.logProbs.forEach((x, i) => assert.ok(Math.abs(x - expected.log_probs[i]) < 1e-4, `log p ${i}`));
  assert.deepEqual(Array.from(result.cells), expected.cells);
}

for (const simd of [true, false]) {
  describe(`captioner [${simd ? 'SIMD' : 'scalar'} build]`, async () => {
    const attn = await loadAttn({ simd });
    const model = await attn.loadModel(bytes('captioner-tiny.safetensors'));

    it('loads as a captioner and names its objects, image size and grid', () => {
      const { info } = model;
      assert.equal(info.architecture, 'captioner');
      assert.equal(info.format, 'attnscope-captioner-v1');
      assert.equal(info.imageSize, 16);
      assert.deepEqual(info.grid, [4, 4]);
      // the objects as the file's metadata lists them (the safetensors header: its length, then JSON)
      const file = bytes('captioner-tiny.safetensors');
      const headerLength = Number(new DataView(file.buffer).getBigUint64(0, true));
      const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + headerLength)));
      const objects = JSON.parse(header.__metadata__.objects);
      assert.ok(objects.length >= 20);
      assert.deepEqual(info.objects.map((o) => ({ ...o })), objects);
      for (const object of info.objects) assert.match(object.hexcode, /^[0-9A-F]{4,5}(-[0-9A-F]{4,5})*$/);
      assert.equal(info.vocabulary.length, info.vocabSize);
      assert.ok(Object.isFrozen(info) && Object.isFrozen(info.objects) && Object.isFrozen(info.objects[0]));
      assert.equal(typeof model.caption, 'function');
      assert.equal(model.translate, undefined);
    });

    it('captions an ImageData-like image as the reference does, soft and hard', () => {
      assertMatches(model.caption(image), reference.soft);
      assertMatches(model.caption({ ...image, data: new Uint8Array(image.data) }, { beam: 1 }), reference.soft);
      for (const seed of ['1', '7']) {
        const hard = model.caption(image, { hard: true, seed: Number(seed) });
        assertMatches(hard, reference.hard[seed]);
        assert.deepEqual(model.caption(image, { hard: true, seed: Number(seed) }).cells, hard.cells);
      }
      const beam = model.caption(image, { beam: 3 });
      assert.equal(beam.attention.shape[0], beam.words.length);
      assert.equal(beam.logProbs.length, beam.words.length);
    });

    it('takes any size: one pixel, and a wide strip', () => {
      for (const [width, height] of [[1, 1], [300, 2]]) {
        const data = new Uint8ClampedArray(width * height * 4).map((_, i) => (i * 37) % 256);
        const result = model.caption({ data, width, height });
        assert.equal(result.attention.data.length, result.words.length * 16);
      }
    });

    it('refuses bad images and options with the reason', () => {
      const cases = [
        [() => model.caption(), /needs an image/],
        [() => model.caption({ ...image, data: image.data.subarray(4) }), /image\.data has 1116 elements, expected 1120/],
        [() => model.caption({ ...image, data: Array.from(image.data) }), /image\.data must be a Uint8Array, got a plain Array/],
        [() => model.caption({ data: image.data, width: 20 }), /height is required/],
        [() => model.caption({ data: image.data, width: 0, height: 14 }), /the image has no pixels \(0 x 14\)/],
        [() => model.caption({ data: image.data, width: 9000, height: 1 }), /larger than the limit of 8192/],
        [() => model.caption(image, { beem: 2 }), /unknown option 'beem'/],
        [() => model.caption(image, { beam: 0 }), /beam must be in 1\.\.64, got 0/],
        [() => model.caption(image, { hard: true, beam: 2 }), /beam must be 1 with it, got 2/],
        [() => model.caption(image, { seed: 3 }), /seed is for hard: true/],
        [() => model.caption(image, { hard: true, seed: -1 }), /seed must be a whole number/],
      ];
      for (const [call, message] of cases) assert.throws(call, message);
    });

    it('refuses a damaged captioner file with the reason', async () => {
      const good = bytes('captioner-tiny.safetensors');
      await assert.rejects(attn.loadModel(good.subarray(0, 1000)), /outside|truncated/);
      // the architecture's grid (inside the metadata's JSON string) made [4, 5]: not what 16 pixels pool to
      const relabelled = new Uint8Array(good);
      const text = new TextDecoder('latin1').decode(relabelled);
      const at = text.indexOf('\\"grid\\": [4, 4]');
      assert.ok(at > 0);
      relabelled.set(new TextEncoder().encode('\\"grid\\": [4, 5]'), at);
      await assert.rejects(attn.loadModel(relabelled), /the model architecture's grid must be \[4, 4\]/);
    });

    it('keeps the Embind handles and the heap as they were over many calls, errors included', () => {
      for (let i = 0; i < 3; i++) model.caption(image);
      const handles = attn.liveHandles(), heap = attn.heapBytes();
      for (let i = 0; i < 20; i++) {
        model.caption(image, { hard: i % 2 === 0, seed: i % 2 === 0 ? i : undefined });
        assert.throws(() => model.caption({ ...image, width: 3 }));
        assert.throws(() => model.caption(image, { beam: 99 }));
      }
      assert.equal(attn.liveHandles(), handles);
      assert.equal(attn.heapBytes(), heap);
    });

    it('throws once deleted', async () => {
      const other = await attn.loadModel(bytes('captioner-tiny.safetensors'));
      other.delete();
      assert.throws(() => other.caption(image), /this model was deleted/);
      other.delete();  // a second delete does nothing
    });
  });
}
