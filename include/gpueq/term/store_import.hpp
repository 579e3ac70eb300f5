// store::import and store::import_all (declared in term/store.hpp): the term of another store
// built in this one, node by node, sharing what a fork has in common with its origin. Included by
// store.hpp at its end; includes it, so it compiles alone.
#pragma once

#include <gpueq/support/parallel.hpp>
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
  const shared_prefix common = shared_with(from);
  const term_id shared = common.terms;
  if (t < shared) return t;
  if (memo.size() < from.size()) memo.resize(from.size(), no_term);
  if (memo[t] != no_term) return memo[t];
  auto mapped = [&](term_id x) { return x < shared ? x : memo[x]; };
  std::vector<std::pair<term_id, bool>> work{{t, false}};
  std::vector<std::uint32_t> s;
  // 0, 1 and −1 have the same index in every store: most coefficients need no re-interning.
  auto constant = [&](std::uint32_t i) { return i < common.constants ? i : intern_constant(from.constants_[i]); };
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
            return e.coefficient < common.constants && e.x < shared && e.y < shared;
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
      case kind::input: payload = payload < common.tensors ? payload : tensor(from.tensor_names_[payload]); break;
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
// here, or no_term when some factor is not here yet (map gives no_term).
template <class Map>
term_id store::import_unit_dot(std::span<const std::uint32_t> slots, std::uint64_t hash, Map&& map) {
  if (!unit_dot_slots(slots, map, import_keys_, dot_slot_scratch_)) return no_term;
  return make(kind::dot, unit_dot, dot_slot_scratch_, hash);
}

// The slots here of the unit dot with factors `slots` (another store's): false when some factor
// is not here yet (map gives no_term). Import maps distinct terms to distinct terms, so the pairs
// stay distinct with coefficient 1: the result is the unit dot of the mapped pairs in id order,
// which dot() would build, without its merging and copying; pairs are sorted as 64-bit keys
// (`keys`, a buffer), and not at all when the map kept their order.
template <class Map>
bool store::unit_dot_slots(std::span<const std::uint32_t> slots, Map&& map, std::vector<std::uint64_t>& keys,
                           std::vector<std::uint32_t>& out) {
  keys.resize(slots.size() / 2);
  bool sorted = true;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    term_id a = map(slots[2 * i]), b = map(slots[2 * i + 1]);
    if (a == no_term || b == no_term) return false;
    if (b < a) std::swap(a, b);
    keys[i] = std::uint64_t{a} << 32 | b;
    sorted = sorted && (i == 0 || keys[i - 1] < keys[i]);
  }
  if (!sorted) support::sort_nearly_sorted(keys.begin(), keys.end(), std::less<>());
  out.resize(slots.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[2 * i] = static_cast<std::uint32_t>(keys[i] >> 32);
    out[2 * i + 1] = static_cast<std::uint32_t>(keys[i]);
  }
#if GPUEQ_CHECK_INVARIANTS
  GPUEQ_INVARIANT(std::adjacent_find(keys.begin(), keys.end()) == keys.end(), "an imported dot's pairs stay distinct");
#endif
  return true;
}

