// The thread pool: parallel_for's contract, and attention giving the same bits on any number of
// threads for every path (fused, weights kept, general, additive, local, hard, masks). In a
// WebAssembly build without threads, set_threads refuses more than one.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/hmm.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/models/translation_model.hpp"
#include "fed_attention.hpp"  // web/bindings/: the loader's protocol, plain C++
#include "fixtures.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

// Sets the thread count for one test and puts back one thread after it.
struct ThreadCount {
  explicit ThreadCount(int count) { set_threads(count); }
  ~ThreadCount() { set_threads(1); }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// Every output of attention() with the given options, on `count` threads.
AttentionResult run_on(int count, const Shape& shape, const std::vector<float>& q, const std::vector<float>& k,
                       const std::vector<float>& v, const AttentionOptions& options, Returns returns) {
  ThreadCount threads(count);
  return attention(shape, q, k, v, options, returns);
}

// fed_attention with a feed alone.
void fed_attention_with(const Shape& shape, const float* query, const float* key, const float* value,
                        const AttentionOptions& options, const AttentionOutputs& outputs, std::function<void()> feed,
                        std::atomic<int>& ready) {
  web::Feeding feeding;
  feeding.feed = std::move(feed);
  feeding.heads_ready = &ready;
  web::fed_attention(shape, query, key, value, options, outputs, feeding);
}

}  // namespace

TEST_CASE("set_threads checks its count", "[threads]") {
  CHECK(threads() == 1);
  CHECK_THROWS_WITH(set_threads(0), Contains("threads") && Contains("got 0"));
  CHECK_THROWS_WITH(set_threads(-3), Contains("threads"));
  CHECK_THROWS_WITH(set_threads(max_threads + 1), Contains("threads"));
  CHECK(threads() == 1);
  CHECK(hardware_threads() >= 1);
  if (!threads_supported()) {
    CHECK_THROWS_WITH(set_threads(2), Contains("no threads"));
    return;
  }
  {
    ThreadCount pool(3);
    CHECK(threads() == 3);
    set_threads(2);
    CHECK(threads() == 2);
  }
  CHECK(threads() == 1);
}

TEST_CASE("parallel_for runs every item once, each worker one task at a time", "[threads]") {
  const int count = 1000;
  for (int pool : {1, 2, 4}) {
    if (pool > 1 && !threads_supported()) continue;
    ThreadCount threads_on(pool);
    for (int grain : {1, 7}) {
      std::vector<std::atomic<int>> runs(count);
      std::vector<std::atomic<int>> busy(pool);
      std::atomic<bool> overlapped{false}, out_of_range{false};
      parallel_for(
          count, 0,
          [&](int item, int worker) {
            if (worker < 0 || worker >= pool) {
              out_of_range = true;
              return;
            }
            if (busy[worker].fetch_add(1) != 0) overlapped = true;
            runs[item].fetch_add(1);
            busy[worker].fetch_sub(1);
          },
          grain);
      CHECK_FALSE(overlapped);
      CHECK_FALSE(out_of_range);
      int wrong = 0;
      for (auto& r : runs) wrong += r.load() != 1;
      CHECK(wrong == 0);
    }
    int calls = 0;
    parallel_for(0, 0, [&](int, int) { ++calls; });
    CHECK(calls == 0);
  }
}

TEST_CASE("parallel_for rethrows the lowest failing item's exception after every item ran", "[threads]") {
  for (int pool : {1, 3}) {
    if (pool > 1 && !threads_supported()) continue;
    ThreadCount threads_on(pool);
    std::atomic<int> ran{0};
    const auto task = [&](int item, int) {
      ran.fetch_add(1);
      if (item == 40 || item == 90) throw std::runtime_error("item " + std::to_string(item));
    };
    CHECK_THROWS_WITH(parallel_for(100, 0, task), "item 40");
    // one thread stops at the first failure, as a plain loop does; more threads finish the others
    CHECK(ran.load() >= 41);
    // the pool is usable afterwards
    std::atomic<int> sum{0};
    parallel_for(100, 0, [&](int item, int) { sum.fetch_add(item); });
    CHECK(sum.load() == 4950);
  }
}

