#include "attn/core/threads.hpp"

#include "attn/core/internal/spin.hpp"

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

// ThreadLimit's cap for calls made on this thread; 0: none.
thread_local int thread_limit = 0;

// Below this many multiply-adds per worker (about 10 us natively), waking threads costs more than
// it saves: the models' small matrix products stay on one thread.
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
    const unsigned long alerted = alerts_;  // alert() holds run_mutex_ too
    try {
      for (int slot = 1; slot < count; ++slot) {
        workers_.emplace_back([this, slot, current, alerted] { worker_loop(slot, current, alerted); });
        size_.store(slot + 1, std::memory_order_relaxed);
      }
    } catch (const std::system_error& e) {
      const int started = size();
      fail("could not start thread ", started + 1, " of ", count, " (", e.what(), "); running on ", started);
    }
  }

  // Wakes the sleeping workers to watch for the next job (see wake_threads).
  void alert() {
    std::unique_lock<std::mutex> running(run_mutex_, std::try_to_lock);
    if (!running.owns_lock() || size() <= 1) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++alerts_;
    }
    wake_.notify_all();
  }

  // Runs the job on up to `workers` threads; false when the pool is in use (the caller then runs
  // it alone).
  bool run(int count, int workers, int grain, const std::function<void(int, int)>& task,
           const std::function<void()>* lead, const std::function<void()>* trail) {
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
      error_item_ = count;
      error_ = nullptr;
      joined_.store(0, std::memory_order_release);  // open: after the job, before the workers look
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    run_beside(lead, -2);  // before every item's exception
    work(0);
    // Every item is taken: close the job. A worker that has not joined yet stays out (it is still
    // waking, or another process has its core), so the caller never waits for a thread that had
    // no part in the work; it waits for those inside, whose last items are under way, after the
    // trail. Watch for them before sleeping: a sleeping thread is slow to wake, in a virtual
    // machine especially.
    const bool inside = joined_.fetch_or(closed, std::memory_order_acq_rel) != 0;
    run_beside(trail, -1);  // after lead's exception, before every item's
    if (inside) {
      const auto until = std::chrono::steady_clock::now() + spin_time;
      while (joined_.load(std::memory_order_acquire) != closed && std::chrono::steady_clock::now() < until) {
        for (int i = 0; i < 64 && joined_.load(std::memory_order_relaxed) != closed; ++i) spin_pause();
      }
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return joined_.load(std::memory_order_acquire) == closed; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
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

  // A lead or trail of the job, on the calling thread, as a task (a parallel_for inside it runs in
  // place: this thread holds the pool); its exception is kept as if it were item `rank`'s.
  void run_beside(const std::function<void()>* part, int rank) {
    if (!part || !*part) return;
    inside_task = true;
    try {
      (*part)();
    } catch (...) {
      keep_error(rank);
    }
    inside_task = false;
  }

  // Inside a handler: keeps the exception being handled if it ranks before the one kept (the
  // lowest item's is rethrown).
  void keep_error(int rank) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (rank < error_item_) {
      error_item_ = rank;
      error_ = std::current_exception();
    }
  }

  void worker_loop(int slot, unsigned long seen, unsigned long alerted) {
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + spin_time;
      while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) {
        for (int i = 0; i < 64 && generation_.load(std::memory_order_relaxed) == seen; ++i) spin_pause();
      }
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock,
                 [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen || alerts_ != alerted; });
      if (stop_) return;
      alerted = alerts_;
      if (generation_.load(std::memory_order_relaxed) == seen) continue;  // alerted: watch for the job
      seen = generation_.load(std::memory_order_relaxed);
      lock.unlock();
      // The job may be closed already (its items all done), or even be the next one: what a
      // worker reads after joining is the job it joined, which cannot end before it leaves.
      if (!join()) continue;
      if (slot < active_) work(slot);  // else the job asked for fewer threads
      leave();
    }
  }

  bool join() {
    int state = joined_.load(std::memory_order_relaxed);
    do {
      if (state & closed) return false;
    } while (!joined_.compare_exchange_weak(state, state + 1, std::memory_order_acquire, std::memory_order_relaxed));
    return true;
  }

  void leave() {
    if (joined_.fetch_sub(1, std::memory_order_acq_rel) == (closed | 1)) {
      std::lock_guard<std::mutex> done(mutex_);  // the caller is either watching or waiting under the lock
      done_.notify_one();
    }
  }

  // Takes items until none is left: `grain` at a time while there are enough to go round, then
  // fewer, so that a thread that started late (a sleeping thread wakes slowly, in WebAssembly
  // especially) does not leave the others waiting on its last large take. Which thread computes
  // an item never changes what the item computes.
  void work(int slot) {
    inside_task = true;
    for (;;) {
      int first = next_.load(std::memory_order_relaxed), take = 0;
      do {
        const int left = count_ - first;
        if (left <= 0) break;
        take = std::min(grain_, std::max(1, left / active_));
      } while (!next_.compare_exchange_weak(first, first + take, std::memory_order_relaxed));
      if (first >= count_) break;
      for (int item = first; item < first + take; ++item) {
        try {
          (*task_)(item, slot);
        } catch (...) {
          keep_error(item);
        }
      }
    }
    inside_task = false;
  }

  std::mutex run_mutex_;  // held by the thread whose job the pool runs
  std::mutex mutex_;      // guards the job and stop_
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  std::atomic<int> size_{1};
  std::atomic<unsigned long> generation_{0};
  const std::function<void(int, int)>* task_ = nullptr;
  int count_ = 0, grain_ = 1, active_ = 0, error_item_ = 0;
  unsigned long alerts_ = 0;  // guarded by mutex_: bumped by alert()
  // The workers inside the current job, with `closed` set once its caller has taken the last item.
  static constexpr int closed = 1 << 30;
  std::atomic<int> joined_{closed};
  std::atomic<int> next_{0};
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

