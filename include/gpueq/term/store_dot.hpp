// Long sums built at once (declared and documented in term/store.hpp): store::dot, the dot node
// in canonical shape, store::dot_as_sum, and store::sum_of, which gathers the products of an
// accumulation into one dot. Included by store.hpp at its end; includes it, so it compiles
// alone.
#pragma once

#include <gpueq/support/sort.hpp>
#include <gpueq/term/store.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace gpueq::term {

inline term_id store::dot(std::vector<dot_entry>& es, std::optional<std::uint64_t> known_hash,
                          std::optional<std::uint64_t> entry_hash_sum) {
  auto key = [](const dot_entry& e) { return (std::uint64_t{e.x} << 32) | e.y; };
  // One pass puts each pair in id order and sees whether the entries are sorted already: a loop's
  // products mostly arrive in the order their inputs were first loaded.
  bool sorted = true, distinct = true;
  for (std::size_t i = 0; i < es.size(); ++i) {
    auto& e = es[i];
    if (e.y < e.x) std::swap(e.x, e.y);
    if (i > 0) {
      std::uint64_t previous = key(es[i - 1]), k = key(e);
      sorted = sorted && previous <= k;
      distinct = distinct && previous != k;
    }
  }
  if (!sorted) {
    support::sort_nearly_sorted(es.begin(), es.end(), [&](const dot_entry& a, const dot_entry& b) { return key(a) < key(b); });
    distinct = std::adjacent_find(es.begin(), es.end(), [&](const dot_entry& a, const dot_entry& b) {
                 return key(a) == key(b);
               }) == es.end();
  }
  if (!distinct) {  // like products merge
    std::size_t out = 0;
    for (std::size_t i = 0; i < es.size();) {
      std::size_t j = i + 1;
      std::uint32_t c = es[i].coefficient;
      if (j < es.size() && key(es[j]) == key(es[i])) {
        rational sum = constants_[c];
        while (j < es.size() && key(es[j]) == key(es[i])) sum += constants_[es[j++].coefficient];
        c = intern_constant(sum);
      }
      if (c != zero_index) es[out++] = {c, es[i].x, es[i].y};
      i = j;
    }
    es.resize(out);
  } else {
    const std::size_t before = es.size();
    std::erase_if(es, [](const dot_entry& e) { return e.coefficient == zero_index; });
    // The entries are the caller's, unmerged and none dropped: their hash sum is the dot's.
    if (entry_hash_sum && !known_hash && es.size() == before)
      known_hash = dot_hash(*entry_hash_sum);
  }
  if (es.size() <= options_.flatten_limit) {
    std::vector<term_id> items;
    for (auto& e : es) {
      rational c = constants_[e.coefficient];  // a copy: scale() may grow constants_
      items.push_back(scale(c, mul(e.x, e.y)));
    }
    return add(items);
  }
  std::vector<std::uint32_t>& sl = dot_slot_scratch_;
  if (std::all_of(es.begin(), es.end(), [](const dot_entry& e) { return e.coefficient == one_index; })) {
    sl.resize(2 * es.size());  // unit_dot: (x, y) pairs
    for (std::size_t i = 0; i < es.size(); ++i) sl[2 * i] = es[i].x, sl[2 * i + 1] = es[i].y;
    return make(kind::dot, unit_dot, sl, known_hash);
  }
  sl.resize(3 * es.size());
  std::memcpy(sl.data(), es.data(), sl.size() * sizeof(std::uint32_t));  // dot_entry is three words
  return make(kind::dot, general_dot, sl, known_hash);
}

inline term_id store::dot_as_sum(term_id t) {
  std::vector<term_id> items;
  for (auto e : dot_entries(t)) {  // (the entries live in the slot arena, which never moves)
    rational c = constants_[e.coefficient];
    items.push_back(scale(c, mul(e.x, e.y)));
  }
  return add(items);
}

inline term_id store::sum_of(std::span<const summand> xs) { return sum_of(xs, xs.size(), 0); }

