// --post-js of every build (web/CMakeLists.txt): runs inside the module's factory. The JavaScript
// half of web/bindings/plain_attention.cpp, beside its C half: Module.attnPlainAttention(options,
// threaded) takes a call of attention() that the C entry point can run (copying the arrays into
// the heap, in a threads build feeding them head by head while the pool's threads start and
// draining the output as heads finish), and returns its result, or undefined for the loader
// (web/src/attn.mjs) to take the Embind path.
(function (module) {
// The plain case of attention() (dot or scaled-dot softmax attention, optionally causal, with a
// temperature) goes straight to a C entry point with the arrays copied into the heap: a few
// microseconds, where the Embind path's option parsing costs tens (web/bindings/plain_attention.cpp).
// Which calls are plain is the C side's rule: its option table (names and kinds), read once, and
// attn_plain_prepare, which applies the defaults and says yes or no. Anything else, and any call
// the C side refuses, takes the Embind path, whose errors name the problem.
const SCRATCH_KEPT_BYTES = 4 << 20;  // scratch up to this size stays allocated between calls
// A threads build takes turns between this many scratch areas. Writing a call's inputs over the
// lines another core still holds from the last call (the pool's threads read their heads there)
// makes the copy wait on that core: 8x128x128x64's copy-in took 68 us on one area, 38 on three in a
// tight loop, and the peers harness's 2-thread time went 0.633-0.656 -> 0.615-0.626 ms (6 runs
// each, alternating; two areas and four measured between).
const THREADED_SCRATCH_AREAS = 3;

// The kinds of the C side's option table; an option of any other kind lists the strings it may be.
const KINDS = ['floats', 'integer', 'number', 'boolean'];

// The C side's option table ("name:kind ...", web/bindings/plain_attention.cpp), read once: each
// option's slot and kind (with a string option's strings), and where the call's slots live.
function readPlain(module) {
  const count = module._attn_plain_slots();
  const at = module._malloc(8 * count);
  if (!at) return undefined;
  const heap = new Uint8Array(floatHeap(module).buffer);
  let text = '';
  for (let c = module._attn_plain_options(); heap[c]; c++) text += String.fromCharCode(heap[c]);
  const options = new Map(text.split(' ').map((entry, slot) => {
    const [name, kind] = entry.split(':');
    const known = KINDS.indexOf(kind);
    return [name, { slot, kind: known >= 0 ? known : KINDS.length, strings: kind.split('|') }];
  }));
  // the arrays' positions among themselves (query, key, value: the order of the C side's counts)
  [...options.values()].filter((option) => option.kind === 0).forEach((option, i) => { option.array = i; });
  return { options, heads: options.get('heads').slot, at, count, view: undefined };
}

// The slots as doubles in the heap's buffer (a view made again only when the buffer has changed).
function slotsOf(plain, buffer) {
  if (plain.view === undefined || plain.view.buffer !== buffer) plain.view = new Float64Array(buffer, plain.at, plain.count);
  return plain.view;
}

// A value as its slot's number by its option's kind (KINDS' index; past them, a list of strings),
// or undefined where it is not of that kind.
function slotValue(option, x) {
  switch (option.kind) {
    // a Float32Array itself, not a subclass, whose length could say other than its contents
    case 0: return x instanceof Float32Array && Object.getPrototypeOf(x) === Float32Array.prototype ? x.length : undefined;
    case 1: return Number.isInteger(x) ? x : undefined;
    case 2: return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
    case 3: return typeof x === 'boolean' ? Number(x) : undefined;
    default: {  // the strings it may be
      const index = typeof x === 'string' ? option.strings.indexOf(x) : -1;
      return index >= 0 ? index : undefined;
    }
  }
}

// The call's arrays in the table's order (query, key, value) once the C side has prepared its
// slots (NaN where an option is not given), or undefined where the plain path does not take the
// call. Each option is read once, before any slot is written, so that what is copied is what was
// checked, whatever getters or proxies the options object holds.
function prepare(module, plain, buffer, o) {
  if (o === null || typeof o !== 'object' || Object.getPrototypeOf(o) !== Object.prototype) return undefined;
  const given = [];  // option, value, option, value, ...
  for (const name in o) {
    const option = plain.options.get(name);
    if (option === undefined) return undefined;
    const x = o[name];
    if (x !== undefined) given.push(option, x);
  }
  const slots = slotsOf(plain, buffer).fill(NaN);
  const arrays = [undefined, undefined, undefined];
  for (let i = 0; i < given.length; i += 2) {
    const option = given[i], value = slotValue(option, given[i + 1]);
    if (value === undefined) return undefined;
    slots[option.slot] = value;
    if (option.kind === 0) arrays[option.array] = given[i + 1];
  }
  return module._attn_plain_prepare(plain.at) === 1 ? arrays : undefined;
}

// The heap as floats. In a threads build another thread may have grown the memory, which leaves
// the module's own view (updated only when the main thread grows it or the glue checks) short.
function floatHeap(module) {
  const memory = module.wasmMemory;
  return memory && module.HEAPF32.buffer !== memory.buffer ? new Float32Array(memory.buffer) : module.HEAPF32;
}

function plainAttention(module, plain, scratch, o, threaded) {
  let heap = floatHeap(module);
  const sources = prepare(module, plain, heap.buffer, o);  // query, key, value, as prepare read them
  if (sources === undefined) return undefined;
  const slots = plain.view, n = plain.count, H = slots[plain.heads];
  // the floats of query, key, value, output and weights, after the options
  const counts = [slots[n - 5], slots[n - 4], slots[n - 3], slots[n - 2], slots[n - 1]];
  const returnWeights = counts[4] > 0;
  const total = counts[0] + counts[1] + counts[2] + counts[3] + counts[4];
  // the pool's threads wake while the inputs are copied (waking takes tens of microseconds)
  if (threaded) module._attn_plain_attention_expect(plain.at);
  // Each array starts on its own cache line, an input at its source's address modulo 16: V8 copies
  // to and from shared memory (a threads build's heap) word by word only where both sides are
  // aligned alike, else byte by byte (8x128x128x64's copy-in: 38 us aligned, 214 us at 4 bytes off).
  const bytes = total * 4 + (counts.length + 1) * 64;
  if (scratch.bytes < bytes) {
    if (scratch.pointer) module._free(scratch.pointer);
    scratch.pointer = module._malloc(bytes);
    scratch.bytes = scratch.pointer ? bytes : 0;
    if (!scratch.pointer) return undefined;
    heap = floatHeap(module);  // the allocation may have grown the memory
  }
  const at = [];  // where each array starts, in floats
  let end = scratch.pointer;
  for (let i = 0; i < counts.length; i++) {
    const offset = i < sources.length ? sources[i].byteOffset % 16 : 0;
    at.push((Math.ceil(end / 64) * 64 + offset) >> 2);
    end = (at[i] + counts[i]) * 4;
  }
  const args = [at[0] * 4, at[1] * 4, at[2] * 4, at[3] * 4, returnWeights ? at[4] * 4 : 0, plain.at];
  let status, drained;
  if (threaded) {
    // The pool's threads start on the first heads while this thread copies the rest in: the
    // module calls the feed once they have their parts, and each part waits for its head.
    const feed = feedInputs(module, heap, sources, at, counts.slice(0, 3).map((n) => n / H), H);
    const drain = drainOutput(module, heap, at[3], counts[3] / H, H);
    status = module._attn_plain_attention_fed(...args);
    module.attnFeed = module.attnDrain = undefined;
    if (feed.failed) status = 1;
    if (status === 0) drained = drain.finish();
  } else {
    sources.forEach((source, i) => heap.set(source, at[i]));
    status = module._attn_plain_attention(...args);
  }
  let result;
  if (status === 0) {
    heap = floatHeap(module);  // the call may have grown the memory, which replaces the view
    result = { output: drained !== undefined ? drained : heap.slice(at[3], at[3] + counts[3]) };
    if (returnWeights) result.weights = heap.slice(at[4], at[4] + counts[4]);
  }
  if (scratch.bytes > SCRATCH_KEPT_BYTES) {
    module._free(scratch.pointer);
    scratch.pointer = 0;
    scratch.bytes = 0;
  }
  return result;
}

// Sets the module's feed (attn_plain_attention_fed, web/bindings/plain_attention.cpp): it copies
// the inputs in head by head (sizes: one head's floats in each), storing each count of heads into
// the module's counter. It never throws and always ends with every head released; where a copy
// failed, the returned state says so, and the call's result is left for the Embind path.
function feedInputs(module, heap, sources, at, sizes, heads) {
  const fed = module._attn_plain_heads_fed() >> 2;
  const counter = new Int32Array(heap.buffer);
  const state = { failed: false };
  module.attnFeed = () => {
    try {
      for (let h = 0; h < heads; h++) {
        sources.forEach((source, i) => heap.set(source.subarray(h * sizes[i], (h + 1) * sizes[i]), at[i] + h * sizes[i]));
        Atomics.store(counter, fed, h + 1);
      }
    } catch {
      state.failed = true;
    } finally {
      Atomics.store(counter, fed, heads);
    }
  };
  return state;
}

// Sets the module's drain (attn_plain_attention_fed): once the calling thread has no part left,
// it allocates the output and copies each head's (floats `size` each, from `from` in the heap) out
// as the head's parts end, while the other threads finish theirs. It watches for at most
// DRAIN_WATCH_MS: a thread that spins longer keeps its core from a busy pool thread (2 cores,
// a third busy thread), where the pool's own wait sleeps. The returned state holds the output and
// which heads are in it; `finish` copies the rest once the call is over.
const DRAIN_WATCH_MS = 0.2;
function drainOutput(module, heap, from, size, heads) {
  const state = { output: undefined, copied: undefined };
  const copy = (h) => {
    state.output.set(heap.subarray(from + h * size, from + (h + 1) * size), h * size);
    state.copied[h] = 1;
  };
  module.attnDrain = (left) => {
    try {
      const counts = new Int32Array(floatHeap(module).buffer, left, heads);  // allocated during the call
      state.output = new Float32Array(size * heads);
      state.copied = new Uint8Array(heads);
      const until = performance.now() + DRAIN_WATCH_MS;
      for (let done = 0; done < heads && performance.now() < until;) {
        for (let h = 0; h < heads; h++) {
          if (state.copied[h] || Atomics.load(counts, h) !== 0) continue;
          copy(h);
          done++;
        }
      }
    } catch {
      state.output = undefined;  // the caller copies the output itself
    }
  };
  state.finish = () => {
    if (!state.output) return undefined;
    for (let h = 0; h < heads; h++) if (!state.copied[h]) copy(h);
    return state.output;
  };
  return state;
}

const scratches = [];
let turn = 0;
let plain;  // the C side's option table, and the call's slots in the heap
module['attnPlainAttention'] = (options, threaded) => {
  if (plain === undefined) plain = readPlain(module);
  if (plain === undefined) return undefined;
  const areas = threaded ? THREADED_SCRATCH_AREAS : 1;
  while (scratches.length < areas) scratches.push({ pointer: 0, bytes: 0 });
  turn = (turn + 1) % areas;
  return plainAttention(module, plain, scratches[turn], options, threaded);
};
})(Module);