ThreadLimit::ThreadLimit(int count) : previous_(thread_limit) {
  if (count < 1) fail(Field{"threads"}, " must be at least 1, got ", count);
  thread_limit = previous_ > 0 ? std::min(previous_, count) : count;
}

ThreadLimit::~ThreadLimit() { thread_limit = previous_; }

namespace {

// The threads this thread's calls may use: the pool's, capped by its ThreadLimit.
int usable_threads() noexcept {
  const int all = threads();
  return thread_limit > 0 ? std::min(all, thread_limit) : all;
}

}  // namespace

void wake_threads() noexcept {
  // inside a task or a lead, this thread holds the pool; under a limit of 1 it runs alone
  if (usable_threads() <= 1 || inside_task) return;
  try {
    pool().alert();
  } catch (...) {  // a mutex that fails to lock: the job wakes them, later
  }
}

int hardware_threads() noexcept {
  const unsigned count = std::thread::hardware_concurrency();
  return count == 0 ? 1 : static_cast<int>(std::min<unsigned>(count, max_threads));
}

namespace {

void run_items(int count, int workers, const std::function<void(int, int)>& task, int grain,
               const std::function<void()>* lead, const std::function<void()>* trail) {
  if (count > 0) {
    const int usable = usable_threads();
    workers = std::min(workers <= 0 ? usable : std::min(workers, usable), count);
    grain = std::max(grain, 1);
    if (workers > 1 && !inside_task && pool().run(count, workers, grain, task, lead, trail)) return;
  }
  if (lead && *lead) (*lead)();
  for (int item = 0; item < count; ++item) task(item, 0);
  if (trail && *trail) (*trail)();
}

}  // namespace

void parallel_for(int count, int workers, const std::function<void(int, int)>& task, int grain) {
  run_items(count, workers, task, grain, nullptr, nullptr);
}

void parallel_for(int count, int workers, const std::function<void(int, int)>& task, int grain,
                  const std::function<void()>& lead, const std::function<void()>& trail) {
  run_items(count, workers, task, grain, &lead, &trail);
}

int workers_for(int count, double work_per_item) noexcept {
  const int available = usable_threads();
  if (available <= 1 || count <= 1) return 1;
  const double by_work = double(count) * work_per_item / min_work_per_worker;
  return std::max(1, static_cast<int>(std::min<double>({double(available), double(count), by_work})));
}

}  // namespace attn
