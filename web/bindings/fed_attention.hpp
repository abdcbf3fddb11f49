// attention() whose inputs are still arriving: the loader's protocol for the threads build's plain
// calls (plain_attention.cpp), which copies them into the shared heap while the pool's threads
// start, so that the copy and the first heads' work overlap instead of following one another, and
// copies the output out as heads end. Built on the core's hooks (attn::detail::AttentionHooks);
// plain C++, tested natively (tests/test_threads.cpp).
#pragma once

#include <atomic>
#include <functional>

#include "attn/core/attention.hpp"

namespace attn::web {

// How a caller feeds attention's inputs in and, optionally, drains its output.
struct Feeding {
  // Runs on the calling thread once the pool's threads have their parts (first, without a pool)
  // and puts the inputs in place head by head, storing with release order into *heads_ready how
  // many heads' queries, keys and values are in place; a part of head h waits until
  // *heads_ready > h. It must not start or resize the pool (set_threads).
  std::function<void()> feed;
  std::atomic<int>* heads_ready = nullptr;
  // If given: runs on the calling thread once it has no part left to take, while the pool's
  // threads may still finish theirs (after the parts, without a pool). parts_left[h] (an array of
  // shape.heads) counts head h's parts not yet ended, set before feed runs and decremented with
  // release order as each ends (also one skipped after a bad input): a head whose count is 0 has
  // its output in place, which drain may copy out. A part that throws (the call then fails) is not
  // counted off, so drain must bound its wait (the loader's watches for at most 0.2 ms).
  std::function<void()> drain;
  std::atomic<int>* parts_left = nullptr;
};

// attention(shape, query, key, value, options, outputs), where the inputs' contents need not be in
// place yet: *heads_ready is set to 0, then feeding.feed and feeding.drain run as above. A feed
// that throws, or returns with fewer than shape.heads heads in place, has every head released,
// and its exception (or an attn::Error saying how many heads it fed) is rethrown once the parts
// are done. Shapes and options are checked before anything runs: an error there leaves feed unrun.
void fed_attention(const Shape& shape, const float* query, const float* key, const float* value,
                   const AttentionOptions& options, const AttentionOutputs& outputs, const Feeding& feeding);

}  // namespace attn::web
