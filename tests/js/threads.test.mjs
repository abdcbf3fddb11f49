// The threads builds (web/dist/attn-simd-threads.*, attn-scalar-threads.*) under Node: the
// threads option and its default, results equal bit for bit to the build without threads (the
// work is split the same way at any thread count), dispose(), and nothing left behind: OS
// threads, memory, heap, or a process kept alive by the module's Workers.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { BUILDS, buildName, loadAttn, makeRng } from './helpers.mjs';

const LOADER = fileURLToPath(new URL('../../web/dist/attn.mjs', import.meta.url));
const DATA = new URL('../data/', import.meta.url);
const bytes = (name) => new Uint8Array(readFileSync(new URL(name, DATA)));

// For scripts that count what a module leaves behind (run with --expose-gc): the process's OS
// threads, and settleFor(n), which lets n rounds of timers and garbage collection pass.
const PROBES = `
      const { readFileSync } = await import('node:fs');
      const osThreads = () => Number(/^Threads:\\s+(\\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
      const settleFor = async (rounds) => {
        for (let i = 0; i < rounds; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          globalThis.gc();
        }
      };`;

// Runs a module script in a fresh Node process (the loader's path as LOADER); its stdout and status.
function runScript(source, { flags = [], timeout = 60000 } = {}) {
  const result = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', source], {
    encoding: 'utf8', timeout, env: { ...process.env, LOADER },
  });
  return { ...result, stdout: result.stdout.trim() };
}

// Inputs of attention [heads][length][dim]: seeded, the same for every build.
function inputs(heads, queryLength, keyLength, dim, seed) {
  const rng = makeRng(seed);
  return {
    query: rng.floats(heads * queryLength * dim), key: rng.floats(heads * keyLength * dim),
    value: rng.floats(heads * keyLength * dim), heads, queryLength, keyLength, dim,
  };
}

// Large enough that attention splits them over heads and 64-row query blocks.
const SHAPES = [[8, 128, 128, 64], [1, 512, 512, 64]];

const sameBits = (actual, expected, what) => {
  assert.equal(actual.length, expected.length, `${what}: length`);
  const a = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
  const b = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) assert.fail(`${what}: element ${i} is ${actual[i]}, one thread gives ${expected[i]}`);
  }
};

describe('loadAttn({ threads })', () => {
  it('defaults to one thread in Node, on the build without threads', async () => {
    const attn = await loadAttn({ warmUp: false });
    assert.equal(attn.threads, 1);
    for (const { attn: loaded } of BUILDS) assert.equal(loaded.threads, 1);
    assert.equal((await loadAttn({ threads: 1, warmUp: false })).threads, 1);
  });

  it('takes the C++ library\'s bound (attn.maxThreads), which the loader checks before a module loads', async () => {
    const attn = await loadAttn({ warmUp: false });
    assert.equal(attn.maxThreads, 256);
    await assert.rejects(loadAttn({ threads: attn.maxThreads + 1 }),
      new RegExp(`threads must be an integer from 1 to ${attn.maxThreads}, got ${attn.maxThreads + 1}$`));
  });

  it('rejects counts that are not an integer from 1 to 256 with an Error naming the option', async () => {
    for (const threads of [0, -2, 1.5, '2', NaN, Infinity, 257, null, true, [2]]) {
      await assert.rejects(loadAttn({ threads }), (error) => error instanceof Error
        && /^loadAttn\(\): threads must be an integer from 1 to 256, got /.test(error.message), `threads: ${String(threads)}`);
    }
  });

  it('takes more threads than the machine has cores, with the same results', async () => {
    const many = await loadAttn({ threads: 8, warmUp: false });
    assert.equal(many.threads, 8);
    const options = inputs(8, 128, 128, 64, 5);
    sameBits(many.attention(options).output, BUILDS[0].attn.attention(options).output, '8 threads');
    many.dispose();
  });
});

