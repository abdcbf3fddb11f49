// The page's one line to its compute thread (worker.mjs): starts the worker, hands on its 'ready'
// and 'extras' messages, and pairs every request with its reply by id. The views call request()
// and get the worker's reply: {type: 'result', result} or {type: 'error', message}.
export class WorkerClient {
  constructor(url = new URL('./worker.mjs', import.meta.url)) {
    this.worker = new Worker(url, { type: 'module' });
    this.nextId = 1;
    this.replies = new Map();  // id -> resolve
    let extrasArrived;
    // The optional models, after 'ready': {models: {reverse, general}, statistical, error?}.
    this.extras = new Promise((resolve) => { extrasArrived = resolve; });
    this.ready = new Promise((resolve, reject) => {
      this.worker.addEventListener('message', ({ data }) => {
        if (data.type === 'ready') resolve(data);
        else if (data.type === 'extras') extrasArrived(data);
        else if (data.type === 'failed') reject(new Error(data.message));
        else this.reply(data);
      });
      this.worker.addEventListener('error', (event) => reject(new Error(event.message || 'the worker failed to start')));
    });
  }

  // Loads the module (the SIMD build or not) and the forward model: resolves with the 'ready' message.
  start(simd) {
    this.worker.postMessage({ type: 'init', simd });
    return this.ready;
  }

  // message: {type: 'align' | 'translate', ...}; resolves with the worker's reply to it.
  request(message) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.replies.set(id, resolve);
      this.worker.postMessage({ ...message, id });
    });
  }

  reply(data) {
    const resolve = this.replies.get(data.id);
    if (!resolve) return;
    this.replies.delete(data.id);
    resolve(data);
  }
}
