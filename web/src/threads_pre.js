// --pre-js of the threads builds (web/CMakeLists.txt): runs inside the module's factory.
// In Node, Emscripten 3.1.6's pthreads glue calls require() ('worker_threads', 'os') and reads
// __dirname, which an ES module lacks. The loader passes both in (attnNodeRequire,
// attnNodeDirectory); in a pthread Worker under Node, the Worker's script (NAME.worker.cjs) has
// put its own require on the global object. In browsers neither is read.
var require = Module['attnNodeRequire'] || (typeof globalThis.require == 'function' ? globalThis.require : undefined);
var __dirname = Module['attnNodeDirectory'] || '';
