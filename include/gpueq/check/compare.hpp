// Comparing two kernels' outputs element by element: one obligation per output element, decided
// by canon::decider (shared memo across elements, so a softmax's common denominator is normalized
// once). The result says which elements are proved equal, which differ (with a counterexample:
// input values on which the two kernels' real-valued outputs differ), which are unknown and why,
// and which elements one kernel wrote and the other did not.
#pragma once

#include <gpueq/canon/decide.hpp>
#include <gpueq/check/element_values.hpp>
#include <gpueq/term/store.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <thread>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::check {

// The final contents of one output tensor: one term per element, or nothing where the kernel
// never wrote it (paged: what was not written costs nothing, element_values.hpp).
using output_values = element_values<term::term_id>;
using outputs = std::map<std::string, output_values>;

enum class element_status { equal, different, unknown, written_by_one };

struct element_result {
  std::string tensor;
  std::uint64_t index = 0;  // flat, row-major
  element_status status = element_status::equal;
  std::string method;  // how it was decided ("normal form", "fingerprint", …)
  std::string reason;  // unknown: why; written_by_one: which kernel wrote it
  std::optional<canon::counterexample> witness;
};

struct comparison {
  std::uint64_t elements = 0, equal = 0, different = 0, unknown = 0, written_by_one = 0, unwritten = 0;
  // Of `equal`: those accepted on equal fingerprints alone (decide_options::fast): equal with high
  // probability, not proved.
  std::uint64_t by_fingerprint = 0;
  // Elements that are not proved equal, in tensor and index order (at most `max_reported`).
  std::vector<element_result> problems;
  double seconds = 0;
  bool all_equal() const { return equal == elements - unwritten; }
};

struct compare_options {
  canon::decide_options decide;
  std::size_t max_reported = 16;  // problems kept in detail (all are counted)
  bool stop_at_first_difference = false;
  // Called every `progress_every` elements with (done, total): progress on long runs.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  std::uint64_t progress_every = 4096;
  // Threads deciding obligations (1: the calling thread only). Each extra thread decides in a fork
  // of the store (memory: one more copy of the terms and of its normal forms per thread).
  unsigned threads = 1;
};

namespace detail {

// One decision obligation: an output element both kernels wrote.
struct obligation {
  const std::string* tensor;
  std::uint64_t index;
  term::term_id reference, candidate;
};

// Decides every obligation, on `threads` threads: the calling thread works in `s`, each other
// thread in a fork of `s` taken before any thread starts (ids that exist at the fork mean the
// same term everywhere, so witnesses read the same in every store). Obligations are handed out in
// chunks in index order; with `stop_at_first_difference`, a thread skips the obligations after
// the first difference found so far, and every obligation up to the final first difference is
// always decided, so the assembled result is the one a sequential run gives.
inline std::vector<std::optional<canon::verdict>> decide_all(term::store& s, const std::vector<obligation>& work,
                                                             const compare_options& options, std::uint64_t total,
                                                             std::uint64_t trivial) {
  std::vector<std::optional<canon::verdict>> verdicts(work.size());
  unsigned threads = std::max(1u, std::min<unsigned>(options.threads, static_cast<unsigned>(work.size() / 2)));
  std::atomic<std::size_t> next{0}, first_difference{SIZE_MAX}, done{0};
  constexpr std::size_t chunk = 8;
  std::uint64_t reported = 0;
  auto worker = [&](term::store& store, bool main) {
    canon::decider decide(store, options.decide);
    for (;;) {
      std::size_t start = next.fetch_add(chunk);
      if (start >= work.size() || start > first_difference.load()) return;
      for (std::size_t i = start; i < std::min(work.size(), start + chunk); ++i) {
        if (i > first_difference.load()) break;
        canon::verdict v = decide(work[i].reference, work[i].candidate);
        if (v.kind == canon::verdict_kind::different && options.stop_at_first_difference) {
          std::size_t f = first_difference.load();
          while (i < f && !first_difference.compare_exchange_weak(f, i)) {
          }
        }
        verdicts[i] = std::move(v);
        ++done;
      }
      // Progress from the calling thread only (the callback need not be thread-safe).
      if (main && options.progress) {
        std::uint64_t d = done.load() + trivial;
        if (d / options.progress_every > reported) {
          reported = d / options.progress_every;
          options.progress(d, total);
        }
      }
    }
  };
  if (threads == 1) {
    worker(s, true);
    return verdicts;
  }
  std::vector<std::unique_ptr<term::store>> forks;
  for (unsigned t = 1; t < threads; ++t) forks.push_back(std::make_unique<term::store>(s));
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        worker(*forks[t - 1], false);
      } catch (...) {
        errors[t] = std::current_exception();
        first_difference = 0;  // stop the others
      }
    });
  try {
    worker(s, true);
  } catch (...) {
    errors[0] = std::current_exception();
    first_difference = 0;
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return verdicts;
}

}  // namespace detail

