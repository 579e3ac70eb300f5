// Order assumptions between terms: the conjunction of `a > b` and `a ≥ b` facts that one path of a
// case split over comparisons of symbolic values (exec::case_split, check::check_kernels) assumes.
// It answers what the facts imply (transitively, through the constants they name), whether they
// contradict each other, and rewrites a term under them: terms the facts make equal (a ≥ b and
// b ≥ a) become one representative (the least id), and a max/min drops every argument another
// argument dominates (max(x, y) is x under x ≥ y). Facts the rewrite simplifies are themselves
// rewritten (settle), so that max(x, y) > z under x > y counts as x > z.
//
// Semantic choice (README, "Semantics decisions"): over the reals a comparison's negation is the
// converse non-strict order (¬(a > b) is b ≥ a; there is no NaN); `a ≠ b` is no order fact and is
// kept only as a condition a witness must satisfy (check::check_kernels).
#pragma once

#include <gpueq/term/store.hpp>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gpueq::term {

struct order_fact {
  term_id greater, lesser;
  bool strict;  // greater > lesser; otherwise greater ≥ lesser
  friend bool operator==(const order_fact&, const order_fact&) = default;
};

class order {
 public:
  enum class implied_kind : std::uint8_t { none, non_strict, strict };

  void assume(term_id greater, term_id lesser, bool strict) {
    facts_.push_back({greater, lesser, strict});
    stale_ = true;
  }
  // a ≠ b: no order fact; a condition on witnesses only.
  void assume_distinct(term_id a, term_id b) { distinct_.emplace_back(a, b); }
  const std::vector<order_fact>& facts() const { return facts_; }
  const std::vector<std::pair<term_id, term_id>>& distinct() const { return distinct_; }
  bool empty() const { return facts_.empty() && distinct_.empty(); }

  // What the facts imply about a against b: a > b (strict), a ≥ b (non_strict), or nothing.
  // Identical terms are equal; constants and ±∞ compare by value; every other fact is an edge
  // greater → lesser, and a chain implies the order, strictly when one edge of it is strict.
  implied_kind implied(const store& s, term_id a, term_id b) const {
    if (a == b) return implied_kind::non_strict;
    if (auto d = direct(s, a, b)) return *d;
    if (stale_) refresh(s);
    // Depth-first over (node, strict so far); the best answer wins.
    std::vector<std::pair<term_id, bool>> frontier{{a, false}};
    boost::unordered_flat_map<term_id, std::uint8_t> seen{{a, 1}};  // bit 0: reached, bit 1: reached strictly
    implied_kind best = implied_kind::none;
    auto visit = [&](term_id n, bool strict) {
      std::uint8_t& m = seen[n];
      if (m & 2 || (!strict && m & 1)) return;  // reached as well or better already
      m |= strict ? 3 : 1;
      frontier.emplace_back(n, strict);
    };
    if (is_fixed(s, a) && !adjacent_.contains(a))  // a constant the facts do not name: through those they do
      for (term_id c : fixed_)
        if (auto d = direct(s, a, c); d && *d != implied_kind::none) visit(c, *d == implied_kind::strict);
    while (!frontier.empty()) {
      auto [n, strict] = frontier.back();
      frontier.pop_back();
      if (n == b) {
        best = std::max(best, strict ? implied_kind::strict : implied_kind::non_strict);
        if (best == implied_kind::strict) return best;
        continue;
      }
      if (auto d = direct(s, n, b); d && *d != implied_kind::none)
        best = std::max(best, strict || *d == implied_kind::strict ? implied_kind::strict : implied_kind::non_strict);
      if (auto it = adjacent_.find(n); it != adjacent_.end())
        for (auto [m, e] : it->second) visit(m, strict || e);
    }
    return best;
  }
  bool implies_ge(const store& s, term_id a, term_id b) const { return implied(s, a, b) != implied_kind::none; }
  bool implies_gt(const store& s, term_id a, term_id b) const { return implied(s, a, b) == implied_kind::strict; }

