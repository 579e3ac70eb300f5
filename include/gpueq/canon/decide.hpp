// Deciding f = g over the reals, three-way: equal (proved), different (with a replayed input that
// separates the sides), or unknown (with the reason).
//
// The order of work: identical term ids (hash-consing) → fingerprints (O(1) per node) → exact
// normal forms (the proof). A fingerprint mismatch sends us straight to the counterexample search;
// "different" is only ever reported with an input on which the two sides, evaluated in 50-digit
// arithmetic, clearly differ. Normal forms that differ without a separating input found mean the
// atoms (max, sqrt, …) may satisfy an identity we do not model: that is "unknown", never "equal".
#pragma once

#include <gpueq/canon/evaluate.hpp>
#include <gpueq/canon/fingerprint.hpp>
#include <gpueq/canon/normal_form.hpp>
#include <gpueq/term/parse.hpp>
#include <gpueq/term/print.hpp>

#include <boost/unordered/unordered_flat_set.hpp>

#include <cstdint>
#include <optional>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::canon {

enum class verdict_kind { equal, different, unknown };

inline std::string_view to_string(verdict_kind k) {
  switch (k) {
    case verdict_kind::equal: return "equal";
    case verdict_kind::different: return "different";
    case verdict_kind::unknown: return "unknown";
  }
  return "unknown";
}

struct input_value {
  term_id input;
  rational value;
};

struct counterexample {
  std::vector<input_value> inputs;  // every input of either side, sorted by the term order
  high_precision lhs, rhs;          // the two sides at that point (50 significant digits)
};

struct verdict {
  verdict_kind kind = verdict_kind::unknown;
  // How it was decided: "identical terms", "normal form", "fingerprint", "counterexample".
  std::string method;
  std::string reason;  // for unknown: why
  std::optional<counterexample> witness;
  // Equal by fingerprints only (decide_options::fast): probable, not proved.
  bool by_fingerprint = false;
};

struct decide_options {
  // Accept equal fingerprints as "equal" without building normal forms (probabilistic).
  bool fast = false;
  std::uint64_t seed = 0x6770756571ULL;
  int search_points = 24;  // random points tried when looking for a separating input
  // Where only some inputs count (a path of a case split, check::check_kernels): the inputs of
  // `constrained` get values too, and a point counts only when `admissible` accepts it; up to
  // 256 draws per counted point. It gets the store the decider works in (a fork of the check's
  // store where the comparison has threads: ids made before the fork mean the same there).
  std::function<bool(const term::store&, const assignment&)> admissible;
  std::vector<term_id> constrained;
  normal_form_options normal_form;
};

// The inputs (input-kind leaves) of a term, in the store's canonical order.
inline std::vector<term_id> inputs_of(const term::store& s, std::span<const term_id> roots) {
  boost::unordered_flat_set<term_id> seen;
  std::vector<term_id> stack(roots.begin(), roots.end()), found;
  for (term_id r : roots) seen.insert(r);
  while (!stack.empty()) {
    term_id t = stack.back();
    stack.pop_back();
    if (s.kind_of(t) == term::kind::input) found.push_back(t);
    for (std::size_t i = 0, n = s.child_count(t); i < n; ++i)
      if (term_id c = s.child(t, i); seen.insert(c).second) stack.push_back(c);
  }
  std::sort(found.begin(), found.end(), [&](term_id a, term_id b) { return s.before(a, b); });
  return found;
}

// Decides many obligations over one store, sharing memoized normal forms and fingerprints.
class decider {
 public:
  explicit decider(term::store& s, decide_options options = {})
      : s_(s), options_(options), forms_(s, options.normal_form), fingerprints_(s, options.seed) {}