TEST_CASE("parallel_for's lead runs once on the calling thread while the pool's threads take items", "[threads]") {
  for (int pool : {1, 2, 4}) {
    if (pool > 1 && !threads_supported()) continue;
    INFO("threads " << pool);
    ThreadCount threads_on(pool);
    const auto caller = std::this_thread::get_id();
    std::atomic<int> released{0}, leads{0}, wrong{0};
    std::vector<std::atomic<int>> ran(64);
    // each item waits for the lead to release it, so with a pool the items cannot all wait for the
    // calling thread: the pool's threads must have them while the lead runs
    parallel_for(
        64, 0,
        [&](int item, int) {
          while (released.load(std::memory_order_acquire) <= item) {
          }
          ran[item].fetch_add(1);
        },
        1,
        [&] {
          leads.fetch_add(1);
          if (std::this_thread::get_id() != caller) wrong.fetch_add(1);
          for (int item = 0; item < 64; ++item) {
            if (pool > 1 && item == 1) {  // a pool's thread is waiting on item 0 (or 1) by now
              const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
              while (ran[0].load() == 0 && released.load() == 1 && std::chrono::steady_clock::now() < until) {
              }
              if (ran[0].load() == 0) wrong.fetch_add(1);  // nobody took item 0 while the lead ran
            }
            released.store(item + 1, std::memory_order_release);
          }
        });
    CHECK(leads.load() == 1);
    CHECK(wrong.load() == 0);
    int once = 0;
    for (auto& count : ran) once += count.load() == 1;
    CHECK(once == 64);
  }
}

TEST_CASE(
    "parallel_for's trail runs once on the calling thread when it has no item left, and its error comes after the "
    "lead's",
    "[threads]") {
  for (int pool : {1, 2, 4}) {
    if (pool > 1 && !threads_supported()) continue;
    INFO("threads " << pool);
    ThreadCount threads_on(pool);
    const auto caller = std::this_thread::get_id();
    std::atomic<int> ended{0}, trails{0}, wrong{0};
    std::atomic<bool> trail_ran{false};
    const auto task = [&](int, int) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ended.fetch_add(1);
    };
    // the pool's threads hold their first item until the trail has run: a trail that waited for
    // them would never come (they give up after 10 s, and count that as wrong)
    const auto held = [&](int item, int worker) {
      if (worker != 0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!trail_ran.load() && std::chrono::steady_clock::now() < until) {
        }
        if (!trail_ran.load()) wrong.fetch_add(1);
      }
      task(item, worker);
    };
    parallel_for(
        40, 0, held, 1, [] {},
        [&] {
          trail_ran.store(true);
          trails.fetch_add(1);
          if (std::this_thread::get_id() != caller) wrong.fetch_add(1);
          // the calling thread has taken its last item: at most one item per other thread is still going
          if (ended.load() < 40 - (pool - 1)) wrong.fetch_add(1);
          if (pool == 1 && ended.load() != 40) wrong.fetch_add(1);  // without a pool, after every item
        });
    CHECK(ended.load() == 40);
    CHECK(trails.load() == 1);
    CHECK(wrong.load() == 0);
    CHECK_THROWS_WITH(parallel_for(
                          10, 0, task, 1, [] {}, [] { throw std::runtime_error("trail"); }),
                      "trail");
    CHECK_THROWS_WITH(
        parallel_for(
            10, 0, task, 1, [] { throw std::runtime_error("lead"); }, [] { throw std::runtime_error("trail"); }),
        "lead");
  }
}

TEST_CASE("parallel_for rethrows its lead's exception first, and the pool stays usable", "[threads]") {
  for (int pool : {1, 3}) {
    if (pool > 1 && !threads_supported()) continue;
    INFO("threads " << pool);
    ThreadCount threads_on(pool);
    std::atomic<int> ran{0};
    const auto task = [&](int item, int) {
      ran.fetch_add(1);
      if (item == 5) throw std::runtime_error("item 5");
    };
    CHECK_THROWS_WITH(parallel_for(50, 0, task, 1, [] { throw std::runtime_error("lead"); }), "lead");
    // without a pool nothing ran; with one, every item did
    CHECK(ran.load() == (pool == 1 ? 0 : 50));
    std::atomic<int> sum{0};
    parallel_for(
        100, 0, [&](int item, int) { sum.fetch_add(item); }, 1, [] {});
    CHECK(sum.load() == 4950);
  }
}

