// The thread count, set by the loader once the module (and, in the threads builds, its Workers)
// has loaded: attn::set_threads, whose errors come back as JS Error objects like every binding's.
#include <emscripten/bind.h>

#include "attn/core/threads.hpp"
#include "js_args.hpp"

namespace attn::js {
namespace {

val set_threads_js(int count) {
  return guarded([&] {
    set_threads(count);
    return val::undefined();
  });
}

}  // namespace
}  // namespace attn::js

EMSCRIPTEN_BINDINGS(threads) { emscripten::function("setThreads", &attn::js::set_threads_js); }