  // False when the facts contradict each other (a chain back to a fact's greater side from its
  // lesser one that is strict, or that closes a strict fact): such a path is infeasible.
  bool consistent(const store& s) const {
    for (const order_fact& f : facts_) {
      implied_kind back = implied(s, f.lesser, f.greater);
      if (back == implied_kind::strict || (f.strict && back != implied_kind::none)) return false;
    }
    for (auto [a, b] : distinct_)
      if (a == b) return false;
    return true;
  }

  // Rewrites the facts' terms under the facts until nothing changes (at most `rounds` times). The
  // facts as assumed stay (the terms as the runs name them) beside their rewritten forms.
  void settle(store& s, int rounds = 8) {
    for (int r = 0; r < rounds; ++r) {
      std::vector<order_fact> next = facts_;
      for (const order_fact& f : facts_) {
        order_fact g{resolve(s, f.greater), resolve(s, f.lesser), f.strict};
        if (std::find(next.begin(), next.end(), g) == next.end()) next.push_back(g);
      }
      if (next.size() == facts_.size()) return;
      facts_ = std::move(next);
      stale_ = true;
    }
  }

  // t with max/min resolved and equal terms merged under the facts (see the header comment). The
  // result equals t at every input that satisfies the facts. A node is rebuilt from its rewritten
  // children first (max(m1, m3) is m1 under m1 > m3), then replaced by its class's
  // representative, so that a fact max(m1, m3) = m2 becomes m1 = m2 when settled.
  term_id resolve(store& s, term_id t, int depth = 0) {
    if (facts_.empty()) return t;
    if (stale_) refresh(s);
    std::vector<std::pair<term_id, bool>> stack{{t, false}};
    while (!stack.empty()) {
      auto [x, expanded] = stack.back();
      if (memo_.contains(x)) {
        stack.pop_back();
        continue;
      }
      const std::size_t n = s.child_count(x);
      if (!expanded) {
        stack.back().second = true;
        for (std::size_t i = 0; i < n; ++i)
          if (!memo_.contains(s.child(x, i))) stack.emplace_back(s.child(x, i), false);
        continue;
      }
      stack.pop_back();
      term_id y = rebuild(s, x);
      if (auto r = representative_.find(y); r != representative_.end() && r->second != y)
        y = depth < 16 ? resolve(s, r->second, depth + 1) : r->second;
      memo_.emplace(x, y);
    }
    return memo_.at(t);
  }

 private:
  static bool is_fixed(const store& s, term_id t) { return s.is_constant(t) || s.is_infinite(t); }
  // The order of two constants or infinities; −∞ below and +∞ above every other term (a term is
  // never infinite for some inputs only: term::store).
  static std::optional<implied_kind> direct(const store& s, term_id a, term_id b) {
    auto k = [&](term_id t) { return s.kind_of(t); };
    if (k(b) == kind::neg_inf || k(a) == kind::pos_inf) return a == b ? implied_kind::non_strict : implied_kind::strict;
    if (k(a) == kind::neg_inf || k(b) == kind::pos_inf) return implied_kind::none;
    if (s.is_constant(a) && s.is_constant(b)) {
      const rational &x = s.value_of(a), &y = s.value_of(b);
      return x > y ? implied_kind::strict : x == y ? implied_kind::non_strict : implied_kind::none;
    }
    return std::nullopt;
  }