TEST_CASE("attention fed its inputs head by head while it runs gives attention()'s bits", "[threads][attention]") {
  const int heads = 6, length = 130, keys = 100, dim = 16;
  const Shape shape = testing::make_shape(heads, length, keys, dim);
  const auto q = testing::random_values(std::size_t(heads) * length * dim, 21);
  const auto k = testing::random_values(std::size_t(heads) * keys * dim, 22);
  const auto v = testing::random_values(std::size_t(heads) * keys * dim, 23);
  for (bool causal : {false, true}) {
    AttentionOptions options;
    options.mask.causal = causal;
    const AttentionResult expected = attention(shape, q, k, v, options, Returns::output);
    for (int pool : {1, 2, 4}) {
      if (pool > 1 && !threads_supported()) continue;
      INFO("threads " << pool << (causal ? ", causal" : ""));
      ThreadCount threads_on(pool);
      // NaN until fed: a part that reads a head before it is in place fails the finite scan
      const float nan = std::numeric_limits<float>::quiet_NaN();
      std::vector<float> fq(q.size(), nan), fk(k.size(), nan), fv(v.size(), nan), out(q.size());
      std::atomic<int> ready{0};
      AttentionOutputs outputs;
      outputs.output = out.data();
      fed_attention_with(
          shape, fq.data(), fk.data(), fv.data(), options, outputs,
          [&] {
            for (int h = 0; h < heads; ++h) {
              std::this_thread::sleep_for(std::chrono::milliseconds(2));
              const std::size_t qs = std::size_t(length) * dim, ks = std::size_t(keys) * dim;
              std::copy(q.begin() + h * qs, q.begin() + (h + 1) * qs, fq.begin() + h * qs);
              std::copy(k.begin() + h * ks, k.begin() + (h + 1) * ks, fk.begin() + h * ks);
              std::copy(v.begin() + h * ks, v.begin() + (h + 1) * ks, fv.begin() + h * ks);
              ready.store(h + 1, std::memory_order_release);
            }
          },
          ready);
      CHECK(same_bits(out, expected.output));
    }
  }
}

TEST_CASE("attention fed and drained head by head gives attention()'s bits, each head drained once finished",
          "[threads][attention]") {
  const int heads = 7, length = 130, keys = 100, dim = 16;
  const Shape shape = testing::make_shape(heads, length, keys, dim);
  const std::size_t q_head = std::size_t(length) * dim, kv_head = std::size_t(keys) * dim;
  const auto q = testing::random_values(heads * q_head, 41);
  const auto k = testing::random_values(heads * kv_head, 42);
  const auto v = testing::random_values(heads * kv_head, 43);
  // the fused path's output, and the blocked path's (weights kept), which rounds differently
  const AttentionResult fused = attention(shape, q, k, v, AttentionOptions{}, Returns::output);
  const AttentionResult blocked = attention(shape, q, k, v, AttentionOptions{}, Returns::weights);
  for (int pool : {1, 2, 4}) {
    if (pool > 1 && !threads_supported()) continue;
    INFO("threads " << pool);
    ThreadCount threads_on(pool);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> fq(q.size()), fk(k.size()), fv(v.size()), out(q.size(), nan), drained(q.size(), nan);
    std::atomic<int> ready{0}, drains{0};
    std::vector<std::atomic<int>> left(heads);
    std::vector<int> copied(heads, 0);
    web::Feeding feeding;
    feeding.heads_ready = &ready;
    feeding.parts_left = left.data();
    feeding.feed = [&] {
      for (int h = 0; h < heads; ++h) {
        std::copy(q.begin() + h * q_head, q.begin() + (h + 1) * q_head, fq.begin() + h * q_head);
        std::copy(k.begin() + h * kv_head, k.begin() + (h + 1) * kv_head, fk.begin() + h * kv_head);
        std::copy(v.begin() + h * kv_head, v.begin() + (h + 1) * kv_head, fv.begin() + h * kv_head);
        ready.store(h + 1, std::memory_order_release);
      }
    };
    // as the loader's: copy out every head whose parts have all ended, until none is left
    feeding.drain = [&] {
      drains.fetch_add(1);
      for (int done = 0; done < heads;) {
        for (int h = 0; h < heads; ++h) {
          if (copied[h] || left[h].load(std::memory_order_acquire) != 0) continue;
          std::copy(out.begin() + h * q_head, out.begin() + (h + 1) * q_head, drained.begin() + h * q_head);
          copied[h] = 1;
          ++done;
        }
      }
    };
    for (bool weights : {false, true}) {  // the fused path, and the blocked one that keeps weights
      INFO((weights ? "with weights" : "output only"));
      std::fill(out.begin(), out.end(), nan);
      std::fill(drained.begin(), drained.end(), nan);
      std::fill(copied.begin(), copied.end(), 0);
      drains.store(0);
      std::vector<float> kept(std::size_t(heads) * length * keys);
      AttentionOutputs outputs;
      outputs.output = out.data();
      if (weights) outputs.weights = kept.data();
      web::fed_attention(shape, fq.data(), fk.data(), fv.data(), AttentionOptions{}, outputs, feeding);
      const std::vector<float>& expected = weights ? blocked.output : fused.output;
      CHECK(drains.load() == 1);
      CHECK(same_bits(drained, expected));
      CHECK(same_bits(out, expected));
      if (weights) CHECK(same_bits(kept, blocked.weights));
    }
    // a bad input: every part still counts itself off (early or not), the drain ends, the call fails
    feeding.feed = [&] {
      for (int h = 0; h < heads; ++h) {
        std::copy(q.begin() + h * q_head, q.begin() + (h + 1) * q_head, fq.begin() + h * q_head);
        if (h == 3) fq[3 * q_head + 7] = nan;
        ready.store(h + 1, std::memory_order_release);
      }
    };
    bool ended = false;
    feeding.drain = [&] {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!ended && std::chrono::steady_clock::now() < until) {
        ended = true;
        for (int h = 0; h < heads; ++h) ended = ended && left[h].load(std::memory_order_acquire) == 0;
      }
    };
    AttentionOutputs outputs;
    outputs.output = out.data();
    CHECK_THROWS_WITH(web::fed_attention(shape, fq.data(), fk.data(), fv.data(), AttentionOptions{}, outputs, feeding),
                      Contains("query") && Contains("NaN") && Contains(std::to_string(3 * q_head + 7)));
    CHECK(ended);
  }
}

