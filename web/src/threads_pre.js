// --pre-js of the threads builds (web/CMakeLists.txt): runs inside the module's factory.
// In Node, Emscripten 3.1.6's pthreads glue calls require() ('worker_threads', 'os') and reads
// __dirname, which an ES module lacks. The loader passes both in (attnNodeRequire,
// attnNodeDirectory); in a pthread Worker under Node, the Worker's script (NAME.worker.cjs) has
// put its own require on the global object. In browsers neither is read.
var require = Module['attnNodeRequire'] || (typeof globalThis.require == 'function' ? globalThis.require : undefined);
var __dirname = Module['attnNodeDirectory'] || '';

// Every Worker the glue starts comes through here (the glue names `Worker` in this scope; in Node
// it puts worker_threads' Worker on the global object first). In browsers a Worker that cannot
// start (a Content-Security-Policy whose worker-src leaves the script out, a missing file) only
// fires 'error', and Emscripten 3.1.6's glue then waits for it forever: the loader is told
// (attnWorkerFailed) so that loading ends with an error, and it keeps the Workers (attnWorkers) to
// end them.
var Worker = function (url, options) {
  var failed = Module['attnWorkerFailed'];
  var worker;
  try {
    worker = new globalThis.Worker(url, options);
  } catch (error) {
    if (failed) failed(error);
    throw error;
  }
  if (Module['attnWorkers']) Module['attnWorkers'].push(worker);
  if (failed && typeof worker.addEventListener == 'function') {
    worker.addEventListener('error', function (event) { failed(event); });
  }
  return worker;
};
