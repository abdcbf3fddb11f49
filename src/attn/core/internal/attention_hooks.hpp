// What a caller may run around attention()'s parts. Internal: not part of the public API.
#pragma once

#include <functional>

#include "attn/core/attention.hpp"

namespace attn::detail {

// Hooks on a call's parts (each part is one head's block of query rows) and on parallel_for's lead
// and trail. attention() knows nothing else of the caller: the WebAssembly module's loader, which
// copies the inputs in while the pool's threads start and the output out as heads end, builds its
// protocol from these (web/bindings/fed_attention.hpp). Every hook may be empty.
struct AttentionHooks {
  // Once the call's arguments are checked, before anything else runs: each head's parts.
  std::function<void(int parts_per_head)> start;
  // parallel_for's lead and trail (attn/core/threads.hpp), on the calling thread.
  std::function<void()> lead, trail;
  // In a part, before it reads head h's inputs (it may wait for them).
  std::function<void(int head)> enter;
  // When a part of head h ends (also a part skipped after a bad input); not after a part that
  // throws, which fails the call: whatever waits for parts to leave must bound its wait.
  std::function<void(int head)> leave;
  // false when the inputs can no longer be read (a lead that failed): an error of the call is then
  // rethrown as it is, not named by a scan of the inputs.
  std::function<bool()> inputs_readable;
};

// attention(shape, query, key, value, options, outputs) with hooks.
void hooked_attention(const Shape& shape, const float* query, const float* key, const float* value,
                      const AttentionOptions& options, const AttentionOutputs& outputs, const AttentionHooks& hooks);

}  // namespace attn::detail