TEST_CASE("attention fed its inputs names a bad one, and a feed that fails or stops short ends it",
          "[threads][attention]") {
  // large enough for every thread count to use the pool (workers_for)
  const int heads = 6, length = 130, keys = 100, dim = 16;
  const Shape shape = testing::make_shape(heads, length, keys, dim);
  const std::size_t per_head = std::size_t(keys) * dim;
  const auto q = testing::random_values(std::size_t(heads) * length * dim, 31);
  auto k = testing::random_values(heads * per_head, 32);
  const auto v = testing::random_values(heads * per_head, 33);
  k[2 * per_head + 5] = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int pool : {1, 3}) {
    if (pool > 1 && !threads_supported()) continue;
    INFO("threads " << pool);
    ThreadCount threads_on(pool);
    std::vector<float> fk(k.size(), nan), out(q.size());
    AttentionOutputs outputs;
    outputs.output = out.data();
    std::atomic<int> ready{heads};  // stale from a last call: fed_attention starts it at 0
    const auto feed_keys = [&](int stop) {
      return [&, stop] {
        for (int h = 0; h < stop; ++h) {
          std::copy(k.begin() + h * per_head, k.begin() + (h + 1) * per_head, fk.begin() + h * per_head);
          ready.store(h + 1, std::memory_order_release);
        }
      };
    };
    CHECK_THROWS_WITH(
        fed_attention_with(shape, q.data(), fk.data(), v.data(), AttentionOptions{}, outputs, feed_keys(heads), ready),
        Contains("key") && Contains("infinite") && Contains(std::to_string(2 * per_head + 5)));
    // a feed that stops after two heads: an error saying so, not a wait for the rest
    std::fill(fk.begin(), fk.end(), nan);
    CHECK_THROWS_WITH(
        fed_attention_with(shape, q.data(), fk.data(), v.data(), AttentionOptions{}, outputs, feed_keys(2), ready),
        "attention: the feed put 2 of 6 heads in place");
    // a feed that fails: its own error, not a complaint about the inputs it never fed
    std::fill(fk.begin(), fk.end(), nan);
    CHECK_THROWS_WITH(fed_attention_with(
                          shape, q.data(), fk.data(), v.data(), AttentionOptions{}, outputs,
                          [&] {
                            ready.store(1, std::memory_order_release);
                            throw Error("the feed failed");
                          },
                          ready),
                      "the feed failed");
    CHECK(ready.load() == heads);
    // the pool is usable afterwards
    std::atomic<int> sum{0};
    parallel_for(10, 0, [&](int item, int) { sum.fetch_add(item); });
    CHECK(sum.load() == 45);
  }
}