  // The facts as adjacency lists (with each named constant linked to the next smaller one), and
  // the equal classes (mutually ≥) of the facts' terms, each represented by its least id.
  void refresh(const store& s) const {
    memo_.clear();
    representative_.clear();
    adjacent_.clear();
    fixed_.clear();
    std::vector<term_id> nodes;
    for (const order_fact& f : facts_) {
      nodes.insert(nodes.end(), {f.greater, f.lesser});
      adjacent_[f.greater].emplace_back(f.lesser, f.strict);
      adjacent_.try_emplace(f.lesser);
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (term_id n : nodes)
      if (is_fixed(s, n)) fixed_.push_back(n);
    std::sort(fixed_.begin(), fixed_.end(), [&](term_id a, term_id b) { return direct(s, b, a) == implied_kind::strict; });
    for (std::size_t i = 0; i + 1 < fixed_.size(); ++i) adjacent_[fixed_[i + 1]].emplace_back(fixed_[i], true);
    stale_ = false;
    // Reachable sets, then classes.
    boost::unordered_flat_map<term_id, boost::unordered_flat_set<term_id>> reach;
    for (term_id a : nodes) {
      auto& r = reach[a];
      std::vector<term_id> stack{a};
      r.insert(a);
      while (!stack.empty()) {
        term_id n = stack.back();
        stack.pop_back();
        for (auto [m, e] : adjacent_.at(n))
          if (r.insert(m).second) stack.push_back(m);
      }
    }
    for (term_id a : nodes) {
      if (representative_.contains(a)) continue;
      representative_[a] = a;
      for (term_id b : reach.at(a))
        if (b > a && !representative_.contains(b) && reach.at(b).contains(a)) representative_[b] = a;
    }
  }

  // x rebuilt from its rewritten children; a max/min without the dominated arguments.
  term_id rebuild(store& s, term_id x) {
    const std::size_t n = s.child_count(x);
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i) changed |= memo_.at(s.child(x, i)) != s.child(x, i);
    const kind k = s.kind_of(x);
    if (k == kind::max || k == kind::min) {
      std::vector<term_id> kept;
      for (term_id a : s.args(x)) {
        term_id y = memo_.at(a);
        // max: y is dominated when a kept argument is ≥ y; min: when one is ≤ y.
        auto dominates = [&](term_id u, term_id v) { return k == kind::max ? implies_ge(s, u, v) : implies_ge(s, v, u); };
        if (std::any_of(kept.begin(), kept.end(), [&](term_id u) { return dominates(u, y); })) {
          changed = true;
          continue;
        }
        std::size_t before = kept.size();
        std::erase_if(kept, [&](term_id u) { return dominates(y, u); });
        changed |= kept.size() != before;
        kept.push_back(y);
      }
      if (!changed) return x;
      if (kept.size() == 1) return kept[0];
      return k == kind::max ? s.max(kept) : s.min(kept);
    }
    if (!changed) return x;
    auto c = [&](term_id t) { return memo_.at(t); };
    switch (k) {
      case kind::add: {
        std::vector<term_id> xs{s.constant(s.sum_constant(x))};
        for (const sum_entry& e : s.sum_entries(x)) xs.push_back(s.scale(s.constant_value(e.coefficient), c(e.term)));
        return s.add(xs);
      }
      case kind::mul: {
        std::vector<term_id> xs;
        for (const product_entry& e : s.product_entries(x)) xs.push_back(s.pow(c(e.base), e.exponent));
        return s.scale(s.product_coefficient(x), s.mul(xs));
      }
      case kind::dot: {
        std::vector<term_id> xs;
        for (const dot_entry& e : s.dot_entries(x)) xs.push_back(s.scale(s.constant_value(e.coefficient), s.mul(c(e.x), c(e.y))));
        return s.add(xs);
      }
      case kind::exp: return s.exp(c(s.arg(x)));
      case kind::log: return s.log(c(s.arg(x)));
      case kind::sqrt: return s.sqrt(c(s.arg(x)));
      case kind::apply: {
        std::vector<term_id> xs;
        for (term_id a : s.args(x)) xs.push_back(c(a));
        return s.apply(s.function_of(x), xs);
      }
      default: return x;  // leaves
    }
  }

  std::vector<order_fact> facts_;
  std::vector<std::pair<term_id, term_id>> distinct_;
  mutable bool stale_ = true;
  mutable boost::unordered_flat_map<term_id, term_id> representative_, memo_;
  mutable boost::unordered_flat_map<term_id, std::vector<std::pair<term_id, bool>>> adjacent_;
  mutable std::vector<term_id> fixed_;  // the constants and infinities the facts name, ascending
};

}  // namespace gpueq::term