for (const threads of [2, 4]) {
  for (const { simd, attn: single } of BUILDS) {
    describe(`${threads} threads [${buildName(simd)} build]`, async () => {
      const attn = await loadAttn({ simd, threads });

      it(`reports ${threads} threads and the build it was asked for`, () => {
        assert.equal(attn.threads, threads);
        assert.equal(attn.simd, simd);
        assert.equal(attn.instructionSet, simd ? 'sse4.1' : 'scalar');
      });

      it('attention equals one thread bit for bit: 8 heads x 128 x 128 x 64 and 1 x 512 x 512 x 64, causal too', () => {
        for (const [heads, queryLength, keyLength, dim] of SHAPES) {
          const options = inputs(heads, queryLength, keyLength, dim, 7 + heads);
          for (const variant of [{}, { causal: true }, { returnWeights: false }, { causal: true, returnWeights: false },
            { score: 'dot', temperature: 2 }, { validLength: keyLength - 5 }, { returnScores: true }]) {
            const call = { ...options, ...variant };
            const expected = single.attention(call), actual = attn.attention(call);
            const what = `${heads}x${queryLength}x${keyLength}x${dim} ${JSON.stringify(variant)}`;
            sameBits(actual.output, expected.output, `${what} output`);
            if (expected.weights) sameBits(actual.weights, expected.weights, `${what} weights`);
            if (expected.scores) sameBits(actual.scores, expected.scores, `${what} scores`);
          }
        }
      });

      it('inputs inside larger buffers, at any float offset, give the same bits, call after call', () => {
        // the loader places each input at its source's offset modulo 16 and takes turns between
        // scratch areas: every layout, in every area, computes what one thread computes
        for (const [heads, queryLength, keyLength, dim] of [[8, 128, 128, 64], [3, 5, 7, 3]]) {
          const options = inputs(heads, queryLength, keyLength, dim, 11);
          const expected = single.attention(options);
          const within = (array, offset) => {
            const buffer = new Float32Array(array.length + 5).fill(NaN);
            buffer.set(array, offset);
            return buffer.subarray(offset, offset + array.length);
          };
          for (let round = 0; round < 2; round++) {
            for (const offsets of [[0, 0, 0], [1, 2, 3], [3, 1, 2], [2, 3, 1], [4, 5, 1]]) {
              const call = { ...options };
              ['query', 'key', 'value'].forEach((name, i) => { call[name] = within(options[name], offsets[i]); });
              const actual = attn.attention(call);
              const what = `${heads}x${queryLength}x${keyLength}x${dim} at offsets ${offsets}`;
              sameBits(actual.output, expected.output, `${what} output`);
              sameBits(actual.weights, expected.weights, `${what} weights`);
            }
          }
        }
      });

      it('a NaN or infinity anywhere is named as one thread names it, and the module goes on', () => {
        // the threads scan the inputs as they take up heads; the message is the full scan's
        for (const [heads, queryLength, keyLength, dim] of SHAPES) {
          const options = inputs(heads, queryLength, keyLength, dim, 5);
          const last = (name) => options[name].length - 1;
          for (const bad of [[['query', last('query'), NaN]], [['key', 17, -Infinity]], [['value', last('value'), NaN]],
            [['value', 2, Infinity], ['query', last('query') - 3, NaN]]]) {
            const call = { ...options, query: options.query.slice(), key: options.key.slice(), value: options.value.slice() };
            for (const [name, index, value] of bad) call[name][index] = value;
            for (const returnWeights of [false, true]) {
              let expected;
              try {
                single.attention({ ...call, returnWeights });
              } catch (e) {
                expected = e.message;
              }
              assert.match(expected ?? '', / contains (NaN|an infinite value) at index \d+/);
              assert.throws(() => attn.attention({ ...call, returnWeights }), (e) => e.message === expected);
            }
          }
          sameBits(attn.attention(options).output, single.attention(options).output, 'after the errors');
        }
      });

      it('multiHeadAttention equals one thread bit for bit', () => {
        const rng = makeRng(11);
        const modelDim = 128, heads = 8, queryLength = 160, keyLength = 96;
        const layer = {
          queryInput: rng.floats(queryLength * modelDim), queryLength, modelDim, heads, returnWeights: true,
          queryWeight: rng.floats(modelDim * modelDim, 0.1), keyWeight: rng.floats(modelDim * modelDim, 0.1),
          valueWeight: rng.floats(modelDim * modelDim, 0.1), outputWeight: rng.floats(modelDim * modelDim, 0.1),
        };
        const calls = {
          cross: { ...layer, keyValueInput: rng.floats(keyLength * modelDim), keyLength },
          'causal self-attention': { ...layer, causal: true },
        };
        for (const [what, call] of Object.entries(calls)) {
          const expected = single.multiHeadAttention(call), actual = attn.multiHeadAttention(call);
          sameBits(actual.output, expected.output, `multiHeadAttention ${what}: output`);
          sameBits(actual.weights, expected.weights, `multiHeadAttention ${what}: weights`);
        }
      });

      it("a model's align and translate equal one thread's", async () => {
        for (const file of ['tiny-additive.safetensors', 'tiny-general.safetensors']) {
          const [threaded, alone] = await Promise.all([attn.loadModel(bytes(file)), single.loadModel(bytes(file))]);
          for (const [source, target] of [['the cat sleeps', 'el gato duerme'], ['a small house by the sea', 'una casa pequeña junto al mar']]) {
            const expected = alone.align(source, target), actual = threaded.align(source, target);
            sameBits(actual.weights, expected.weights, `${file} align weights`);
            assert.equal(actual.pharaoh, expected.pharaoh);
            const translated = threaded.translate(source, { beam: 4 }), reference = alone.translate(source, { beam: 4 });
            assert.equal(translated.text, reference.text);
            sameBits(translated.weights, reference.weights, `${file} translate weights`);
          }
          threaded.delete();
          alone.delete();
        }
      });

      it('many calls leave the heap, and the Embind handles, as they were', () => {
        const options = inputs(8, 128, 128, 64, 3);
        const before = [attn.heapBytes(), attn.liveHandles()];
        for (let i = 0; i < 40; i++) {
          attn.attention({ ...options, causal: i % 2 === 0, returnWeights: i % 3 === 0 });
          attn.attention({ ...options, validLength: 100 });  // the Embind path
        }
        assert.deepEqual([attn.heapBytes(), attn.liveHandles()], before);
      });

      it('dispose() ends it: every later call throws a clear Error, a second dispose() does nothing', async () => {
        const other = await loadAttn({ simd, threads, warmUp: false });
        const model = await other.loadModel(bytes('tiny-additive.safetensors'));
        other.dispose();
        const disposed = /this attnscope module was disposed \(attn\.dispose\(\)\); load another with loadAttn\(\)/;
        assert.throws(() => other.attention(inputs(1, 4, 4, 4, 1)), disposed);
        assert.throws(() => other.softmax(new Float32Array(3)), disposed);
        assert.throws(() => other.heapBytes(), disposed);
        assert.throws(() => model.align('the cat', 'el gato'), disposed);
        await assert.rejects(other.loadModel(bytes('tiny-additive.safetensors')), disposed);
        other.dispose();
        assert.equal(other.threads, threads);  // what it ran with stays readable
      });
    });
  }
}

