// normal_forms::of (declared in canon/normal_form.hpp): the walk over the part of a term's DAG not
// yet normalized, which decides the nodes a sum walks into instead of normalizing them on their
// own, and the normal form of each node (compute). Included by normal_form.hpp at its end;
// includes it, so it compiles alone.
#pragma once

#include <gpueq/canon/normal_form.hpp>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpueq::canon {

inline std::size_t normal_forms::child_count(term_id t) const {
  using term::kind;
  switch (s_.kind_of(t)) {
    case kind::add:
    case kind::mul: return s_.slots(t).size() / 2;
    case kind::dot: return s_.dot_entries(t).size() * 2;  // x and y of each entry
    case kind::exp:
    case kind::log:
    case kind::sqrt:
    case kind::max:
    case kind::min:
    case kind::apply: return s_.slots(t).size();
    default: return 0;
  }
}

inline term_id normal_forms::child(term_id t, std::size_t i) const {
  using term::kind;
  switch (s_.kind_of(t)) {
    case kind::add: return s_.sum_entries(t)[i].term;
    case kind::mul: return s_.product_entries(t)[i].base;
    case kind::dot: {
      const term::dot_entry e = s_.dot_entries(t)[i / 2];
      return i % 2 ? e.y : e.x;
    }
    default: return s_.args(t)[i];
  }
}

inline fraction normal_forms::of(term_id root) {
  if (is_monomial(root)) return monomial_form(root);
  if (auto it = memo_.find(root); it != memo_.end()) return it->second;
  // Pass 1: an iterative DFS over the part of the DAG not yet normalized, giving a post-order and,
  // for sums and products, their reference counts and (first) parent.
  refs_.clear();
  walk_.clear();
  std::vector<term_id> order;
  boost::unordered_flat_set<term_id> seen;
  seen.insert(root);
  struct frame {
    term_id t;
    std::uint32_t next;
    std::uint32_t count;
  };
  auto open = [&](term_id t) {
    // A sum's entries are read ahead: each is a load from far away in the store (see parts_of_sum).
    if (s_.kind_of(t) == term::kind::add)
      for (auto e : s_.sum_entries(t).first(std::min<std::size_t>(s_.sum_entries(t).size(), 32))) s_.prefetch(e.term);
    return frame{t, 0, static_cast<std::uint32_t>(child_count(t))};
  };
  std::vector<frame> frames{open(root)};
  while (!frames.empty()) {
    frame& f = frames.back();
    if (f.next < f.count) {
      const term_id parent = f.t;
      term_id c = child(parent, f.next++);
      if (is_monomial(c)) continue;  // built on the fly: never visited nor memoized
      term::kind ck = s_.kind_of(c);
      if (ck == term::kind::add || ck == term::kind::mul || ck == term::kind::dot) {
        auto [it, fresh] = refs_.try_emplace(c, reference{0, parent});
        ++it->second.count;
      }
      if (!memo_.contains(c) && seen.insert(c).second) frames.push_back(open(c));
      continue;
    }
    order.push_back(f.t);
    frames.pop_back();
  }
  // Which nodes are walked by the sum that uses them instead of being normalized on their own
  // (parents before children: reverse post-order). A sum used only by a sum is walked (its terms
  // go straight into the parent's accumulator), and so is a rescaled sum `S·u` (u a product of
  // inputs and exponentials, as in an online softmax's D·e^(m_old − m_new)) used only by a sum,
  // together with its S when S is used only there: the parent's walk carries the factor u down to
  // S's terms. Without this, a running rescaled sum of n steps costs n²/2 term operations.
  // A product of sums used only by a sum is walked too, and expanded over its parts (over_parts):
  // a variance Σᵢ (xᵢ − m)² with m a shared sum multiplies m·m once, not n times.
  // A sum whose every use is as a factor of such walked products is left to them as well: they
  // read its entries (sum_over_parts), and its own form is built only if one of them needs it.
  boost::unordered_flat_map<term_id, std::uint32_t> factor_uses;  // by walked products of sums
  for (auto t = order.rbegin(); t != order.rend(); ++t) {
    if (*t == root) continue;
    auto r = refs_.find(*t);
    if (r == refs_.end() || memo_.contains(*t)) continue;
    term::kind k = s_.kind_of(*t);
    if (k == term::kind::add) {
      auto u = factor_uses.find(*t);
      if (u != factor_uses.end() && u->second == r->second.count) {
        walk_.insert(*t);
        continue;
      }
    }
    if (r->second.count != 1) continue;
    term_id parent = r->second.parent;
    term::kind pk = s_.kind_of(parent);
    const bool by_parts = options_.expand_by_parts && product_of_sums(*t);
    bool walked_by_sum =
        pk == term::kind::add &&
        (k == term::kind::add || k == term::kind::dot || rescaled_sum(*t) != term::no_term || by_parts ||
         unit_product(*t));
    bool base_of_walked_rescale =
        pk == term::kind::mul && walk_.contains(parent) && rescaled_sum(parent) == *t;
    if (walked_by_sum || base_of_walked_rescale) walk_.insert(*t);
    if (walked_by_sum && by_parts)
      for (auto f : s_.product_entries(*t))
        if (s_.kind_of(f.base) == term::kind::add) ++factor_uses[f.base];
  }
  // Pass 2: normalize in post-order; walked nodes are left to the sum that walks them.
  for (term_id t : order) {
    if (t != root && walk_.contains(t)) continue;
    if (!memo_.contains(t)) memo_.emplace(t, compute(t));
  }
  refs_.clear();
  walk_.clear();
  return memo_.at(root);
}