TEST_CASE("a parallel_for or wake_threads inside parallel_for's lead runs in place", "[threads]") {
  if (!threads_supported()) return;
  ThreadCount threads_on(3);
  std::atomic<int> inner{0}, outer{0};
  parallel_for(
      20, 0, [&](int, int) { outer.fetch_add(1); }, 1,
      [&] {
        wake_threads();
        parallel_for(30, 0, [&](int, int worker) {
          CHECK(worker == 0);
          inner.fetch_add(1);
        });
      });
  CHECK(inner.load() == 30);
  CHECK(outer.load() == 20);
}

TEST_CASE("a parallel_for inside a task runs in place", "[threads]") {
  if (!threads_supported()) return;
  ThreadCount threads_on(3);
  std::vector<std::atomic<int>> cells(20 * 30);
  parallel_for(20, 0, [&](int outer, int) {
    parallel_for(30, 0, [&](int inner, int worker) {
      CHECK(worker == 0);
      cells[outer * 30 + inner].fetch_add(1);
    });
  });
  int wrong = 0;
  for (auto& c : cells) wrong += c.load() != 1;
  CHECK(wrong == 0);
}

TEST_CASE("ThreadLimit caps the calling thread's parallel_for without stopping the pool", "[threads]") {
  CHECK_THROWS_WITH(ThreadLimit(0), Contains("threads") && Contains("got 0"));
  CHECK_THROWS_WITH(ThreadLimit(-2), Contains("threads"));
  if (!threads_supported()) return;
  ThreadCount threads_on(3);
  // Items slow enough (a millisecond each) that without the limit the pool's threads would join
  // in and take some; under it, every item runs on the calling thread as worker 0.
  const auto on_this_thread_only = [](int items) {
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> elsewhere{0}, other_worker{0}, runs{0};
    parallel_for(items, 0, [&](int, int worker) {
      if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
      if (worker != 0) other_worker.fetch_add(1);
      runs.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    return runs.load() == items && elsewhere.load() == 0 && other_worker.load() == 0;
  };
  {
    const ThreadLimit one(1);
    CHECK(threads() == 3);  // the pool is still started
    CHECK(workers_for(64, 1e9) == 1);
    CHECK(on_this_thread_only(64));
    {
      const ThreadLimit looser(4);  // the tighter limit holds
      CHECK(workers_for(64, 1e9) == 1);
      CHECK(on_this_thread_only(64));
    }
    CHECK(workers_for(64, 1e9) == 1);
    wake_threads();  // nothing to wake for
  }
  CHECK(workers_for(64, 1e9) == 3);
  {
    const ThreadLimit two(2);
    CHECK(workers_for(64, 1e9) == 2);
    std::vector<std::atomic<int>> runs(200);
    std::atomic<bool> out_of_range{false};
    parallel_for(200, 0, [&](int item, int worker) {
      if (worker < 0 || worker >= 2) out_of_range = true;
      runs[item].fetch_add(1);
    });
    CHECK_FALSE(out_of_range);
    int wrong = 0;
    for (auto& r : runs) wrong += r.load() != 1;
    CHECK(wrong == 0);
    {
      const ThreadLimit tighter(1);
      CHECK(workers_for(64, 1e9) == 1);
    }
    CHECK(workers_for(64, 1e9) == 2);  // each limit restores the one before it
  }
  // the limit is the calling thread's: another thread's calls see none
  const ThreadLimit one(1);
  int seen = 0;
  std::thread([&] { seen = workers_for(64, 1e9); }).join();
  CHECK(seen == 3);
}

TEST_CASE("attention under a ThreadLimit gives the bits of the whole pool's", "[threads][attention]") {
  if (!threads_supported()) return;
  const int heads = 4, length = 140, keys = 90, dim = 32;
  const Shape shape = testing::make_shape(heads, length, keys, dim);
  const auto q = testing::random_values(std::size_t(heads) * length * dim, 11);
  const auto k = testing::random_values(std::size_t(heads) * keys * dim, 12);
  const auto v = testing::random_values(std::size_t(heads) * keys * dim, 13);
  ThreadCount threads_on(2);
  const AttentionResult all = attention(shape, q, k, v, AttentionOptions{}, Returns::weights);
  const ThreadLimit one(1);
  const AttentionResult limited = attention(shape, q, k, v, AttentionOptions{}, Returns::weights);
  CHECK(same_bits(all.output, limited.output));
  CHECK(same_bits(all.weights, limited.weights));
}

TEST_CASE("attention gives the same bits on one thread and many", "[threads][attention]") {
  if (!threads_supported()) return;
  const int heads = 5, length = 150, keys = 130, dim = 24, value_dim = 20;
  const Shape shape = testing::make_shape(heads, length, keys, dim, 0, value_dim);
  const auto q = testing::random_values(std::size_t(heads) * length * dim, 1);
  const auto k = testing::random_values(std::size_t(heads) * keys * dim, 2);
  const auto v = testing::random_values(std::size_t(heads) * keys * value_dim, 3);
  const auto weight = testing::random_values(std::size_t(dim) * dim, 4, -0.3f, 0.3f);
  const auto query_weight = testing::random_values(std::size_t(16) * dim, 5, -0.3f, 0.3f);
  const auto key_weight = testing::random_values(std::size_t(16) * dim, 6, -0.3f, 0.3f);
  const auto additive_v = testing::random_values(16, 7);
  const auto position_weight = testing::random_values(std::size_t(8) * dim, 8, -0.3f, 0.3f);
  const auto position_v = testing::random_values(8, 9);
  std::vector<std::int32_t> lengths{130, 7, 0, 64, 129};
  std::vector<std::uint8_t> keep(std::size_t(length) * keys);
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (i * 7919) % 5 != 0;

  struct Case {
    const char* name;
    AttentionOptions options;
    Returns returns;
  };
  std::vector<Case> cases;
  const auto add = [&](const char* name, Returns returns, auto&& adjust) {
    Case c{name, AttentionOptions{}, returns};
    adjust(c.options);
    cases.push_back(c);
  };
  add("fused scaled dot", Returns::output, [](AttentionOptions&) {});
  add("fused causal", Returns::output, [](AttentionOptions& o) { o.mask.causal = true; });
  add("fused valid lengths", Returns::output, [&](AttentionOptions& o) {
    o.mask.valid_lengths = lengths.data();
    o.mask.valid_length_count = heads;
  });
  add("fused shared keep mask and temperature", Returns::output, [&](AttentionOptions& o) {
    o.mask.keep = keep.data();
    o.mask.keep_batch = 1;
    o.temperature = 0.7f;
  });
  add("fused general", Returns::output, [&](AttentionOptions& o) {
    o.score = Score::general;
    o.general.weight = weight.data();
  });
  add("weights and scores", Returns::weights | Returns::scores, [](AttentionOptions& o) { o.mask.causal = true; });
  add("sparsemax", Returns::weights, [](AttentionOptions& o) { o.probability = Probability::sparsemax; });
  add("additive", Returns::weights, [&](AttentionOptions& o) {
    o.score = Score::additive;
    o.additive.hidden = 16;
    o.additive.query_weight = query_weight.data();
    o.additive.key_weight = key_weight.data();
    o.additive.v = additive_v.data();
  });
  add("local-p", Returns::weights, [&](AttentionOptions& o) {
    o.local.mode = Local::predictive;
    o.local.half_width = 6;
    o.local.hidden = 8;
    o.local.position_weight = position_weight.data();
    o.local.position_v = position_v.data();
  });
  add("hard argmax", Returns::output, [](AttentionOptions& o) { o.hard = Hard::argmax; });
  add("hard sample (one generator, in order)", Returns::weights, [](AttentionOptions& o) {
    o.hard = Hard::sample;
    o.seed = 11;
  });
  add("dropout (one generator, in order)", Returns::weights, [](AttentionOptions& o) {
    o.dropout = 0.3f;
    o.seed = 12;
  });

  for (const Case& c : cases) {
    INFO(c.name);
    const AttentionResult one = run_on(1, shape, q, k, v, c.options, c.returns);
    for (int count : {2, 3, 8}) {
      INFO("threads " << count);
      const AttentionResult many = run_on(count, shape, q, k, v, c.options, c.returns);
      CHECK(same_bits(many.output, one.output));
      CHECK(same_bits(many.weights, one.weights));
      CHECK(same_bits(many.scores, one.scores));
      CHECK(many.indices == one.indices);
      CHECK(same_bits(many.positions, one.positions));
    }
  }
}

TEST_CASE("attention on many threads names bad input as on one", "[threads][attention]") {
  if (!threads_supported()) return;
  ThreadCount threads_on(4);
  const Shape shape = testing::make_shape(8, 128, 128, 64);
  auto q = testing::random_values(std::size_t(8) * 128 * 64, 1, -1e20f, 1e20f);
  const auto k = testing::random_values(q.size(), 2, -1e20f, 1e20f);
  // products overflow float32 in every head: the error is the same whichever thread meets it first
  CHECK_THROWS_WITH(attention(shape, q, k, k), Contains("overflow"));
  // and the pool still works
  const auto small = testing::random_values(q.size(), 3);
  CHECK_NOTHROW(attention(shape, small, small, small));
}

TEST_CASE("attention on many threads names the first non-finite input as one thread does", "[threads][attention]") {
  if (!threads_supported()) return;
  // Several heads (whole heads to each thread) and one long head (its blocks shared between threads,
  // each scanning it); the weights-kept path as well as the fused one.
  for (const Shape& shape : {testing::make_shape(8, 128, 96, 16), testing::make_shape(1, 512, 300, 16)}) {
    const std::size_t queries = std::size_t(shape.heads) * shape.query_length * shape.dim;
    const std::size_t keys = std::size_t(shape.heads) * shape.key_length * shape.dim;
    struct Bad {
      char array;  // q, k or v
      std::size_t index;
      float value;
    };
    const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
    const std::vector<std::vector<Bad>> cases = {
        {{'q', 0, nan}},
        {{'q', queries - 1, inf}},
        {{'k', keys / 2 + 3, -inf}},
        {{'v', keys - 1, nan}},
        {{'v', 5, nan}, {'q', queries - 7, inf}},  // the query is named first, whichever head
        {{'k', keys - 2, inf}, {'v', 0, nan}},
        // the first head's scores overflow as well: the bad value is still what is named
        {{'q', 0, 1e20f}, {'k', 0, 1e30f}, {'v', keys - 3, nan}},
    };
    for (const auto& bad : cases) {
      auto q = testing::random_values(queries, 1), k = testing::random_values(keys, 2),
           v = testing::random_values(keys, 3);
      for (const Bad& b : bad) (b.array == 'q' ? q : b.array == 'k' ? k : v)[b.index] = b.value;
      for (const Returns returns : {Returns::output, Returns::weights}) {
        std::string one;
        try {
          run_on(1, shape, q, k, v, AttentionOptions{}, returns);
        } catch (const Error& e) {
          one = e.what();
        }
        INFO("heads " << shape.heads << ", first bad " << bad[0].array << "[" << bad[0].index << "]: " << one);
        REQUIRE_THAT(one, Contains("contains"));
        for (const int count : {2, 4}) {
          CHECK_THROWS_WITH(run_on(count, shape, q, k, v, AttentionOptions{}, returns), one);
        }
      }
    }
  }
}

TEST_CASE("the models' matrix products give the same bits on one thread and many", "[threads]") {
  if (!threads_supported()) return;
  for (const auto& [rows, in, out] : {std::tuple{1, 512, 2000}, {4, 300, 8000}, {33, 256, 1000}, {7, 1000, 130}}) {
    const auto x = testing::random_values(std::size_t(rows) * in, 1);
    const auto w = testing::random_values(std::size_t(in) * out, 2);
    const auto b = testing::random_values(out, 3);
    std::vector<float> one(std::size_t(rows) * out), many(one.size());
    linear(x.data(), rows, in, w.data(), b.data(), out, one.data());
    for (int count : {2, 3}) {
      ThreadCount threads_on(count);
      std::fill(many.begin(), many.end(), -1.0f);
      linear(x.data(), rows, in, w.data(), b.data(), out, many.data());
      CHECK(same_bits(many, one));
    }
  }
  // the packed Linear as the models call it: whole, and a block of outputs as a vocabulary's
  for (const auto& [rows, in, out] : {std::tuple{1, 256, 2048}, {17, 256, 1000}, {81, 300, 512}}) {
    const Linear layer(testing::random_values(std::size_t(in) * out, 4), testing::random_values(out, 5), in, out);
    const auto x = testing::random_values(std::size_t(rows) * in, 6);
    const int first = 256, count = out - first;
    std::vector<float> one(std::size_t(rows) * out), many(one.size()), part_one(std::size_t(rows) * count),
        part_many(part_one.size());
    layer.forward(x.data(), rows, one.data());
    layer.forward_outputs(x.data(), rows, first, count, part_one.data());
    for (int count_threads : {2, 3}) {
      ThreadCount threads_on(count_threads);
      layer.forward(x.data(), rows, many.data());
      layer.forward_outputs(x.data(), rows, first, count, part_many.data());
      CHECK(same_bits(many, one));
      CHECK(same_bits(part_many, part_one));
    }
  }
}

TEST_CASE("a Transformer aligns and translates alike on one thread and many", "[threads][transformer]") {
  if (!threads_supported()) return;
  const TranslationModel model = TranslationModel::load(read_file("tiny-transformer.safetensors"));
  const std::vector<std::string> source{"the", "cat", "sleeps", "on", "the", "sofa", "."};
  const std::vector<std::string> target{"el", "gato", "duerme", "en", "el", "sofá", "."};
  const AttentionMaps one = attention_maps(model, source, target, true, true);
  const WordTranslation translated = translate_words(model, source, 4);
  ThreadCount threads_on(2);
  const AttentionMaps many = attention_maps(model, source, target, true, true);
  CHECK(same_bits(many.cross, one.cross));
  CHECK(same_bits(many.encoder, one.encoder));
  CHECK(same_bits(many.decoder, one.decoder));
  // the log-probabilities: the vocabulary's blocks (300 pieces: two) combined in their order; a
  // target of 70 words, so that the two blocks are worth two threads (workers_for)
  REQUIRE(one.log_probs.size() == one.target.size());
  CHECK(same_bits(many.log_probs, one.log_probs));
  std::vector<std::string> long_target;
  for (int copy = 0; copy < 10; ++copy) long_target.insert(long_target.end(), target.begin(), target.end());
  const AttentionMaps long_many = attention_maps(model, source, long_target, true, true);
  REQUIRE(long_many.target.size() >= 64);
  ThreadCount back_to_one(1);
  CHECK(same_bits(long_many.log_probs, attention_maps(model, source, long_target, true, true).log_probs));
  CHECK(translate_words(model, source, 4).text == translated.text);
}

TEST_CASE("a two-direction alignment runs its directions side by side with the same result", "[threads][align]") {
  if (!threads_supported()) return;
  const TranslationModel forward = TranslationModel::load(read_file("tiny-additive.safetensors"));
  const TranslationModel backward = TranslationModel::load(read_file("tiny-general.safetensors"));
  const std::vector<std::string> source{"the", "cat", "sleeps", "on", "the", "sofa", "."};
  const std::vector<std::string> target{"el", "gato", "duerme", "en", "el", "sofá", "."};
  const HmmAligner statistical = tiny_hmm(source, target);
  const AlignmentModels models{&forward, &backward, &statistical};
  for (const AlignMethod method : {AlignMethod::hybrid, AlignMethod::grow_diag_final_and, AlignMethod::argmax}) {
    AlignOptions options;
    options.method = method;
    const PairAlignment one = align_pair(models, source, target, options);
    ThreadCount threads_on(2);
    const PairAlignment two = align_pair(models, source, target, options);
    CHECK(same_bits(two.forward.weights, one.forward.weights));
    CHECK(same_bits(two.backward.weights, one.backward.weights));
    CHECK(two.links == one.links);
  }
  // the first direction's error wins, as one after the other
  ThreadCount threads_on(2);
  AlignOptions options;
  options.method = AlignMethod::hybrid;
  CHECK_THROWS_WITH(align_pair(models, std::vector<std::string>{}, target, options), Contains("source"));
}