  verdict operator()(term_id f, term_id g) {
    if (f == g) return {verdict_kind::equal, "identical terms", {}, {}};
    bool fingerprints_differ = false;
    try {
      fingerprint a = fingerprints_(f), b = fingerprints_(g);
      fingerprints_differ = !(a == b);
      if (!fingerprints_differ && options_.fast) return {verdict_kind::equal, "fingerprint", {}, {}, true};
    } catch (const degenerate_fingerprint&) {
      // Fall through to the exact path.
    }
    if (fingerprints_differ) {
      if (auto w = search(f, g)) return {verdict_kind::different, "counterexample", {}, std::move(w)};
    }
    bool same = false;
    try {
      same = forms_.equal(f, g);
    } catch (const unsupported& e) {
      return {verdict_kind::unknown, "normal form", e.what(), {}};
    } catch (const term::term_error& e) {
      return {verdict_kind::unknown, "normal form", e.what(), {}};
    }
    if (same) return {verdict_kind::equal, "normal form", {}, {}};
    if (!fingerprints_differ) {
      if (auto w = search(f, g)) return {verdict_kind::different, "counterexample", {}, std::move(w)};
    }
    return {verdict_kind::unknown, "normal form",
            "the normal forms differ but no input separating the two sides was found; the atoms "
            "(max, min, sqrt, log, tanh, …) may satisfy an identity gpueq does not model",
            {}};
  }

  normal_forms& forms() { return forms_; }

  // Random points (dyadic rationals, so they print exactly) at which the sides clearly differ:
  // found in double precision, confirmed in 50 digits.
  std::optional<counterexample> search(term_id f, term_id g) {
    std::vector<term_id> roots{f, g};
    roots.insert(roots.end(), options_.constrained.begin(), options_.constrained.end());
    std::vector<term_id> inputs = inputs_of(s_, roots);
    std::mt19937_64 rng(options_.seed);
    const int draws = options_.admissible ? 256 * options_.search_points : options_.search_points;
    for (int attempt = 0, counted = 0; attempt < draws && counted < options_.search_points; ++attempt) {
      // First signed points in [-2, 2], then positive ones (log/sqrt domains), then wider.
      const int phase = counted * 3 / options_.search_points;
      boost::unordered_flat_map<term_id, rational> values;
      for (term_id x : inputs) {
        std::int64_t k;
        if (phase == 0) k = static_cast<std::int64_t>(rng() % 4097) - 2048;            // [-2, 2]
        else if (phase == 1) k = static_cast<std::int64_t>(rng() % 2048) + 64;          // (0, 2]
        else k = static_cast<std::int64_t>(rng() % 16385) - 8192;                       // [-8, 8]
        values.emplace(x, rational(k, 1024));
      }
      assignment at = [&](term_id x) { return values.at(x); };
      if (options_.admissible && !options_.admissible(s_, at)) continue;
      ++counted;
      evaluator<double> quick(s_, at);
      auto a = quick(f), b = quick(g);
      if (a && b) {
        double scale = 1 + std::max(std::abs(*a), std::abs(*b));
        if (std::abs(*a - *b) <= 1e-9 * scale) continue;
      } else if (!quick.infinite(f) && !quick.infinite(g)) {
        continue;  // a domain error at this point
      }
      // Either double sees a difference, or a side overflowed double's range (2^4096 against 1):
      // 50 digits with a far wider exponent range decide.
      evaluator<high_precision> exact(s_, at);
      auto ha = exact(f), hb = exact(g);
      if (!ha || !hb) continue;
      high_precision hscale = 1 + std::max(abs(*ha), abs(*hb));
      if (abs(*ha - *hb) <= high_precision("1e-30") * hscale) continue;
      counterexample w{{}, *ha, *hb};
      for (term_id x : inputs) w.inputs.push_back({x, values.at(x)});
      return w;
    }
    return std::nullopt;
  }

 private:
  term::store& s_;
  decide_options options_;
  normal_forms forms_;
  fingerprinter fingerprints_;
};

inline verdict decide(term::store& s, term_id f, term_id g, decide_options options = {}) {
  return decider(s, options)(f, g);
}

// Parses both sides in the term syntax and decides them (throws term::parse_error).
inline verdict decide_text(term::store& s, std::string_view lhs, std::string_view rhs,
                           decide_options options = {}) {
  term_id f = term::parse(s, lhs), g = term::parse(s, rhs);
  return decide(s, f, g, options);
}

}  // namespace gpueq::canon
