#include "fed_attention.hpp"

#include "attn/core/error.hpp"
#include "attn/core/internal/attention_hooks.hpp"
#include "attn/core/internal/spin.hpp"

namespace attn::web {

namespace {

// The protocol's side of a call, as the core's hooks: the calling thread runs the feed once the
// threads have their parts (lead), a part of head h waits until the feed has put that head in
// place, and each part that ends (not one that throws: the call then fails) counts itself off its
// head for the drain. A feed that fails, or stops short, releases every head, and its error is the
// call's.
class Gate {
 public:
  Gate(const Feeding& feeding, int heads) : feeding_(feeding), heads_(heads) {}

  detail::AttentionHooks hooks() {
    const bool drains = feeding_.drain && feeding_.parts_left;
    return {
        [this, drains](int parts_per_head) {
          feeding_.heads_ready->store(0, std::memory_order_relaxed);  // published with the job
          for (int head = 0; drains && head < heads_; ++head)
            feeding_.parts_left[head].store(parts_per_head, std::memory_order_relaxed);
        },
        [this] { feed(); },
        feeding_.drain,
        [this](int head) {  // until the head's inputs are in place
          while (feeding_.heads_ready->load(std::memory_order_acquire) <= head) spin_pause();
        },
        drains ? std::function<void(int)>(
                     [this](int head) { feeding_.parts_left[head].fetch_sub(1, std::memory_order_release); })
               : std::function<void(int)>(),
        [this] { return !failed_; },
    };
  }

 private:
  void feed() {
    try {
      feeding_.feed();
    } catch (...) {
      release_every_head();
      throw;
    }
    const int fed = feeding_.heads_ready->load(std::memory_order_relaxed);
    if (fed < heads_) {
      release_every_head();
      fail("attention: the feed put ", fed, " of ", heads_, " heads in place");
    }
  }
  void release_every_head() {
    failed_ = true;
    feeding_.heads_ready->store(heads_, std::memory_order_release);
  }

  const Feeding& feeding_;
  const int heads_;
  bool failed_ = false;
};

}  // namespace

void fed_attention(const Shape& shape, const float* query, const float* key, const float* value,
                   const AttentionOptions& options, const AttentionOutputs& outputs, const Feeding& feeding) {
  Gate gate(feeding, shape.heads);
  detail::hooked_attention(shape, query, key, value, options, outputs, gate.hooks());
}

}  // namespace attn::web