// The normal form of t from inside pass 2 (t's form was not built by this pass: it was walked by
// an earlier one): a nested normalization with its own pass state.
inline fraction normal_forms::nested_of(term_id t) {
  auto saved_refs = std::move(refs_);
  auto saved_walk = std::move(walk_);
  fraction r = of(t);
  refs_ = std::move(saved_refs);
  walk_ = std::move(saved_walk);
  return r;
}

// A product none of whose factors is a sum or a product (x·e^h, p·V[j][c], 2·max(a, b)/y): a
// sum that uses it adds its one term directly, instead of a one-term polynomial interned for it.
inline bool normal_forms::unit_product(term_id t) const {
  if (s_.kind_of(t) != term::kind::mul || is_monomial(t)) return false;
  for (auto f : s_.product_entries(t)) {
    term::kind k = s_.kind_of(f.base);
    if (k == term::kind::add || k == term::kind::mul || k == term::kind::constant || s_.is_infinite(f.base)) return false;
  }
  return true;
}

// S when t is S·u with S a sum (exponent 1) and u a product of inputs and exponentials (any
// integer powers), else term::no_term.
inline term_id normal_forms::rescaled_sum(term_id t) const {
  if (s_.kind_of(t) != term::kind::mul) return term::no_term;
  term_id sum = term::no_term;
  for (auto f : s_.product_entries(t)) {
    term::kind k = s_.kind_of(f.base);
    if (k == term::kind::add && f.exponent == 1 && sum == term::no_term) sum = f.base;
    else if (k != term::kind::input && k != term::kind::exp) return term::no_term;
  }
  return sum;
}

inline fraction normal_forms::compute(term_id t) {
  using term::kind;
  switch (s_.kind_of(t)) {
    case kind::constant: return constant_fraction(s_.value_of(t));
    case kind::neg_inf:
    case kind::pos_inf: throw unsupported("an infinity inside an expression has no normal form");
    case kind::input: return atom_fraction(t);
    case kind::add: return compute_sum(t);
    // A dot is a sum of products that have no term each: parts_of_sum folds each product into one
    // term of the accumulator, as it does for a sum's entries.
    case kind::dot: return compute_sum(t);
    case kind::mul: {
      // Cancel a factor's numerator against another factor's denominator first (a/d · d·u =
      // a·u), whatever order the factors come in, so that no denominator is multiplied out only
      // to be divided again.
      std::vector<fraction> fs;
      for (auto f : s_.product_entries(t)) fs.push_back(pow_fraction(form(f.base), f.exponent));
      for (std::size_t i = 0; i < fs.size(); ++i) {
        if (fs[i].den == one_poly_) continue;
        for (std::size_t j = 0; j < fs.size() && fs[i].den != one_poly_; ++j)
          if (j != i)
            if (auto u = unit_quotient(fs[j].num, fs[i].den)) {
              fs[j].num = *u;
              fs[i].den = one_poly_;
            }
      }
      // Single terms first: their product is one term, and a long numerator (a running output
      // N·(l_old/l_new)·e^(m_old − m_new)) is then multiplied once, not once per factor.
      std::stable_sort(fs.begin(), fs.end(), [&](const fraction& a, const fraction& b) {
        return terms(a.num).size() < terms(b.num).size();
      });
      fraction r = constant_fraction(s_.product_coefficient(t));
      for (auto& f : fs) r = mul_fractions(r, f);
      return r;
    }
    case kind::exp: {
      fraction a = form(s_.arg(t));
      poly_id e = a.den == one_poly_ ? a.num : exponent_of(s_.arg(t));
      std::vector<poly_term> one{{unit_mono, e, coefficient_t(1)}};
      return {intern_poly(one), one_poly_};
    }
    default: return canonical_atom(t);
  }
}

}  // namespace gpueq::canon
