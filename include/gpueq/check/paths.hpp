// The paths of a case split over comparisons of symbolic values (exec/case_split.hpp), as the
// check enumerates them (check_kernels in check/driver_entries.hpp): the next outcomes to replay,
// one path's assumptions (both kernels' together), its outputs rewritten under them, and the
// condition a counterexample of the path must satisfy.
//
// Semantic choice (README, "Semantics decisions"): two kernels are equivalent when, on every
// feasible combination of their paths, the outputs agree at every input that satisfies the
// combination's assumptions; a path is a run with one outcome per undecided comparison, and the
// outcomes of one run's CTAs and of both kernels form one sequence, enumerated depth-first (the
// reference's CTAs first, then the candidate's). A path whose assumptions contradict each other
// (term::order::consistent) is dropped: no input takes it.
#pragma once

#include <gpueq/canon/evaluate.hpp>
#include <gpueq/check/compare.hpp>
#include <gpueq/check/sides.hpp>
#include <gpueq/exec/case_split.hpp>
#include <gpueq/term/order.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::check {

// Sets the outcomes the next path replays: the last run whose taken outcomes have a `true` left
// flips its last one (exec::next_choices); the runs before it replay what they took and the runs
// after it start afresh. False when every path has been explored.
inline bool advance(case_paths& p) {
  std::vector<exec::case_split*> order;
  for (auto& side : p.runs)
    for (auto& r : side) order.push_back(&r);
  for (std::size_t i = order.size(); i-- > 0;) {
    if (auto next = exec::next_choices(order[i]->taken)) {
      for (std::size_t j = 0; j < i; ++j) order[j]->prescribed = order[j]->taken;
      order[i]->prescribed = std::move(*next);
      for (std::size_t j = i + 1; j < order.size(); ++j) order[j]->prescribed.clear();
      return true;
    }
  }
  return false;
}

// Every assumption of the path (all runs of both sides), settled (term::order::settle).
inline term::order assumptions_of(term::store& s, const case_paths& p) {
  term::order o;
  for (auto& side : p.runs)
    for (auto& r : side)
      for (auto& a : r.assumed) exec::assume(o, a);
  o.settle(s);
  return o;
}

// The outputs with max/min and equal terms resolved under o (term::order::resolve).
inline void resolve_outputs(term::store& s, term::order& o, outputs& out) {
  for (auto& [name, values] : out)
    for (std::uint64_t i = values.next(0); i < values.size(); i = values.next(i + 1))
      if (auto& v = values[i]) *v = o.resolve(s, *v);
}

// The comparisons the path assumed, each with its outcome: what a witness must satisfy. Checked
// in 50 digits with a margin, so a point near a tie is rejected rather than misjudged.
inline bool satisfies(const term::store& s, const case_paths& p, const canon::assignment& at) {
  canon::evaluator<canon::high_precision> value(s, at);
  const canon::high_precision margin("1e-30");
  for (auto& side : p.runs)
    for (auto& r : side)
      for (const exec::comparison_assumption& a : r.assumed) {
        auto x = value(a.a), y = value(a.b);
        if (!x || !y) return false;
        canon::high_precision d = *x - *y, tol = margin * (1 + abs(*x) + abs(*y));
        bool gt = d > tol, lt = d < -tol;
        if (!gt && !lt) return false;  // a tie, or too close to call
        const exec::real_relation rel = exec::relation_of(a.c);
        if (rel == exec::real_relation::always || rel == exec::real_relation::never) return false;  // never a branch point
        if (exec::holds(rel, gt ? 1 : -1) != a.outcome) return false;
      }
  return true;
}

// The terms of every assumption of the path: their inputs get values in a counterexample search.
inline std::vector<term::term_id> assumption_terms(const case_paths& p) {
  std::vector<term::term_id> out;
  for (auto& side : p.runs)
    for (auto& r : side)
      for (auto& a : r.assumed) out.insert(out.end(), {a.a, a.b});
  return out;
}

inline std::string symbol(exec::cmp_op c) {
  switch (exec::relation_of(c)) {
    case exec::real_relation::gt: return ">";
    case exec::real_relation::ge: return ">=";
    case exec::real_relation::lt: return "<";
    case exec::real_relation::le: return "<=";
    case exec::real_relation::eq: return "==";
    case exec::real_relation::ne: return "!=";
    default: return std::string(exec::cmp_spellings[static_cast<int>(c)]);
  }
}

// "x > y, not z > w" of a path's assumptions, for reports (at most `limit` of them).
inline std::string describe_path(const term::store& s, const case_paths& p, std::size_t limit = 6) {
  std::string out;
  std::size_t n = 0;
  for (auto& side : p.runs)
    for (auto& r : side)
      for (auto& a : r.assumed) {
        if (n++ == limit) return out + ", …";
        if (!out.empty()) out += ", ";
        out += (a.outcome ? "" : "not ") + term::to_string(s, a.a) + " " + symbol(a.c) + " " + term::to_string(s, a.b);
      }
  return out;
}

}  // namespace gpueq::check