inline term_id store::sum_of(std::span<const summand> xs, std::size_t plain_from, std::uint64_t hash_sum) {
  auto both_exp = [&](term_id x, term_id y) { return nodes_[x].k == kind::exp && nodes_[y].k == kind::exp; };
  // t = c·f for one dot factor f.
  auto single = [&](term_id t, std::uint32_t& c, term_id& f) {
    const node& n = nodes_[t];
    if (dot_factor(t)) {
      c = one_index, f = t;
      return true;
    }
    if (n.k != kind::mul || n.count != 2 || product_entries(t)[0].exponent != 1) return false;
    c = n.payload, f = product_entries(t)[0].base;
    return dot_factor(f);
  };
  // The store's own vectors, not fresh ones: a GEMM closes thousands of sums, and fresh memory
  // for each (malloc, free, first touches) was a fifth of sum_of in the symbolic hgemm. Nothing
  // sum_of calls (scale, mul, dot, add) calls it again.
  std::vector<dot_entry>& es = sum_of_entries_;
  std::vector<term_id>& items = sum_of_items_;
  es.clear();
  items.clear();
  es.reserve(xs.size());
  // c·t for a term t (c a constant index): a product of two dot factors (or the square of one) is
  // a dot entry; a sum short enough that add() would flatten it gives its own entries (so a sum
  // that started from a bias or a short partial sum holds all its products in one dot); anything
  // else is added as add() adds it.
  auto term_summand = [&](auto& self, std::uint32_t c, term_id t) -> void {
    const node& n = nodes_[t];
    if (n.k == kind::mul && n.count <= 4) {
      auto pe = product_entries(t);
      if (pe.size() == 2 && pe[0].exponent == 1 && pe[1].exponent == 1 && dot_factor(pe[0].base) &&
          dot_factor(pe[1].base) && !both_exp(pe[0].base, pe[1].base)) {
        es.push_back({times(c, n.payload), pe[0].base, pe[1].base});
        return;
      }
      if (pe.size() == 1 && pe[0].exponent == 2 && dot_factor(pe[0].base) && !both_exp(pe[0].base, pe[0].base)) {
        es.push_back({times(c, n.payload), pe[0].base, pe[0].base});
        return;
      }
    }
    if (n.k == kind::add && n.count / 2 <= options_.flatten_limit) {
      if (n.payload != zero_index) items.push_back(constant(constants_[times(c, n.payload)]));
      for (auto e : sum_entries(t)) self(self, times(c, e.coefficient), e.term);
      return;
    }
    if (c == one_index) {
      items.push_back(t);
    } else {
      rational k = constants_[c];  // a copy: scale() may grow constants_
      items.push_back(scale(k, t));
    }
  };
  for (const summand& x : xs.first(plain_from)) {
    if (x.b == no_term) {
      term_summand(term_summand, one_index, x.a);
      continue;
    }
    std::uint32_t ca = 0, cb = 0;
    term_id fa = no_term, fb = no_term;
    if (single(x.a, ca, fa) && single(x.b, cb, fb) && !both_exp(fa, fb)) {
      es.push_back({times(ca, cb), fa, fb});
      continue;
    }
    items.push_back(mul(x.a, x.b));
  }
  std::uint64_t entry_hash_sum = hash_sum;
  if (plain_from < xs.size())
    for (const dot_entry& e : es) entry_hash_sum += pair_hash(e.x, e.y, e.coefficient);
  for (const summand& x : xs.subspan(plain_from)) es.push_back({one_index, x.a, x.b});
  if (es.size() > options_.flatten_limit) {
    items.push_back(dot(es, std::nullopt, plain_from < xs.size() ? std::optional<std::uint64_t>(entry_hash_sum) : std::nullopt));
  } else {
    for (auto& e : es) {
      rational c = constants_[e.coefficient];
      items.push_back(scale(c, mul(e.x, e.y)));
    }
  }
  return add(items);
}

}  // namespace gpueq::term
