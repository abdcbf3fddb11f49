// Threads: a small pool, started once, that attention and the models share.
//
// attn::set_threads(4) starts three workers; a call that has enough work (attention over several
// heads or query blocks, a large matrix product) then runs on them and on the calling thread,
// and returns only when every part is done. Results do not depend on the thread count: the work
// is split into the same parts whatever the count, and each part computes exactly what one thread
// computes. The default is one thread (no pool). Natively the pool is std::thread; in WebAssembly
// it needs the threads build (Emscripten pthreads, shared memory), where the JS loader sets it.
#pragma once

#include <functional>

namespace attn {

// The most threads set_threads accepts.
constexpr int max_threads = 256;

// Whether this build can run more than one thread (always natively; in WebAssembly only the
// threads build).
bool threads_supported() noexcept;

// Sets how many threads attention and the models use, counting the calling thread: 1 stops the
// pool. Throws attn::Error for a count outside [1, max_threads], for more than one thread in a
// build without threads, and when the system refuses to start a thread (the pool is then left
// at the threads it had). Not to be called while another thread is inside parallel_for.
void set_threads(int count);

// The thread count set_threads gave (1 by default).
int threads() noexcept;

// The number of threads the hardware offers (std::thread::hardware_concurrency, at least 1).
int hardware_threads() noexcept;

// Runs task(item, worker) for every item in [0, count): on the pool's threads and the calling
// one, at most `workers` of them (0: all). worker is in [0, min(workers, threads())) and no two
// tasks with the same worker run at once, so a caller can keep one scratch buffer per worker.
// Threads take `grain` consecutive items at a time (items that share preparation, such as the
// query blocks of one head, stay together). Returns when every task has finished. If tasks
// throw, the exception of the lowest item that threw is rethrown after all have finished. A
// parallel_for inside a task, or while another thread's parallel_for holds the pool, runs its
// items on the calling thread alone (worker 0), in order.
void parallel_for(int count, int workers, const std::function<void(int item, int worker)>& task, int grain = 1);

// parallel_for, with `lead` run once on the calling thread after the pool's threads have been given
// the items and before the calling thread takes any: a caller that is still preparing the items'
// inputs (copying them in, say) lets the threads start on those that are ready. The tasks then
// wait for their own inputs, and lead must make them all ready, whatever happens (a task that
// waits forever holds the pool). A parallel_for inside lead runs in place, and lead must not call
// set_threads. Without a pool, lead runs first and the items after it. If lead
// throws, its exception is rethrown, ahead of any task's, once the items are done (without a
// pool, at once: no item runs). `trail`, if given, runs on the calling thread once it finds no
// item left to take, while the pool's threads may still be finishing theirs (without a pool,
// after the items), under the same rules as lead; its exception comes after lead's and before
// any task's.
void parallel_for(int count, int workers, const std::function<void(int item, int worker)>& task, int grain,
                  const std::function<void()>& lead, const std::function<void()>& trail = {});

// How many workers parallel_for would use for `count` items of `work_per_item` multiply-adds
// each: 1 below the size where waking threads costs more than it saves, at most threads().
int workers_for(int count, double work_per_item) noexcept;

// Caps the threads that parallel_for (and so attention and the models) uses for calls made on
// this thread while it lives, without stopping the pool: its threads stay started, so a caller
// can run one call on fewer threads and the next on all of them. set_threads(1) instead stops the
// pool, and threads started anew may take milliseconds to reach an idle core (a benchmark that
// switched with set_threads timed some 2-thread calls on one core). Limits nest: the tighter one
// holds, and each restores the one before it when it ends. Throws attn::Error for a count below 1.
class ThreadLimit {
 public:
  explicit ThreadLimit(int count);
  ~ThreadLimit();
  ThreadLimit(const ThreadLimit&) = delete;
  ThreadLimit& operator=(const ThreadLimit&) = delete;

 private:
  int previous_;
};

// Tells the pool's sleeping threads that a parallel_for is coming: they wake and watch for it for
// a while instead of sleeping. Waking a sleeping thread takes tens of microseconds (more in
// WebAssembly); a caller about to prepare a large job's inputs (copying them, say) can overlap
// that with the preparation. Only a hint: nothing happens without a pool or while it runs a job.
void wake_threads() noexcept;

}  // namespace attn
