// attention() whose inputs are still arriving: for a caller that copies them in while the pool's
// threads start (the WebAssembly loader, into the threads build's shared heap), so that the copy
// and the first heads' work overlap instead of following one another.
#pragma once

#include <atomic>
#include <functional>

#include "attn/core/attention.hpp"

namespace attn::detail {

// attention(shape, query, key, value, options, outputs), where the inputs' contents need not be in
// place yet: heads_ready is set to 0, then feed runs on the calling thread once the pool's threads
// have their parts (first, without a pool) and puts the inputs in place head by head, storing
// with release order into heads_ready how many heads' queries, keys and values are in place; a
// part of head h waits until heads_ready > h. feed must not start or resize the pool
// (set_threads). A feed that throws, or returns with fewer than shape.heads heads in place, has
// every head released, and its exception (or an attn::Error saying how many heads it fed) is
// rethrown once the parts are done. Shapes and options are checked before feed runs: an error
// there leaves it unrun.
void fed_attention(const Shape& shape, const float* query, const float* key, const float* value,
                   const AttentionOptions& options, const AttentionOutputs& outputs, const std::function<void()>& feed,
                   std::atomic<int>& heads_ready);

}  // namespace attn::detail
