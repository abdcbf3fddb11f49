// The page's line to a compute thread (worker.mjs: the models; module-worker.mjs: dropped matrices and the playground):
// starts it with an 'init' message, pairs every request with its reply by id, and hands on the
// worker's own messages ('module', 'ready', 'progress', 'loaded', 'failed') as events. cancel() ends the
// worker mid-computation and starts a fresh one: the only way to stop WebAssembly that is running.
// Replies: {type: 'result', result} | {type: 'error', message} | {type: 'cancelled'}.
// answerRequests() is the same protocol's worker side.
export class WorkerClient extends EventTarget {
  constructor(url, init) {
    super();
    this.url = url;
    this.init = init;
    this.nextId = 1;
    this.replies = new Map();  // id -> resolve
    this.start();
  }

  // module: resolves with the 'module' message (the WebAssembly module is in);
  // ready: with 'ready' (what the worker loads first is in too).
  start() {
    let resolveModule, resolveReady, failModule, failReady;
    this.module = new Promise((resolve, reject) => { resolveModule = resolve; failModule = reject; });
    this.ready = new Promise((resolve, reject) => { resolveReady = resolve; failReady = reject; });
    this.ready.catch(() => {});  // a worker without a 'ready' stage never resolves it; one that fails says so in 'module'
    const fail = (error) => {
      failModule(error);
      failReady(error);
    };
    this.worker = new Worker(this.url, { type: 'module' });
    this.worker.addEventListener('message', ({ data }) => {
      if (data.type === 'module') resolveModule(data);
      else if (data.type === 'ready') resolveReady(data);
      else if (data.type === 'failed') fail(new Error(data.message));
      if (data.id !== undefined) this.reply(data);
      else this.dispatchEvent(new CustomEvent(data.type, { detail: data }));
    });
    this.worker.addEventListener('error', (event) => fail(new Error(event.message || 'the worker failed to start')));
    this.worker.postMessage(this.init);
  }

  /** message: {type, ...}; resolves with the worker's reply. transfer: buffers to hand over. */
  request(message, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.replies.set(id, resolve);
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  reply(data) {
    const resolve = this.replies.get(data.id);
    if (!resolve) return;
    this.replies.delete(data.id);
    resolve(data);
  }

  /** Stops whatever the worker is doing: every open request resolves {type: 'cancelled'}; a fresh worker starts. */
  cancel() {
    this.worker.terminate();
    for (const resolve of this.replies.values()) resolve({ type: 'cancelled' });
    this.replies.clear();
    this.start();
    this.dispatchEvent(new CustomEvent('restart'));
  }
}

/**
 * latestOnly(send) -> run(settings): at most one send() at a time; settings that arrive meanwhile
 * wait, and newer settings replace waiting ones. A run() whose answer is no longer the latest
 * word (newer settings came, or run.drop() was called because the view refused its settings)
 * resolves {type: 'superseded'}, so a late answer never lands on a view that has moved on.
 * send(settings, newer) may call newer() to learn whether newer settings are waiting.
 */
export function latestOnly(send) {
  let running = false, waiting = null, latest = 0;
  const pump = async () => {
    if (running || !waiting) return;
    const { settings, resolve, asked } = waiting;
    waiting = null;
    running = true;
    let reply;
    try {
      reply = await send(settings, () => waiting !== null);
    } catch (error) {
      reply = { type: 'error', message: error.message };
    }
    running = false;
    resolve(asked === latest ? reply : { type: 'superseded' });
    pump();
  };
  const run = (settings) => new Promise((resolve) => {
    waiting?.resolve({ type: 'superseded' });
    waiting = { settings, resolve, asked: ++latest };
    pump();
  });
  run.drop = () => {
    latest++;
    waiting?.resolve({ type: 'superseded' });
    waiting = null;
  };
  return run;
}

// The buffers of typed arrays that own all of theirs: handed over (transferred), not copied.
const ownBuffers = (arrays) => arrays.filter((a) => a && a.buffer.byteLength === a.byteLength).map((a) => a.buffer);

/**
 * In a worker: init(message) runs for {type: 'init'} and posts {type: 'failed', message} if it
 * throws; every request {type, id, ...} waits for it and is answered with handlers[type](request)
 * as {type: 'result', id, result} (handing over the arrays that transfer(result) lists) or
 * {type: 'error', id, message, field, said} (said: the message for the page to say, messages.mjs;
 * absent where the library or the engine threw).
 */
/**
 * @param {{init: (message: any) => Promise<void>, handlers: Object<string, (request: any) => any>,
 *   transfer?: (result: any) => ArrayBufferView[]}} parts
 */
export function answerRequests({ init, handlers, transfer = () => [] }) {
  let started = Promise.resolve();
  self.onmessage = async ({ data }) => {
    if (data.type === 'init') {
      started = init(data);
      started.catch((error) => self.postMessage({ type: 'failed', message: error.message }));
      return;
    }
    try {
      await started;
      const handler = handlers[data.type];
      if (!handler) throw new Error(`unknown request '${data.type}'`);
      const result = await handler(data);
      self.postMessage({ type: 'result', id: data.id, result }, ownBuffers(transfer(result)));
    } catch (error) {
      self.postMessage({ type: 'error', id: data.id, message: error.message, field: error.field, said: error.said });
    }
  };
}
