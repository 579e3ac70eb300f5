// store::import (declared and documented in term/store.hpp): the term of another store built in
// this one, node by node, sharing what a fork has in common with its origin. Included by
// store.hpp at its end; includes it, so it compiles alone.
#pragma once

#include <gpueq/support/sort.hpp>
#include <gpueq/term/store.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace gpueq::term {

inline term_id store::import(const store& from, term_id t, std::vector<term_id>& memo) {
  if (&from == this) return t;
  const bool forked = from.fork_of_ == serial_;
  const term_id shared = forked ? from.fork_terms_ : 0;
  const std::uint32_t shared_constants = forked ? from.fork_constants_ : minus_one_index + 1;
  const std::uint32_t shared_tensors = forked ? from.fork_tensors_ : 0;
  if (t < shared) return t;
  if (memo.size() < from.size()) memo.resize(from.size(), no_term);
  if (memo[t] != no_term) return memo[t];
  auto mapped = [&](term_id x) { return x < shared ? x : memo[x]; };
  std::vector<std::pair<term_id, bool>> work{{t, false}};
  std::vector<std::uint32_t> s;
  // 0, 1 and −1 have the same index in every store: most coefficients need no re-interning.
  auto constant = [&](std::uint32_t i) { return i < shared_constants ? i : intern_constant(from.constants_[i]); };
  while (!work.empty()) {
    auto [x, expanded] = work.back();
    if (memo[x] != no_term) {
      work.pop_back();
      continue;
    }
    const node& n = from.nodes_[x];
    auto children = from.slots(x);
    // A unit dot (a GEMM's dot products: most of what a multi-worker check imports) in one pass
    // over its slots, which are its factors: mapped and built at once when every factor is.
    if (n.k == kind::dot && n.payload == unit_dot && children.size() / 2 > options_.flatten_limit) {
      if (term_id made = import_unit_dot(children, n.hash, mapped); made != no_term) {
        memo[x] = made;
        work.pop_back();
        continue;
      }
      work.back().second = true;
      for (term_id c : children)
        if (mapped(c) == no_term) work.push_back({c, false});
      continue;
    }
    if (!expanded) {
      work.back().second = true;
      for (std::size_t i = 0, count = from.child_count(x); i < count; ++i)
        if (term_id c = from.child(x, i); mapped(c) == no_term) work.push_back({c, false});
      continue;
    }
    work.pop_back();
    if (n.k == kind::dot) {
      // Over factors and coefficients shared with a fork's origin, its slots are this store's
      // own, in canonical order already: found (or made) as they are, without a copy.
      auto entries = from.dot_entries(x);
      if (std::all_of(entries.begin(), entries.end(), [&](const dot_entry& e) {
            return e.coefficient < shared_constants && e.x < shared && e.y < shared;
          })) {
        memo[x] = make(kind::dot, n.payload, from.slots(x), n.hash);
        continue;
      }
      // Otherwise ids differ here, and a dot's entries are in id order: dot() orders them again.
      std::vector<dot_entry>& es = import_scratch_;
      es.clear();
      for (auto e : entries) es.push_back({constant(e.coefficient), mapped(e.x), mapped(e.y)});
      memo[x] = dot(es, n.hash);
      continue;
    }
    s.assign(children.begin(), children.end());
    std::uint32_t payload = n.payload;
    switch (n.k) {
      case kind::constant: payload = constant(payload); break;
      case kind::input: payload = payload < shared_tensors ? payload : tensor(from.tensor_names_[payload]); break;
      case kind::add:
        payload = constant(payload);
        for (std::size_t i = 0; i < s.size(); i += 2) {
          s[i] = constant(s[i]);
          s[i + 1] = mapped(s[i + 1]);
        }
        break;
      case kind::mul:
        payload = constant(payload);
        for (std::size_t i = 0; i < s.size(); i += 2) s[i] = mapped(s[i]);
        break;
      case kind::neg_inf:
      case kind::pos_inf: break;
      default:
        for (auto& c : s) c = mapped(c);
    }
    memo[x] = make(n.k, payload, s, n.hash);
  }
  return memo[t];
}

// The unit dot with factors `slots` (another store's (x, y) pairs) and structural hash `hash`
// here, or no_term when some factor is not here yet (map gives no_term). Import maps distinct
// terms to distinct terms, so the pairs stay distinct with coefficient 1: the result is the unit
// dot of the mapped pairs in id order, which dot() would build, without its merging and copying;
// pairs are sorted as 64-bit keys, and not at all when the map kept their order.
template <class Map>
term_id store::import_unit_dot(std::span<const std::uint32_t> slots, std::uint64_t hash, Map&& map) {
  std::vector<std::uint64_t>& keys = import_keys_;
  keys.resize(slots.size() / 2);
  bool sorted = true;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    term_id a = map(slots[2 * i]), b = map(slots[2 * i + 1]);
    if (a == no_term || b == no_term) return no_term;
    if (b < a) std::swap(a, b);
    keys[i] = std::uint64_t{a} << 32 | b;
    sorted = sorted && (i == 0 || keys[i - 1] < keys[i]);
  }
  if (!sorted) support::sort_nearly_sorted(keys.begin(), keys.end(), std::less<>());
  std::vector<std::uint32_t>& sl = dot_slot_scratch_;
  sl.resize(slots.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    sl[2 * i] = static_cast<std::uint32_t>(keys[i] >> 32);
    sl[2 * i + 1] = static_cast<std::uint32_t>(keys[i]);
  }
#if GPUEQ_CHECK_INVARIANTS
  GPUEQ_INVARIANT(std::adjacent_find(keys.begin(), keys.end()) == keys.end(), "an imported dot's pairs stay distinct");
#endif
  return make(kind::dot, unit_dot, sl, hash);
}

}  // namespace gpueq::term