inline comparison compare(term::store& s, const outputs& reference, const outputs& candidate,
                          const compare_options& options = {}) {
  auto t0 = std::chrono::steady_clock::now();
  comparison c;
  std::uint64_t total = 0, trivial = 0;
  std::vector<detail::obligation> work;
  for (auto& [name, ref] : reference) {
    total += ref.size();
    auto it = candidate.find(name);
    if (it == candidate.end() || it->second.size() != ref.size())
      throw std::invalid_argument("check::compare: output '" + name + "' differs in size between the kernels");
    const output_values& cand = it->second;
    std::uint64_t visited = 0;
    for (std::uint64_t i = next_either(ref, cand, 0); i < ref.size(); i = next_either(ref, cand, i + 1)) {
      ++visited;
      if (ref[i] && cand[i] && *ref[i] != *cand[i]) work.push_back({&name, i, *ref[i], *cand[i]});
      else ++trivial;  // unwritten, written by one, or the same term (equal by hash-consing)
    }
    trivial += ref.size() - visited;  // on pages neither side wrote
  }
  std::vector<std::optional<canon::verdict>> verdicts = detail::decide_all(s, work, options, total, trivial);

  // Assemble in tensor and index order, as a sequential run would.
  auto note = [&](element_result r) {
    if (c.problems.size() < options.max_reported) c.problems.push_back(std::move(r));
  };
  std::size_t next = 0;
  for (auto& [name, ref] : reference) {
    const output_values& cand = candidate.at(name);
    std::uint64_t counted = 0;  // elements before this index are counted
    for (std::uint64_t i = next_either(ref, cand, 0); i < ref.size(); i = next_either(ref, cand, i + 1)) {
      c.elements += i - counted;  // the skipped ones lie on pages neither side wrote
      c.unwritten += i - counted;
      counted = i + 1;
      ++c.elements;
      if (!ref[i] && !cand[i]) {
        ++c.unwritten;
        continue;
      }
      if (!ref[i] || !cand[i]) {
        ++c.written_by_one;
        note({name, i, element_status::written_by_one, "", ref[i] ? "only the reference writes it" : "only the candidate writes it", {}});
        continue;
      }
      if (*ref[i] == *cand[i]) {
        ++c.equal;
        continue;
      }
      canon::verdict& v = *verdicts[next++];  // decided: every obligation up to the first difference is
      switch (v.kind) {
        case canon::verdict_kind::equal:
          ++c.equal;
          if (v.by_fingerprint) ++c.by_fingerprint;
          break;
        case canon::verdict_kind::different:
          ++c.different;
          note({name, i, element_status::different, v.method, {}, std::move(v.witness)});
          break;
        case canon::verdict_kind::unknown:
          ++c.unknown;
          note({name, i, element_status::unknown, v.method, v.reason, {}});
          break;
      }
      if (options.stop_at_first_difference && c.different) goto done;
    }
    c.elements += ref.size() - counted;
    c.unwritten += ref.size() - counted;
  }
done:
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

}  // namespace gpueq::check
