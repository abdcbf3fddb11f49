// attnscope's WebAssembly module loader: picks the relaxed-SIMD build (SIMD128 with fused
// multiply-adds) where the engine has relaxed SIMD, the SIMD128 build where it has SIMD, the scalar
// build otherwise, and the threads build of that when the caller gets more than one thread, in
// browsers, workers and Node 20 alike.
//
//   import loadAttn from './attn.mjs';
//   const attn = await loadAttn({ simd: 'auto' });   // 'relaxed' / true / false force a build
//   attn.attention({ query, key, value, heads, queryLength, keyLength, dim });
//   attn.dispose();                                   // ends the module's threads, if it has any

// A minimal module that uses one SIMD128 instruction (i8x16.popcnt on a splat): engines without
// SIMD reject it at validation, before anything runs.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

// A minimal module that uses relaxed SIMD's f32x4.relaxed_madd (0xfd 0x85 0x02) on three splats:
// engines without relaxed SIMD (Safari; Node 20 without --experimental-wasm-relaxed-simd) reject
// it at validation, so they never fetch the relaxed-SIMD build.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 19, 1, 17, 0, 65, 0, 253, 17, 65, 0, 253, 17,
  65, 0, 253, 17, 253, 133, 2, 11,
]);

function validates(probe) {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(probe);
  } catch {
    return false;
  }
}

export function simdSupported() {
  return validates(SIMD_PROBE);
}

export function relaxedSimdSupported() {
  return validates(RELAXED_SIMD_PROBE);
}

const isNode = typeof process === 'object' && process.versions != null && process.versions.node != null;

// Node's modules are reached without a static import, which bundlers would try to resolve for the
// browser: process.getBuiltinModule (Node 20.16+), else an import they are told to leave alone.
async function nodeModule(name) {
  return process.getBuiltinModule?.(name) ?? (await import(/* @vite-ignore */ /* webpackIgnore: true */ name));
}

// Node cannot fetch a file path, so it reads the bytes; browsers stream them from the URL.
async function wasmBinaryFor(url) {
  if (!isNode) return undefined;
  return (await nodeModule('node:fs/promises')).readFile(url);
}

// attn::max_threads (src/attn/core/threads.hpp), needed before a module loads (a threads build
// starts its Workers as it loads); attn.maxThreads is the module's own, and
// tests/js/threads.test.mjs fails when the two differ.
const MAX_THREADS = 256;

// Whether threads can share the module's memory: always in Node; in browsers only on a
// cross-origin isolated page (served with Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp) and in its workers.
export function threadsSupported() {
  if (typeof SharedArrayBuffer !== 'function' || (!isNode && globalThis.crossOriginIsolated !== true)) return false;
  try {
    return new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
  } catch {
    return false;
  }
}

// The thread count loadAttn runs with. By default: the hardware's threads where memory can be
// shared in a browser, one in Node (a server process shares its cores; ask for threads there).
// A count the engine cannot have (no shared memory) gives one thread, without an error.
function threadCount(requested) {
  if (requested === undefined) {
    if (isNode || !threadsSupported()) return 1;
    const hardware = globalThis.navigator?.hardwareConcurrency;
    return Number.isInteger(hardware) && hardware > 1 ? Math.min(hardware, MAX_THREADS) : 1;
  }
  if (typeof requested !== 'number' || !Number.isInteger(requested) || requested < 1 || requested > MAX_THREADS) {
    const shown = typeof requested === 'string' ? `'${requested}'` : String(requested);
    throw new Error(`loadAttn(): threads must be an integer from 1 to ${MAX_THREADS}, got ${shown}`);
  }
  return requested > 1 && !threadsSupported() ? 1 : requested;
}

