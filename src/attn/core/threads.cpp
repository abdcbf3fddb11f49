#include "attn/core/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "attn/core/error.hpp"

#ifndef ATTN_THREADS
#define ATTN_THREADS 1
#endif

namespace attn {

namespace {

// Set while a thread runs a task, so a parallel_for inside it runs in place instead of waiting
// for a pool that is busy with its caller.
thread_local bool inside_task = false;

// Below this many multiply-adds per worker, waking threads costs more than it saves.
constexpr double min_work_per_worker = 1 << 18;

// How long an idle worker watches for the next job before it sleeps: the models call attention
// many times in a row, and a sleeping thread takes tens of microseconds to wake.
constexpr auto spin_time = std::chrono::microseconds(200);

class Pool {
 public:
  ~Pool() { stop_workers(); }

  int size() const noexcept { return size_.load(std::memory_order_relaxed); }

  void resize(int count) {
    std::lock_guard<std::mutex> running(run_mutex_);
    stop_workers();
    size_.store(1, std::memory_order_relaxed);
    // a worker waits for the job after this one; it may start running after a job has been posted
    const unsigned long current = generation_.load(std::memory_order_relaxed);
    try {
      for (int slot = 1; slot < count; ++slot) {
        workers_.emplace_back([this, slot, current] { worker_loop(slot, current); });
        size_.store(slot + 1, std::memory_order_relaxed);
      }
    } catch (const std::system_error& e) {
      const int started = size();
      fail("could not start thread ", started + 1, " of ", count, " (", e.what(), "); running on ", started);
    }
  }

  // Runs the job on up to `workers` threads; false when the pool is in use (the caller then runs
  // it alone). The caller works too and returns as soon as every item is done and no thread is
  // still inside the job: it never waits for a thread that has not joined (on a virtual machine
  // waking a sleeping thread can take longer than a small job).
  bool run(int count, int workers, int grain, const std::function<void(int, int)>& task) {
    std::unique_lock<std::mutex> running(run_mutex_, std::try_to_lock);
    if (!running.owns_lock()) return false;
    const int active = std::min(workers, size());
    if (active <= 1) return false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      count_ = count;
      grain_ = grain;
      active_ = active;
      next_.store(0, std::memory_order_relaxed);
      finished_.store(0, std::memory_order_relaxed);
      error_item_ = count;
      error_ = nullptr;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    work(0);
    // the other threads' last items are under way: watch for them before sleeping
    const auto until = std::chrono::steady_clock::now() + spin_time;
    while (!done() && std::chrono::steady_clock::now() < until) {
    }
    std::unique_lock<std::mutex> lock(mutex_);  // a thread joining now is seen, and waited for
    done_.wait(lock, [this] { return done(); });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  bool done() const {
    return finished_.load(std::memory_order_acquire) == count_ && joined_.load(std::memory_order_acquire) == 0;
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    workers_.clear();
    stop_ = false;
  }

  void worker_loop(int slot, unsigned long seen) {
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + spin_time;
      while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) {
        for (int i = 0; i < 64 && generation_.load(std::memory_order_relaxed) == seen; ++i) {
        }
      }
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      // join only a job that still has items for this thread
      if (slot >= active_ || task_ == nullptr || next_.load(std::memory_order_relaxed) >= count_) continue;
      joined_.fetch_add(1, std::memory_order_relaxed);
      lock.unlock();
      work(slot);
      lock.lock();
      joined_.fetch_sub(1, std::memory_order_release);
      done_.notify_one();
    }
  }

  // Takes items until none is left.
  void work(int slot) {
    inside_task = true;
    for (;;) {
      const int first = next_.fetch_add(grain_, std::memory_order_relaxed);
      if (first >= count_) break;
      const int last = std::min(first + grain_, count_);
      for (int item = first; item < last; ++item) {
        try {
          (*task_)(item, slot);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mutex_);
          if (item < error_item_) {
            error_item_ = item;
            error_ = std::current_exception();
          }
        }
      }
      finished_.fetch_add(last - first, std::memory_order_release);
    }
    inside_task = false;
  }

  std::mutex run_mutex_;  // held by the thread whose job the pool runs
  std::mutex mutex_;      // guards the job, who joins it, and stop_
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  std::atomic<int> size_{1};
  std::atomic<unsigned long> generation_{0};
  const std::function<void(int, int)>* task_ = nullptr;
  int count_ = 0, grain_ = 1, active_ = 0, error_item_ = 0;
  std::atomic<int> next_{0}, finished_{0};
  std::atomic<int> joined_{0};  // threads inside the job besides the caller (changed under mutex_)
  std::exception_ptr error_;
  bool stop_ = false;
};

Pool& pool() {
  static Pool instance;
  return instance;
}

}  // namespace

bool threads_supported() noexcept { return ATTN_THREADS != 0; }

void set_threads(int count) {
  if (count < 1 || count > max_threads) fail(Field{"threads"}, " must be in [1, ", max_threads, "], got ", count);
  if (count > 1 && !threads_supported()) {
    fail(Field{"threads"}, " must be 1 in this build (it has no threads), got ", count);
  }
  if (count == pool().size()) return;
  pool().resize(count);
}

int threads() noexcept { return pool().size(); }

int hardware_threads() noexcept {
  const unsigned count = std::thread::hardware_concurrency();
  return count == 0 ? 1 : static_cast<int>(std::min<unsigned>(count, max_threads));
}

void parallel_for(int count, int workers, const std::function<void(int, int)>& task, int grain) {
  if (count <= 0) return;
  if (workers <= 0) workers = threads();
  workers = std::min(workers, count);
  grain = std::max(grain, 1);
  if (workers > 1 && !inside_task && pool().run(count, workers, grain, task)) return;
  for (int item = 0; item < count; ++item) task(item, 0);
}

int workers_for(int count, double work_per_item) noexcept {
  const int available = threads();
  if (available <= 1 || count <= 1) return 1;
  const double by_work = double(count) * work_per_item / min_work_per_worker;
  return std::max(1, static_cast<int>(std::min<double>({double(available), double(count), by_work})));
}

}  // namespace attn
