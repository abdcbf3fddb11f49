// The thread pool (attn/core/threads.hpp): every item once, worker numbers a caller can index
// scratch with, errors, nesting, the count's limits, and attention equal bit for bit at any
// count. In a build without threads (the WebAssembly suites) only one thread is allowed.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <stdexcept>

#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {
// Sets the thread count for one test and puts it back to one after.
struct ThreadCount {
  explicit ThreadCount(int count) { set_threads(count); }
  ~ThreadCount() { set_threads(1); }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
}  // namespace

TEST_CASE("one thread by default, and counts outside [1, 256] are refused with the option's name", "[threads]") {
  CHECK(threads() == 1);
  CHECK(hardware_threads() >= 1);
  CHECK_THROWS_WITH(set_threads(0), Contains("threads must be in [1, 256], got 0"));
  CHECK_THROWS_WITH(set_threads(257), Contains("threads must be in [1, 256], got 257"));
  CHECK_NOTHROW(set_threads(1));
  CHECK(threads() == 1);
  if (!threads_supported()) {
    CHECK_THROWS_WITH(set_threads(2), Contains("threads must be 1 in this build"));
    CHECK(threads() == 1);
  }
}

TEST_CASE("parallel_for runs every item once, with worker numbers below the thread count", "[threads]") {
  for (const int count : {1, 2, 4}) {
    if (count > 1 && !threads_supported()) continue;
    const ThreadCount pool(count);
    wake_threads();  // a hint: harmless before any job
    for (const int grain : {1, 3, 8}) {
      const int items = 1000;
      std::vector<std::atomic<int>> runs(items);
      std::vector<std::atomic<int>> busy(count);  // no two tasks with the same worker at once
      std::atomic<bool> overlap{false}, out_of_range{false};
      parallel_for(
          items, 0,
          [&](int item, int worker) {
            if (worker < 0 || worker >= count) {
              out_of_range = true;
              return;
            }
            if (busy[worker].fetch_add(1) != 0) overlap = true;
            runs[item].fetch_add(1);
            busy[worker].fetch_sub(1);
          },
          grain);
      CHECK_FALSE(out_of_range);
      CHECK_FALSE(overlap);
      int wrong = 0;
      for (const auto& run : runs) wrong += run.load() != 1;
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("a task's exception reaches the caller (the lowest item's), and the pool still works", "[threads]") {
  const int count = threads_supported() ? 4 : 1;
  const ThreadCount pool(count);
  for (int round = 0; round < 3; ++round) {
    try {
      parallel_for(64, 0, [](int item, int) {
        if (item % 7 == 3) throw std::runtime_error("item " + std::to_string(item));
      });
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "item 3");
    }
  }
  std::atomic<int> total{0};
  parallel_for(100, 0, [&](int item, int) { total += item; });
  CHECK(total == 4950);
}

TEST_CASE("a parallel_for inside a task runs in place, on the task's thread", "[threads]") {
  const ThreadCount pool(threads_supported() ? 3 : 1);
  std::atomic<int> inner{0}, bad_worker{0};
  parallel_for(12, 0, [&](int, int) {
    parallel_for(10, 0, [&](int, int worker) {
      if (worker != 0) ++bad_worker;
      ++inner;
    });
  });
  CHECK(inner == 120);
  CHECK(bad_worker == 0);
}

TEST_CASE("attention gives the same bits on 1, 2 and 4 threads, split over heads and query blocks",
          "[threads][attention]") {
  if (!threads_supported()) return;
  Shape shape;
  shape.heads = 8;
  shape.query_length = 200;  // four 64-row blocks, the last one short
  shape.key_length = 96;
  shape.dim = 32;
  const auto q = testing::random_values(std::size_t(8) * 200 * 32, 42);
  const auto k = testing::random_values(std::size_t(8) * 96 * 32, 43);
  const auto v = testing::random_values(std::size_t(8) * 96 * 32, 44);
  for (const bool causal : {false, true}) {
    AttentionOptions options;
    options.mask.causal = causal;
    const AttentionResult alone = attention(shape, q, k, v, options, Returns::weights);
    const AttentionResult fused_alone = attention(shape, q, k, v, options, Returns::output);
    for (const int count : {2, 4}) {
      const ThreadCount pool(count);
      wake_threads();
      const AttentionResult split = attention(shape, q, k, v, options, Returns::weights);
      CHECK(same_bits(split.output, alone.output));
      CHECK(same_bits(split.weights, alone.weights));
      // the output alone takes the fused online-softmax path
      CHECK(same_bits(attention(shape, q, k, v, options, Returns::output).output, fused_alone.output));
    }
  }
}