// The six builds, each with literal paths, so that bundlers (Vite, webpack, Rollup) see and ship
// every file. A threads build also has its Workers' script (NAME.worker.js; Node runs the .cjs
// copy beside it) and names its own URL, which each Worker imports.
const BUILDS = {
  relaxed: () => ({ wasm: new URL('./attn-relaxed.wasm', import.meta.url), load: () => import('./attn-relaxed.mjs') }),
  simd: () => ({ wasm: new URL('./attn-simd.wasm', import.meta.url), load: () => import('./attn-simd.mjs') }),
  scalar: () => ({ wasm: new URL('./attn-scalar.wasm', import.meta.url), load: () => import('./attn-scalar.mjs') }),
  'relaxed-threads': () => ({
    wasm: new URL('./attn-relaxed-threads.wasm', import.meta.url),
    worker: new URL('./attn-relaxed-threads.worker.js', import.meta.url),
    script: new URL('./attn-relaxed-threads.mjs', import.meta.url),
    load: () => import('./attn-relaxed-threads.mjs'),
  }),
  'simd-threads': () => ({
    wasm: new URL('./attn-simd-threads.wasm', import.meta.url),
    worker: new URL('./attn-simd-threads.worker.js', import.meta.url),
    script: new URL('./attn-simd-threads.mjs', import.meta.url),
    load: () => import('./attn-simd-threads.mjs'),
  }),
  'scalar-threads': () => ({
    wasm: new URL('./attn-scalar-threads.wasm', import.meta.url),
    worker: new URL('./attn-scalar-threads.worker.js', import.meta.url),
    script: new URL('./attn-scalar-threads.mjs', import.meta.url),
    load: () => import('./attn-scalar-threads.mjs'),
  }),
};

// What a threads build needs besides the common arguments: how many Workers to start (the
// calling thread is the first of `threads`), the script each Worker imports and, in Node, the
// Workers' CommonJS script as a path and the require() and __dirname that Emscripten's pthreads
// glue uses there (web/src/threads_pre.js).
async function threadsArguments(build, threads) {
  const settings = { attnPoolSize: threads - 1, mainScriptUrlOrBlob: build.script.href };
  if (!isNode) {
    // Bundlers may inline a small file as a data: URL (Vite does below 4 KiB). A Worker started
    // from one has an opaque origin, which may not import the module's script: it gets a Blob URL
    // of the same text, which has the page's origin (revoked once the Workers have loaded).
    if (build.worker.protocol !== 'data:') return { settings, worker: build.worker.href };
    const blob = await (await fetch(build.worker)).blob();
    return { settings, worker: URL.createObjectURL(blob), revoke: true };
  }
  const { fileURLToPath } = await nodeModule('node:url');
  const { createRequire } = await nodeModule('node:module');
  settings.attnNodeRequire = createRequire(build.script);
  settings.attnNodeDirectory = fileURLToPath(new URL('.', build.script));
  return { settings, worker: fileURLToPath(new URL(build.worker.href.replace(/\.js$/, '.cjs'))) };
}

// The Workers of a threads build in Node do not keep the process alive (a script that ends
// without process.exit ends), and the global Worker that the glue defines in Node is removed
// again: the glue starts every Worker it will have while loading (PTHREAD_POOL_SIZE_STRICT=2).
function settleNodeWorkers(module, hadGlobalWorker) {
  for (const worker of [...module.PThread.unusedWorkers, ...module.PThread.runningWorkers]) worker.unref?.();
  if (!hadGlobalWorker) delete globalThis.Worker;
}

// Ends a threads build's threads: the pool's threads leave (set_threads(1) joins them), then every
// Worker is terminated.
function endThreads(module) {
  try {
    module.setThreads(1);
  } finally {
    module.PThread.terminateAllThreads();
  }
}

// Finalization ends the threads of a module dropped without dispose(); the held value is the
// module, never the attn object, which could then not be collected.
const unreachable = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry(endThreads) : null;

// Each exported function with its arity: Embind insists on exact argument counts, so optional
// trailing arguments are passed on as undefined.
const API = {
  attention: 1, softmax: 2, sparsemax: 2, hardmax: 1, maskedSoftmax: 1,
  multiHeadAttention: 1, attentionPool: 1, attentionOverAttention: 1, dropout: 2,
  extractLinks: 1, symmetrize: 1, alignmentError: 2,
};

const HANDLE = Symbol('attnscope model handle');

function checked(result) {
  if (result instanceof Error) throw result;  // the bindings return errors rather than throw (no leaks)
  return result;
}

