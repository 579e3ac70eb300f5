// CTA barriers (semantics of engine<D, O>, declared in exec/engine.hpp): bar/barrier sync, arrive and
// red on sixteen ids, as generations of the `cta` synchronization resource (exec/sync.hpp, which
// says how it counts and what the race context checks). Counting is per warp (PTX, sm_70+): a
// warp counts as warp-size threads once all its non-exited threads have registered. A generation
// completes when enough have arrived; its waiting registrants resume after the barrier, with
// bar.red's result.
#pragma once

#include <gpueq/exec/engine.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

template <value_domain D, observer O>
inline void engine<D, O>::barrier(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  bool arrive = x.has(flag::arrive);
  bool red = x.has(flag::red);
  std::size_t first = red ? 1 : 0;
  std::uint64_t id = to_bits(read(t, x.ops[first]), t) & 0xffffffff;
  constexpr std::uint64_t ids = model(barrier_kind::cta).identities;
  if (id >= ids)
    fail_at(error_kind::barrier, t, "barrier id " + std::to_string(id) + " is not in 0.." + std::to_string(ids - 1));
  // In a cluster run each CTA has its own sixteen (exec/sync.hpp).
  const barrier_key key{barrier_kind::cta, clustered_ ? id + ids * (rank_of(t) + 1) : id};
  std::optional<std::uint32_t> count;
  std::size_t count_at = first + 1;
  if (x.ops.size() > count_at + (red ? 1 : 0)) {
    count = static_cast<std::uint32_t>(to_bits(read(t, x.ops[count_at]), t));
    if (*count == 0 || *count % warp_size != 0)
      fail_at(error_kind::barrier, t, "barrier thread count " + std::to_string(*count) + " is not a positive multiple of the warp size");
  }
  if (arrive && !count) fail_at(error_kind::barrier, t, "bar.arrive needs a thread count");
  open_generation& bar = sync_.at(key);
  if (!bar.open()) {
    bar.all = !count;
    bar.expected = count.value_or(0);
    bar.started_by = pc;
  } else if (bar.all != !count || (count && *count != bar.expected)) {
    fail_at(error_kind::barrier, t,
            describe(key) + " generation " + std::to_string(bar.generation) + " was opened at " +
                where(bar.started_by) + " expecting " + (bar.all ? std::string("all threads") : std::to_string(bar.expected)) +
                " but this instruction names " + (count ? std::to_string(*count) : std::string("all threads")));
  }
  if (red) {
    value pv = read(t, x.ops.back());
    red_value_[t] = truth(t, pv);
  }
  barrier_registration reg_{t, !arrive, pc};
  bar.regs.push_back(reg_);
  o_.on_barrier_register(reg_, key, bar.generation, bar.expected);
  if (arrive) {
    pc_[t] = pc + 1;
  } else {  // resumes after the barrier when the generation completes
    status_[t] = status::at_barrier;
    barrier_of_[t] = key;
  }
  try_complete(key);
}

template <value_domain D, observer O>
inline void engine<D, O>::try_complete(barrier_key key) {
  if (key.kind == barrier_kind::cluster) return cluster_try_complete();
  open_generation& bar = sync_.at(key);
  if (!bar.open()) return;
  std::uint32_t arrived;
  if (bar.all) {  // every live thread of the CTA
    constexpr std::uint64_t ids = model(barrier_kind::cta).identities;
    if (bar.regs.size() < (clustered_ ? cta_live_[key.id / ids - 1] : live_)) return;
    arrived = static_cast<std::uint32_t>(bar.regs.size());
  } else {
    // Each warp with a registrant counts at most warp_size threads: with too few registrants the
    // generation cannot be complete, and the count (at every registration) is not needed.
    if (bar.regs.size() * warp_size < bar.expected) return;
    // While no thread has exited and every warp is whole, every warp's registrants are its live
    // registrants, and a warp counts warp_size exactly when all warp_size lanes registered: the
    // per-warp rule counts the registrations themselves (arrived_per_warp, without its walk).
    if (live_ == n_ && n_ % warp_size == 0)
      arrived = static_cast<std::uint32_t>(bar.regs.size());
    else
      arrived = arrived_per_warp(
        bar, warps_, warp_size, [&](std::uint32_t u) { return status_[u] == status::exited; },
        [&](std::uint32_t w) { return live_in_warp(w); });
    if (arrived < bar.expected) return;
    if (arrived > bar.expected)
      fail(error_kind::barrier, bar.regs.back().thread,
           describe(key) + " generation " + std::to_string(bar.generation) + ": " + std::to_string(arrived) +
               " threads arrived for " + std::to_string(bar.expected) + " expected (over-subscription)",
           bar.regs.back().instruction);
  }
  std::vector<barrier_registration> regs = std::move(bar.regs);
  bar.regs.clear();
  ++stats_.barrier_instances;
  o_.on_barrier_complete(barrier_instance{key, bar.generation, bar.all ? arrived : bar.expected, regs});
  ++bar.generation;
  // bar.red: the reduction over every registrant's predicate.
  std::uint64_t popc = 0;
  bool all = true, any = false;
  if (!red_value_.empty())  // (else no bar.red registered and none of these is read)
    for (auto& r : regs) {
      bool v = red_value_.contains(r.thread) && red_value_[r.thread];
      popc += v;
      all = all && v;
      any = any || v;
    }
  for (auto& r : regs) {
    if (!r.waits) continue;
    std::uint32_t t = r.thread;
    const xinstr& x = p_.code[pc_[t]];
    if (x.has(flag::red)) {
      std::uint64_t res = x.has(flag::popc) ? popc : x.has(flag::and_) ? all : any;
      write(t, x.ops[0], value::of_bits(res));
    }
    status_[t] = status::runnable;
    ++pc_[t];
  }
  red_value_.clear();
  // The next generation registers into this one's storage (nothing registered meanwhile: the
  // released threads have not run).
  regs.clear();
  if (bar.regs.empty()) bar.regs.swap(regs);
  barrier_released_ = break_at_release_;  // schedule goes back to warp-wide rounds
}

template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::live_in_warp(std::uint32_t w) const {
  std::uint32_t c = 0;
  for (std::uint32_t u = w * warp_size; u < std::min(n_, (w + 1) * warp_size); ++u) c += status_[u] != status::exited;
  return c;
}

template <value_domain D, observer O>
inline std::uint64_t engine<D, O>::live_lanes(std::uint32_t w) const {
  std::uint64_t m = 0;
  for (std::uint32_t u = w * warp_size; u < std::min(n_, (w + 1) * warp_size); ++u)
    if (status_[u] != status::exited) m |= std::uint64_t{1} << (u - w * warp_size);
  return m;
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
