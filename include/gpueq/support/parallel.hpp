// Independent jobs on a few threads (the CTAs of a check, its float32 runs): the calling thread
// and `threads` − 1 others take job numbers in increasing order from one counter, so the jobs
// listed first start first. Results go wherever the job writes them (callers collect them in
// their own order afterwards, so reports do not depend on the threads). An exception in a job
// stops the others after their current job and is rethrown on the calling thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace gpueq::support {

// Calls work(worker, job) for every job in [0, jobs), worker in [0, threads) (0: the calling
// thread). Returns when all are done.
template <class F>
void parallel_for(unsigned threads, std::size_t jobs, F&& work) {
  threads = std::max(1u, static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(jobs, 1))));
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  auto run = [&](unsigned w) {
    try {
      for (std::size_t job; (job = next.fetch_add(1)) < jobs;) work(w, job);
    } catch (...) {
      errors[w] = std::current_exception();
      next = jobs;  // the others stop after their current job
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace gpueq::support