describe('threads and the process', () => {
  it('a script that loads with threads and ends without process.exit ends', () => {
    const { stdout, status, stderr, error } = runScript(`
      const { default: loadAttn } = await import(process.env.LOADER);
      const attn = await loadAttn({ threads: 4 });
      const x = new Float32Array(8 * 128 * 64).fill(0.5);
      const { output } = attn.attention({ query: x, key: x, value: x, heads: 8, queryLength: 128, keyLength: 128, dim: 64 });
      console.log(attn.threads, output[0], typeof globalThis.Worker);`, { timeout: 20000 });
    assert.equal(error, undefined, 'the process ended by itself');
    assert.equal(status, 0, stderr);
    assert.equal(stdout, '4 0.5 undefined');  // and the glue's global Worker in Node is gone again
  });

  it('15 loads and disposes leave the OS threads and the memory flat', () => {
    const { stdout, status, stderr } = runScript(`
      const { default: loadAttn } = await import(process.env.LOADER);
      ${PROBES}
      const settle = () => settleFor(10);
      const x = new Float32Array(8 * 128 * 64).fill(0.25);
      const cycle = async () => {
        const attn = await loadAttn({ threads: 4, warmUp: false });
        attn.attention({ query: x, key: x, value: x, heads: 8, queryLength: 128, keyLength: 128, dim: 64 });
        attn.dispose();
      };
      for (let i = 0; i < 3; i++) await cycle();
      await settle();
      const before = { threads: osThreads(), rss: process.memoryUsage().rss };
      for (let i = 0; i < 15; i++) await cycle();
      await settle();
      console.log(JSON.stringify({ before, after: { threads: osThreads(), rss: process.memoryUsage().rss } }));`,
    { flags: ['--expose-gc'] });
    assert.equal(status, 0, stderr);
    const { before, after } = JSON.parse(stdout);
    assert.ok(after.threads <= before.threads, `OS threads ${before.threads} -> ${after.threads}`);
    // each leaked module would keep its 16 MiB memory and three Workers (several MiB each)
    const grown = (after.rss - before.rss) / 2 ** 20;
    assert.ok(grown < 48, `resident memory grew ${grown.toFixed(1)} MiB over 15 loads`);
  });

  it('a module dropped without dispose() has its threads ended when it is collected', () => {
    const { stdout, status, stderr } = runScript(`
      const { default: loadAttn } = await import(process.env.LOADER);
      ${PROBES}
      const settle = () => settleFor(20);
      await (await loadAttn({ threads: 2, warmUp: false })).dispose();  // the first load's one-off threads
      await settle();
      const before = osThreads();
      // the module is only reachable inside this function (a suspended await could hold a local)
      const loaded = await (async () => {
        const attn = await loadAttn({ threads: 8, warmUp: false });
        return attn.threads === 8 ? osThreads() : 0;
      })();
      await settle();
      console.log(JSON.stringify({ before, loaded, after: osThreads() }));`,
    { flags: ['--expose-gc'] });
    assert.equal(status, 0, stderr);
    const { before, loaded, after } = JSON.parse(stdout);
    assert.ok(loaded >= before + 7, `seven Workers started: ${before} -> ${loaded}`);
    assert.ok(after <= before, `their threads ended: ${before} -> ${loaded} -> ${after}`);
  });
});