// A loaded translation model. It holds WebAssembly memory until delete() is called.
function wrapModel(handle, moduleLive) {
  let deleted = false;
  const live = () => {
    moduleLive();
    if (deleted) throw new Error('this model was deleted');
    return handle;
  };
  return Object.freeze({
    info: Object.freeze(handle.info()),
    [HANDLE]: handle,
    translate: (text, options) => checked(live().translate(text, options)),
    attentions: (source, target, options) => checked(live().attentions(source, target, options)),
    // A multilingual model set to write `language` ('fr'): a new model object sharing the weights,
    // to delete() like any other (docs/MODEL_FORMAT.md §7.1).
    forTarget: (language) => wrapModel(checked(live().forTarget(language)), moduleLive),
    align(source, target, options) {
      let settings = options;
      for (const [key, loader] of [['reverse', 'loadModel()'], ['statistical', 'loadStatisticalAligner()']]) {
        if (!options || options[key] === undefined) continue;
        const handle = options[key] && options[key][HANDLE];
        if (!handle) throw new Error(`align(): ${key} must be an object from ${loader}`);
        if (options[key].info?.architecture === 'captioner') throw new Error(`align(): ${key} is a captioner, not a translation model`);
        if (handle.isDeleted()) throw new Error(`align(): the ${key} ${key === 'reverse' ? 'model' : 'aligner'} was deleted`);
        settings = { ...settings, [key]: handle };
      }
      return checked(live().align(source, target, settings));
    },
    delete() {
      if (!deleted) handle.delete();
      deleted = true;
    },
  });
}

// A loaded captioner (info.architecture === 'captioner': an attnscope-captioner-v1 file). It holds
// WebAssembly memory until delete() is called.
function wrapCaptioner(handle, moduleLive) {
  let deleted = false;
  const live = () => {
    moduleLive();
    if (deleted) throw new Error('this model was deleted');
    return handle;
  };
  const info = handle.info();
  info.objects = Object.freeze(info.objects.map((object) => Object.freeze(object)));
  info.grid = Object.freeze(info.grid);
  info.vocabulary = Object.freeze(info.vocabulary);
  return Object.freeze({
    info: Object.freeze(info),
    [HANDLE]: handle,
    // image: an ImageData or { data: Uint8ClampedArray | Uint8Array (RGBA), width, height }, any size
    caption: (image, options) => checked(live().caption(image, options)),
    delete() {
      if (!deleted) handle.delete();
      deleted = true;
    },
  });
}

// V8 runs new WebAssembly code with its baseline compiler and recompiles a function with the
// optimizing one once it has run enough, in the background (20-40 ms here); until then the
// kernels run at about half speed. At load, attention runs until the optimized kernels arrive
// (a call takes under 60% of the time it took at first) or 80 ms have passed, so that a page's
// first real calls, and a benchmark's, run the optimized code. loadAttn({ warmUp: false }) skips it.
function warmUp(attn) {
  const length = 64, keys = 320, dim = 64;
  const values = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed + i * 0.37) * 0.5);
  const query = values(length * dim, 1), key = values(keys * dim, 2), value = values(keys * dim, 3);
  const started = performance.now();
  let baseline = Infinity;
  for (let i = 0; performance.now() - started < 80; i++) {
    const before = performance.now();
    attn.attention({ query, key, value, queryLength: length, keyLength: keys, dim, returnWeights: i === 0, causal: i === 1 });
    const ms = performance.now() - before;
    if (i >= 2 && i < 5) baseline = Math.min(baseline, ms);  // the first calls include one-off costs
    if (i >= 5 && ms < 0.6 * baseline) break;
  }
}

// Embind's UTF-8 encoding joins a lone surrogate with the code unit after it into a character that
// is not in the text: each becomes U+FFFD first, as TextEncoder makes it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const wellFormed = (text) => (typeof text === 'string' ? text.replace(LONE_SURROGATE, '\ufffd') : text);

const isGzip = (bytes) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

