// Comparing two kernels' outputs element by element: one obligation per output element, decided
// by canon::decider (shared memo across elements, so a softmax's common denominator is normalized
// once). The result says which elements are proved equal, which differ (with a counterexample:
// input values on which the two kernels' real-valued outputs differ), which are unknown and why,
// and which elements one kernel wrote and the other did not.
#pragma once

#include <gpueq/canon/decide.hpp>
#include <gpueq/term/store.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::check {

// The final contents of one output tensor: one term per element, or nothing where the kernel
// never wrote it.
using output_values = std::vector<std::optional<term::term_id>>;
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
};

inline comparison compare(term::store& s, const outputs& reference, const outputs& candidate,
                          const compare_options& options = {}) {
  auto t0 = std::chrono::steady_clock::now();
  comparison c;
  canon::decider decide(s, options.decide);
  std::uint64_t total = 0;
  for (auto& [name, values] : reference) total += values.size();
  auto note = [&](element_result r) {
    if (c.problems.size() < options.max_reported) c.problems.push_back(std::move(r));
  };
  for (auto& [name, ref] : reference) {
    auto it = candidate.find(name);
    if (it == candidate.end() || it->second.size() != ref.size())
      throw std::invalid_argument("check::compare: output '" + name + "' differs in size between the kernels");
    const output_values& cand = it->second;
    for (std::uint64_t i = 0; i < ref.size(); ++i) {
      ++c.elements;
      if (options.progress && c.elements % options.progress_every == 0) options.progress(c.elements, total);
      if (!ref[i] && !cand[i]) {
        ++c.unwritten;
        continue;
      }
      if (!ref[i] || !cand[i]) {
        ++c.written_by_one;
        note({name, i, element_status::written_by_one, "", ref[i] ? "only the reference writes it" : "only the candidate writes it", {}});
        continue;
      }
      canon::verdict v = decide(*ref[i], *cand[i]);
      switch (v.kind) {
        case canon::verdict_kind::equal: ++c.equal; break;
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
  }
done:
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

}  // namespace gpueq::check
