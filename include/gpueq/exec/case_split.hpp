// A bounded case split over comparisons of symbolic values (issue 21 item 16). A comparison of two
// symbolic reals is undecided; when a run needs its outcome (a branch or a guard on it, or a
// selection that is not max/min of the compared values: `a.m > b.m ? a.s : b.s`), the symbolic
// domain with a case_split attached takes an outcome instead of stopping the run: the next one
// the split prescribes (a replay of an earlier run's choices), else `true`, and records the
// comparison with its outcome as an assumption of the run's path. A comparison the path's
// assumptions already decide (term::order, transitively) takes that outcome without branching.
// check::check_kernels enumerates the paths depth-first by re-running with prescribed choices
// (exec::next_choices) up to a budget.
//
// Semantic choice (README, "Semantics decisions"): the outcome `false` of a > b assumes b ≥ a
// (reals: no NaN), so a path's assumptions and its sibling's cover every input.
#pragma once

#include <gpueq/exec/values.hpp>
#include <gpueq/term/order.hpp>
#include <gpueq/term/store.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace gpueq::exec {

// One outcome a path assumed: (a c b) == outcome.
struct comparison_assumption {
  term::term_id a, b;
  cmp_op c;
  bool outcome;
};

// The order facts of `(a c b) == outcome` added to o; `a ≠ b` (eq false, ne true) is no order
// fact and goes to o's distinct pairs.
inline void assume(term::order& o, const comparison_assumption& x) {
  const real_relation r = relation_of(x.c);
  switch (r) {
    case real_relation::gt: x.outcome ? o.assume(x.a, x.b, true) : o.assume(x.b, x.a, false); return;
    case real_relation::ge: x.outcome ? o.assume(x.a, x.b, false) : o.assume(x.b, x.a, true); return;
    case real_relation::lt: x.outcome ? o.assume(x.b, x.a, true) : o.assume(x.a, x.b, false); return;
    case real_relation::le: x.outcome ? o.assume(x.b, x.a, false) : o.assume(x.a, x.b, true); return;
    case real_relation::eq: case real_relation::ne:
      if (x.outcome == (r == real_relation::eq)) {
        o.assume(x.a, x.b, false);
        o.assume(x.b, x.a, false);
      } else {
        o.assume_distinct(x.a, x.b);
      }
      return;
    case real_relation::always: case real_relation::never: return;  // decided by the domain
  }
}

// The outcome of (a c b) that o's facts imply, if they do.
inline std::optional<bool> implied_outcome(const term::store& s, const term::order& o, cmp_op c, term::term_id a,
                                           term::term_id b) {
  auto gt = [&](term::term_id x, term::term_id y) { return o.implies_gt(s, x, y); };
  auto ge = [&](term::term_id x, term::term_id y) { return o.implies_ge(s, x, y); };
  auto decide = [](bool yes, bool no) -> std::optional<bool> {
    if (yes) return true;
    if (no) return false;
    return std::nullopt;
  };
  switch (relation_of(c)) {
    case real_relation::gt: return decide(gt(a, b), ge(b, a));
    case real_relation::ge: return decide(ge(a, b), gt(b, a));
    case real_relation::lt: return decide(gt(b, a), ge(a, b));
    case real_relation::le: return decide(ge(b, a), gt(a, b));
    case real_relation::eq: return decide(ge(a, b) && ge(b, a), gt(a, b) || gt(b, a));
    case real_relation::ne: return decide(gt(a, b) || gt(b, a), ge(a, b) && ge(b, a));
    default: return std::nullopt;
  }
}

// The state of one run's path (one CTA of one kernel): the outcomes to replay, the outcomes taken
// at every branch point, and the assumptions made.
struct case_split {
  std::vector<bool> prescribed;  // in: the outcomes of the first branch points
  std::vector<bool> taken;       // out: the outcome of every branch point, in run order
  std::vector<comparison_assumption> assumed;
  term::order order;  // the assumptions' facts, for deciding later comparisons

  // The same path from its start again (a CTA run that starts over: check::run_cta).
  void restart() {
    taken.clear();
    assumed.clear();
    order = term::order{};
  }
  // (a c b) under this path's assumptions (both sides rewritten under them first, so that
  // max(x, y) > z is decided once x > y and x > z are assumed).
  std::optional<bool> decided(term::store& s, cmp_op c, term::term_id a, term::term_id b) {
    if (order.empty()) return std::nullopt;
    return implied_outcome(s, order, c, order.resolve(s, a), order.resolve(s, b));
  }
  // A branch point: the prescribed outcome or true, recorded. The facts are settled at once, so
  // that a later comparison they imply only through a max (max(m1, m3) > m2 with m1 > m3) is
  // decided instead of branching into a contradiction.
  bool branch(term::store& s, cmp_op c, term::term_id a, term::term_id b) {
    bool outcome = taken.size() < prescribed.size() ? static_cast<bool>(prescribed[taken.size()]) : true;
    taken.push_back(outcome);
    assumed.push_back({a, b, c, outcome});
    assume(order, assumed.back());
    order.settle(s);
    return outcome;
  }
};

// Depth-first enumeration over runs: after a run took `taken` (its prescribed prefix, then true at
// each new branch point), the next run replays up to the last `true` and takes `false` there.
// nullopt when every outcome has been explored.
inline std::optional<std::vector<bool>> next_choices(std::vector<bool> taken) {
  while (!taken.empty() && !taken.back()) taken.pop_back();
  if (taken.empty()) return std::nullopt;
  taken.back() = false;
  return taken;
}

}  // namespace gpueq::exec