// A gzip file's contents, inflated by the engine's DecompressionStream (browsers, Node 18+).
async function gunzip(bytes) {
  if (typeof DecompressionStream !== 'function') throw new Error('this engine cannot inflate gzip (no DecompressionStream): pass the file inflated');
  try {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (error) {
    throw new Error(`the gzipped file is damaged: ${error.message}`);
  }
}

function deepFreeze(value) {
  if (value !== null && typeof value === 'object') Object.values(value).forEach(deepFreeze);
  return Object.freeze(value);
}

export default async function loadAttn(options = {}) {
  if (options === null || typeof options !== 'object') throw new Error('loadAttn() expects an options object');
  const requested = options.simd === undefined ? 'auto' : options.simd;
  if (requested !== 'auto' && requested !== 'relaxed' && requested !== true && requested !== false) {
    throw new Error(`loadAttn(): simd must be true, false or 'auto' (or 'relaxed'), got ${String(requested)}`);
  }
  let threads = threadCount(options.threads);
  const build = chooseBuild(requested);
  let module;
  try {
    module = await instantiate(build, threads, options);
  } catch (error) {
    // threads by default, where the page's policy refuses Workers: one thread, as where the page
    // is not cross-origin isolated; threads asked for by number: the error
    if (!(error instanceof WorkersFailed) || options.threads !== undefined) throw error;
    threads = 1;
    module = await instantiate(build, threads, options);
  }
  return wrapModule(module, build, threads > 1, options);
}

// 'relaxed', 'simd' or 'scalar': what simd asks for, checked against what the engine validates.
function chooseBuild(requested) {
  if (requested === 'relaxed' && !relaxedSimdSupported()) {
    throw new Error('loadAttn(): this engine has no WebAssembly relaxed SIMD (f32x4.relaxed_madd; ' +
      'Node 20 needs --experimental-wasm-relaxed-simd, Safari has none); use simd: true or "auto"');
  }
  if (requested === true && !simdSupported()) throw new Error('loadAttn(): this engine has no WebAssembly SIMD; use simd: false or "auto"');
  if (requested === 'auto') return relaxedSimdSupported() ? 'relaxed' : simdSupported() ? 'simd' : 'scalar';
  return requested === 'relaxed' ? 'relaxed' : requested ? 'simd' : 'scalar';
}

// A threads build's Worker that could not start.
class WorkersFailed extends Error {}

// Settles like load(), or rejects with WorkersFailed once a Worker the glue starts fails to (in
// browsers the glue would wait for it forever); the Workers that did start are then ended.
function unlessWorkersFail(settings, worker, load) {
  settings.attnWorkers = [];
  return new Promise((resolve, reject) => {
    let settled = false;  // after loading, a Worker's error is the glue's to report
    settings.attnWorkerFailed = (event) => {
      if (settled) return;
      const started = settings.attnWorkers;
      settle();
      const detail = event?.message ? `: ${event.message}` : '';
      for (const thread of started) thread.terminate();
      reject(new WorkersFailed(`loadAttn(): the threads build's Workers could not start (${worker})${detail}; ` +
        'a Content-Security-Policy must allow them (worker-src), or load with threads: 1'));
    };
    const settle = () => {
      settled = true;
      settings.attnWorkers = null;  // the module's own lists keep them
    };
    load().then((module) => { settle(); resolve(module); }, (error) => { settle(); reject(error); });
  });
}

// The module, its threads started. Apart from wrapModule: a threads build's Workers keep the
// module, and with it every closure it was given, reachable; those closures must not share a
// scope with the attn object, or FinalizationRegistry would never see that object dropped.
async function instantiate(name, threads, options) {
  const threaded = threads > 1;
  const build = BUILDS[name + (threaded ? '-threads' : '')]();
  const { default: createAttnModule } = await build.load();
  const { settings, worker, revoke } = threaded ? await threadsArguments(build, threads) : { settings: {} };
  const hadGlobalWorker = 'Worker' in globalThis;
  const moduleSettings = {
    ...settings,
    wasmBinary: await wasmBinaryFor(build.wasm),
    locateFile: (path) => {
      if (path.endsWith('.wasm')) return build.wasm.href;
      if (worker && path.endsWith('.worker.js')) return worker;
      return new URL(path, import.meta.url).href;
    },
    print: options.print ?? (() => {}),
    printErr: options.printErr ?? ((text) => console.warn(text)),
  };
  let module;
  try {
    const load = () => createAttnModule(moduleSettings);
    module = await (threaded && !isNode ? unlessWorkersFail(moduleSettings, build.worker.href, load) : load());
  } finally {
    if (revoke) URL.revokeObjectURL(worker);
  }
  if (threaded) {
    if (isNode) settleNodeWorkers(module, hadGlobalWorker);
    try {
      checked(module.setThreads(threads));
    } catch (error) {
      module.PThread.terminateAllThreads();
      throw error;
    }
  }
  return module;
}

// The attn object over a loaded module.
function wrapModule(module, build, threaded, options) {
  const info = module.buildInfo();
  // dispose() ends the module: its threads stop and every later call throws.
  let disposed = false;
  const live = () => {
    if (disposed) throw new Error('this attnscope module was disposed (attn.dispose()); load another with loadAttn()');
  };
  const attn = {
    // whether a SIMD build runs (SIMD128, or SIMD128 with relaxed SIMD's fused multiply-adds)
    simd: build !== 'scalar',
    // which: 'relaxed', 'simd' or 'scalar' (the files attn-BUILD[-threads].*)
    build,
    instructionSet: info.instructionSet,
    // The threads attention and the models run on (the calling one included).
    threads: info.threads,
    // The most threads any module takes (attn::max_threads).
    maxThreads: info.maxThreads,
    heapBytes: () => (live(), module.heapBytes()),
    // Live Embind handles: constant across calls when nothing leaks.
    liveHandles: () => (live(), module.count_emval_handles()),
    // The alignment methods, what each needs, the option names and the defaults, from the C++
    // library (attn/align/methods.hpp): read these rather than copying them.
    alignment: deepFreeze(module.alignmentRules()),
  };
  for (const [name, arity] of Object.entries(API)) {
    attn[name] = (...args) => (live(), checked(module[name](...Array.from({ length: arity }, (_, i) => args[i]))));
  }
  // The plain case (dot or scaled-dot softmax) goes straight to a C entry point, a few microseconds
  // where Embind's option parsing costs tens (web/src/plain_attention.js); anything else, and any
  // call the C side refuses, takes the Embind path, whose errors name the problem.
  const embindAttention = attn.attention;
  attn.attention = (options) => (live(), module.attnPlainAttention(options, threaded) ?? embindAttention(options));
  if (options.warmUp !== false) warmUp(attn);
  // async, so a page can await it the same way it awaits fetching the bytes
  attn.loadStatisticalAligner = async (bytes) => {
    live();
    if (!(bytes instanceof Uint8Array)) throw new Error('loadStatisticalAligner(bytes) needs the file as a Uint8Array');
    const handle = checked(module.loadStatisticalAligner(bytes));
    let deleted = false;
    return Object.freeze({
      [HANDLE]: handle,
      kind: handle.kind(),
      align(source, target, options) {
        live();
        if (deleted) throw new Error('this aligner was deleted');
        return checked(handle.align(source, target, options));
      },
      delete() {
        if (!deleted) handle.delete();
        deleted = true;
      },
    });
  };
  attn.loadModel = async (bytes) => {
    live();
    if (!(bytes instanceof Uint8Array)) throw new Error('loadModel(bytes) needs the model file as a Uint8Array');
    const handle = checked(module.loadModel(bytes));
    return handle instanceof module.Captioner ? wrapCaptioner(handle, live) : wrapModel(handle, live);
  };
  // Chinese word segmentation with jieba's dictionary (dist/models/zh-jieba.txt.gz, gzipped or not)
  attn.loadSegmenter = async (bytes) => {
    live();
    if (!(bytes instanceof Uint8Array)) throw new Error('loadSegmenter(bytes) needs the dictionary file as a Uint8Array');
    const handle = checked(module.loadSegmenter(isGzip(bytes) ? await gunzip(bytes) : bytes));
    let deleted = false;
    const use = () => {
      live();
      if (deleted) throw new Error('this segmenter was deleted');
      return handle;
    };
    return Object.freeze({
      wordCount: handle.wordCount(),
      cut: (text) => checked(use().cut(wellFormed(text))),
      words: (text) => checked(use().words(wellFormed(text))),
      delete() {
        if (!deleted) handle.delete();
        deleted = true;
      },
    });
  };
  // Ends the module's threads (a threads build's Workers are terminated) and makes every later
  // call throw; a second call does nothing. A module dropped without it has its threads ended
  // when it is garbage-collected.
  attn.dispose = () => {
    if (disposed) return;
    disposed = true;
    if (threaded) {
      unreachable?.unregister(attn);
      endThreads(module);
    }
  };
  if (threaded) unreachable?.register(attn, module, attn);
  return Object.freeze(attn);
}