// import for many terms of one store: each root as import gives it, with the bulk of the work
// (the inputs under long unit dots, and those dots) looked up on `threads` threads. A check with
// several workers imports each worker's outputs after the runs, on one thread while the others
// would wait; in a GEMM those are the worker's 16 K dots of 4 K products over about a million
// inputs, which the main store mostly holds already (the other kernel built the same terms).
// Steps (only the lookups are parallel, so the result does not depend on the threads):
//  1. serially, find the long unit dots reachable from the roots (not through another one);
//  2. in parallel, look up the input leaves `from` made;
//  3. in parallel, map and order each dot's pairs (unit_dot_slots) and look the dot up; then
//     serially import the ones not found (and the factors they miss), in order;
//  4. import the roots, which now find their long dots in memo.
inline void store::import_all(const store& from, std::span<term_id> roots, std::vector<term_id>& memo,
                              unsigned threads) {
  if (&from == this) return;
  const shared_prefix common = shared_with(from);
  const term_id shared = common.terms;
  if (memo.size() < from.size()) memo.resize(from.size(), no_term);
  auto open = [&](term_id x) { return x >= shared && memo[x] == no_term; };
  auto long_unit_dot = [&](term_id x) {
    const node& n = from.nodes_[x];
    return n.k == kind::dot && n.payload == unit_dot && n.count / 2 > options_.flatten_limit;
  };
  // 1. The long unit dots (a node reached twice is looked at once: `seen`, by id past `shared`).
  std::vector<term_id> dots, stack;
  std::vector<std::uint8_t> seen(from.size() - shared, 0);
  for (term_id r : roots)
    if (open(r)) stack.push_back(r);
  while (!stack.empty()) {
    term_id x = stack.back();
    stack.pop_back();
    if (seen[x - shared]) continue;
    seen[x - shared] = 1;
    if (long_unit_dot(x)) {
      dots.push_back(x);
      continue;
    }
    for (std::size_t i = 0, count = from.child_count(x); i < count; ++i)
      if (term_id c = from.child(x, i); open(c) && !seen[c - shared]) stack.push_back(c);
  }
  if (dots.empty()) {
    for (term_id& r : roots) r = import(from, r, memo);
    return;
  }
  // 2. The input leaves: every one `from` made past the fork, looked up here in parallel, by a
  //    scan of its nodes (reaching them through the dots' slots would read every slot once more
  //    on one thread). A leaf found here is the same term; one not found stays unmapped, and
  //    only the dots that need it make it (step 3's fallback), so nothing unreachable is made.
  //    (A tensor this store has no name for has no leaf here either: nothing to look up.)
  constexpr std::uint32_t no_tensor = ~0u;
  std::vector<std::uint32_t> tensors(from.tensor_names_.size(), no_tensor);
  for (std::uint32_t i = 0; i < tensors.size(); ++i)
    if (i < common.tensors) tensors[i] = i;
    else if (auto it = tensor_index_.find(from.tensor_names_[i]); it != tensor_index_.end()) tensors[i] = it->second;
  constexpr std::size_t chunk = 4096;
  auto chunks = [](std::size_t n, std::size_t per) { return (n + per - 1) / per; };
  const std::size_t past_fork = from.size() - shared;
  support::parallel_for(threads, chunks(past_fork, chunk), [&](unsigned, std::size_t c) {
    for (term_id x = shared + static_cast<term_id>(c * chunk); x < shared + std::min(past_fork, (c + 1) * chunk); ++x)
      if (const node& n = from.nodes_[x]; n.k == kind::input && memo[x] == no_term && tensors[n.payload] != no_tensor)
        memo[x] = find(kind::input, tensors[n.payload], from.slots(x), n.hash);  // each x on one thread
  });
  // 3. The dots: ordered and looked up in parallel (each worker with its own buffers).
  auto mapped = [&](term_id x) { return x < shared ? x : memo[x]; };
  constexpr std::size_t dot_chunk = 16;
  std::vector<term_id> found(dots.size(), no_term);
  std::vector<std::pair<std::vector<std::uint64_t>, std::vector<std::uint32_t>>> buffers(std::max(1u, threads));
  support::parallel_for(threads, chunks(dots.size(), dot_chunk), [&](unsigned w, std::size_t c) {
    auto& [keys, sl] = buffers[w];
    for (std::size_t i = c * dot_chunk; i < std::min(dots.size(), (c + 1) * dot_chunk); ++i)
      if (unit_dot_slots(from.slots(dots[i]), mapped, keys, sl))
        found[i] = find(kind::dot, unit_dot, sl, from.nodes_[dots[i]].hash);
  });
  for (std::size_t i = 0; i < dots.size(); ++i)
    memo[dots[i]] = found[i] != no_term ? found[i] : import(from, dots[i], memo);  // makes what is missing
  // 4. The roots.
  for (term_id& r : roots) r = import(from, r, memo);
}

}  // namespace gpueq::term
