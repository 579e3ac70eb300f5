// Warp collectives (semantics of engine<D, O>, declared in exec/engine.hpp): a thread arrives with
// its member mask and waits; when every non-exited member has arrived at the same collective it
// completes as one warp-level barrier generation, and its semantics run over the members at once:
// shfl, vote, match, redux, elect and setmaxnreg here, mma, ldmatrix, stmatrix, movmatrix and
// wmma in tensor_core.hpp, the wgmma family in wgmma.hpp.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

template <value_domain D, observer O>
inline void engine<D, O>::arrive_warp(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  using op = ptx::opcode;
  std::uint64_t mask = 0xffffffffu;
  switch (x.op) {
    case op::bar_warp_sync: mask = to_bits(read(t, x.ops[0]), t); break;
    case op::shfl: if (x.ops.size() > 4) mask = to_bits(read(t, x.ops[4]), t); break;
    case op::vote: if (x.ops.size() > 2) mask = to_bits(read(t, x.ops.back()), t); break;
    case op::match: case op::redux: case op::elect: mask = to_bits(read(t, x.ops.back()), t); break;
    case op::setmaxnreg:  // .aligned over the whole warpgroup: four warps the block must have
    case op::wgmma_fence: case op::wgmma_mma_async: case op::wgmma_commit_group: case op::wgmma_wait_group:
      if (std::uint32_t g = t / warp_size / 4; n_ < (g + 1) * 4 * warp_size)
        fail_at(error_kind::barrier, t,
                std::string(ptx::name(x.op)) + " is executed by whole warpgroups (four warps), and the block's " +
                    std::to_string(n_) +
                    " threads leave warpgroup " + std::to_string(g) + " incomplete");
      break;
    default: break;  // mma, ldmatrix, stmatrix, movmatrix, wmma: .aligned over the whole warp
  }
  mask &= 0xffffffffu;
  std::uint32_t lane = t % warp_size;
  if (!(mask >> lane & 1))
    fail_at(error_kind::barrier, t, "the executing thread is not in the member mask 0x" + hex(mask));
  std::uint32_t w = t / warp_size;
  std::uint64_t exists = w == warps_ - 1 && n_ % warp_size ? (std::uint64_t{1} << (n_ % warp_size)) - 1 : 0xffffffffu;
  if (mask & ~exists) fail_at(error_kind::barrier, t, "member mask 0x" + hex(mask) + " names lanes the block does not have");
  status_[t] = status::at_warp;
  warp_mask_[t] = static_cast<std::uint32_t>(mask);
  (void)pc;
  try_collective(t);
}

// Completes the collective thread t waits at, if every non-exited member has arrived.
//
// The members are checked in lane order up to the first one that has not arrived. Arrived members
// stay where they are until the generation completes, so when t waits at the instruction and with
// the mask the warp's last unfinished scan held, the lanes that scan passed agree with t as they
// did with it, and the scan goes on from there (collective_scan_): an arrival in lane order costs
// one lane instead of all the lanes before it. Anything else scans from lane 0.
template <value_domain D, observer O>
inline void engine<D, O>::try_collective(std::uint32_t t) {
  std::uint32_t w = t / warp_size, base = w * warp_size;
  std::uint32_t mask = warp_mask_[t];
  const xinstr& x = p_.code[pc_[t]];
  collective_scan& scan = collective_scan_[w];
  std::uint32_t first = 0;
  if (scan.generation == warp_generation_[w] && scan.mask == mask && scan.pc == pc_[t]) first = scan.lanes;
  for (std::uint32_t lane = first; lane < warp_size; ++lane) {
    if (!(mask >> lane & 1)) continue;
    std::uint32_t u = base + lane;
    if (status_[u] == status::exited) continue;
    if (status_[u] != status::at_warp) {
      scan = {warp_generation_[w], mask, lane, pc_[t]};
      return;
    }
    const xinstr& y = p_.code[pc_[u]];
    if (y.op != x.op || y.flags != x.flags || warp_mask_[u] != mask) {
      // Divergence within the warp: members wait at different collectives.
      fail(error_kind::barrier, u,
           "warp " + std::to_string(w) + ": threads of member mask 0x" + hex(mask) + " wait at different collectives (" +
               where(pc_[t]) + " and " + where(pc_[u]) + ")",
           pc_[u]);
    }
    // .aligned (mma, ldmatrix, stmatrix, movmatrix, wmma, setmaxnreg): "all threads in the warp
    // must execute the same instruction"; two copies of it on divergent paths are not one.
    if (x.has(flag::aligned) && pc_[u] != pc_[t])
      fail(error_kind::barrier, u,
           "warp " + std::to_string(w) + ": threads wait at two copies of an .aligned " + std::string(ptx::name(x.op)) +
               " (" + where(pc_[t]) + " and " + where(pc_[u]) +
               "): every thread of the warp must execute the same instruction",
           pc_[u]);
  }
  // Every non-exited member has arrived: they are the collective's members, in lane order.
  std::array<std::uint32_t, warp_size> arrived;
  std::uint32_t count = 0;
  for (std::uint32_t lane = 0; lane < warp_size; ++lane)
    if (mask >> lane & 1 && status_[base + lane] == status::at_warp) arrived[count++] = base + lane;
  if (count == 0) return;
  const std::vector<std::uint32_t> members(arrived.begin(), arrived.begin() + count);
  std::vector<barrier_registration> regs;
  regs.reserve(count);
  for (auto u : members) {
    regs.push_back({u, true, pc_[u]});
    o_.on_barrier_register(regs.back(), barrier_key{barrier_kind::warp, w}, warp_generation_[w], mask);
  }
  collective(x, members);
  ++stats_.warp_collectives;
  o_.on_barrier_complete(barrier_instance{barrier_key{barrier_kind::warp, w}, warp_generation_[w],
                                          static_cast<std::uint32_t>(members.size()), regs});
  ++warp_generation_[w];
  if (collective_acquires_) {
    for (auto u : members) o_.on_barrier_acquire(barrier_registration{u, true, pc_[u]}, collective_acquires_->first,
                                                 collective_acquires_->second);
    collective_acquires_.reset();
  }
  // tensormap.cp_fenceproxy.sync.aligned copies once for the warp, after every member's earlier
  // accesses (the map's fields one lane wrote): as the first member, now ordered after them all.
  if (x.op == ptx::opcode::tensormap_cp_fenceproxy) tensormap_op(members.front(), x, pc_[members.front()]);
  for (auto u : members) {
    status_[u] = status::runnable;
    ++pc_[u];
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::collective(const xinstr& x, const std::vector<std::uint32_t>& members) {
  using op = ptx::opcode;
  switch (x.op) {
    case op::bar_warp_sync: return;
    case op::shfl: return shfl(x, members);
    case op::vote: return vote(x, members);
    case op::match: return match(x, members);
    case op::redux: return redux(x, members);
    case op::elect: return elect(x, members);
    case op::setmaxnreg: return setmaxnreg(x, members);
    case op::mma: return mma(x, members);
    case op::ldmatrix: return ldmatrix(x, members);
    case op::stmatrix: return stmatrix(x, members);
    case op::movmatrix: return movmatrix(x, members);
    case op::wmma_load: return wmma_load(x, members);
    case op::wmma_store: return wmma_store(x, members);
    case op::wmma_mma: return wmma_mma(x, members);
    case op::wgmma_fence: return wgmma_fence(members);
    case op::wgmma_mma_async: return wgmma_mma_async(x, members);
    case op::wgmma_commit_group: return wgmma_commit(members);
    case op::wgmma_wait_group: return wgmma_wait(x, members);
    case op::tensormap_cp_fenceproxy: return;  // copied after the completion (try_collective)
    default: fail_at(error_kind::unsupported, members.front(), "this warp collective");
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::shfl(const xinstr& x, const std::vector<std::uint32_t>& members) {
  // PTX ISA, shfl.sync: source lane j from b (lane or offset) and c (clamp | segment mask << 8).
  std::array<value, warp_size> a;  // the members' sources, by place in members
  // An undefined source value (values.hpp) moves like any other: the lane that reads it holds an
  // undefined value (Triton's cross-warp reductions shuffle unloaded registers in lanes whose
  // results are never used).
  for (std::size_t i = 0; i < members.size(); ++i) a[i] = read_data(members[i], x.ops[1]);
  std::array<std::uint32_t, warp_size> index;  // lane -> its place in members, or ~0u
  index.fill(~0u);
  for (std::size_t i = 0; i < members.size(); ++i) index[members[i] % warp_size] = static_cast<std::uint32_t>(i);
  std::array<std::pair<value, bool>, warp_size> out;
  for (std::size_t i = 0; i < members.size(); ++i) {
    std::uint32_t u = members[i], lane = u % warp_size;
    std::uint32_t bval = static_cast<std::uint32_t>(to_bits(read(u, x.ops[2]), u)) & 31;
    std::uint32_t c = static_cast<std::uint32_t>(to_bits(read(u, x.ops[3]), u));
    std::uint32_t cval = c & 31, segmask = (c >> 8) & 31;
    std::uint32_t max_lane = (lane & segmask) | (cval & ~segmask), min_lane = lane & segmask;
    std::int32_t j = 0;
    bool pval = false;
    if (x.has(flag::up)) {
      j = static_cast<std::int32_t>(lane) - static_cast<std::int32_t>(bval);
      pval = j >= static_cast<std::int32_t>(max_lane);
    } else if (x.has(flag::down)) {
      j = static_cast<std::int32_t>(lane + bval);
      pval = j <= static_cast<std::int32_t>(max_lane);
    } else if (x.has(flag::bfly)) {
      j = static_cast<std::int32_t>(lane ^ bval);
      pval = j <= static_cast<std::int32_t>(max_lane);
    } else {
      j = static_cast<std::int32_t>(min_lane | (bval & ~segmask));
      pval = j <= static_cast<std::int32_t>(max_lane);
    }
    if (!pval) j = static_cast<std::int32_t>(lane);
    std::uint32_t si = j >= 0 && j < static_cast<std::int32_t>(warp_size) ? index[static_cast<std::uint32_t>(j)] : ~0u;
    if (si == ~0u)
      fail(error_kind::barrier, u,
           "shfl reads lane " + std::to_string(j) + ", which is not a non-exited member of the mask", pc_[u]);
    out[i] = {a[si], pval};
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    const xoperand& d = x.ops[0];
    if (d.k == xoperand::kind::vector) {
      write(members[i], d.elems[0], out[i].first);
      write(members[i], d.elems[1], value::of_bits(out[i].second));
    } else {
      write(members[i], d, out[i].first);
    }
  }
}

// The first undefined value among the members' data operand (x.ops[1]) of vote, match or redux.
template <value_domain D, observer O>
inline auto engine<D, O>::undefined_among(const xinstr& x, const std::vector<std::uint32_t>& members)
    -> std::optional<value> {
  for (auto u : members)
    if (value v = read_data(u, x.ops[1]); v.t == value::tag::empty) return v;
  return std::nullopt;
}

template <value_domain D, observer O>
inline void engine<D, O>::vote(const xinstr& x, const std::vector<std::uint32_t>& members) {
  std::uint64_t ballot = 0;
  std::vector<bool> p(members.size());
  if (auto u = undefined_among(x, members)) {  // one member's undefined predicate: every result is undefined
    for (auto m : members) write_undefined(m, x, *u);
    return;
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    p[i] = truth(members[i], read(members[i], x.ops[1]));
    if (p[i]) ballot |= std::uint64_t{1} << (members[i] % warp_size);
  }
  bool all = true, any = false;
  for (bool v : p) all = all && v, any = any || v;
  for (std::size_t i = 0; i < members.size(); ++i) {
    value r;
    if (x.has(flag::ballot)) r = value::of_bits(ballot);
    else if (x.has(flag::all)) r = value::of_bits(all);
    else if (x.has(flag::any)) r = value::of_bits(any);
    else r = value::of_bits(all || !any);  // .uni
    write(members[i], x.ops[0], r);
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::match(const xinstr& x, const std::vector<std::uint32_t>& members) {
  std::vector<std::uint64_t> v(members.size());
  if (auto u = undefined_among(x, members)) {  // one member's undefined value: every result is undefined
    for (auto m : members) write_undefined(m, x, *u);
    return;
  }
  for (std::size_t i = 0; i < members.size(); ++i) v[i] = to_bits(read(members[i], x.ops[1]), members[i]) & mask_of(x.type);
  bool all_equal = std::all_of(v.begin(), v.end(), [&](std::uint64_t y) { return y == v[0]; });
  std::uint64_t everyone = 0;
  for (auto u : members) everyone |= std::uint64_t{1} << (u % warp_size);
  for (std::size_t i = 0; i < members.size(); ++i) {
    std::uint64_t m = 0;
    if (x.has(flag::all)) m = all_equal ? everyone : 0;
    else
      for (std::size_t j = 0; j < members.size(); ++j)
        if (v[j] == v[i]) m |= std::uint64_t{1} << (members[j] % warp_size);
    const xoperand& d = x.ops[0];
    if (d.k == xoperand::kind::vector) {
      write(members[i], d.elems[0], value::of_bits(m));
      write(members[i], d.elems[1], value::of_bits(all_equal));
    } else {
      write(members[i], d, value::of_bits(m));
    }
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::redux(const xinstr& x, const std::vector<std::uint32_t>& members) {
  if (auto u = undefined_among(x, members)) {  // one member's undefined value: every result is undefined
    for (auto m : members) write_undefined(m, x, *u);
    return;
  }
  std::vector<value> v;
  for (auto u : members) v.push_back(read(u, x.ops[1]));
  value r;
  auto k = rkind_of(x.type);
  bool data = k.has_value();
  for (auto& c : v) data = data || is_symbolic(c);
  if (data && (x.has(flag::add) || x.has(flag::min) || x.has(flag::max))) {
    rkind kk = k.value_or(rkind::integer);
    aop o = x.has(flag::add) ? aop::add : x.has(flag::min) ? aop::min : aop::max;
    if (x.has(flag::abs)) fail_at(error_kind::unsupported, members[0], "redux.sync .abs is not modelled yet");
    float_mode fm;
    fm.nan = x.has(flag::nan_);  // .f32 min/max .NaN (sm_100a): a NaN operand makes the result NaN
    real acc = to_real(v[0], kk, members[0]);
    for (std::size_t i = 1; i < v.size(); ++i) {
      real xs[2] = {acc, to_real(v[i], kk, members[i])};
      acc = guarded([&] { return d_.arith(o, xs, kk, fm); }, members[i]);
    }
    r = value::of_real(acc, kk);
  } else {
    std::uint64_t acc = to_bits(v[0], members[0]) & mask_of(x.type);
    bool s = is_signed(x.type);
    for (std::size_t i = 1; i < v.size(); ++i) {
      std::uint64_t b = to_bits(v[i], members[i]) & mask_of(x.type);
      if (x.has(flag::add)) acc = (acc + b) & mask_of(x.type);
      else if (x.has(flag::and_)) acc &= b;
      else if (x.has(flag::or_)) acc |= b;
      else if (x.has(flag::xor_)) acc ^= b;
      else if (x.has(flag::min)) acc = s ? static_cast<std::uint64_t>(std::min(sext(acc, x.type), sext(b, x.type))) & mask_of(x.type) : std::min(acc, b);
      else if (x.has(flag::max)) acc = s ? static_cast<std::uint64_t>(std::max(sext(acc, x.type), sext(b, x.type))) & mask_of(x.type) : std::max(acc, b);
    }
    r = value::of_bits(acc);
  }
  for (auto u : members) write(u, x.ops[0], r);
}

// elect.sync d|p, membermask (PTX ISA 8.0, sm_90): "elects one predicated active leader thread
// from among a set of threads specified by membermask"; d (or the sink _) receives the leader's
// lane id in every member, p is true in the leader only. The ISA fixes only that the election is
// deterministic ("the same leader thread is elected for the same membermask every time"), not
// which thread: gpueq elects the lowest-numbered member that has not exited (README, "Semantics
// decisions"). .sync makes it a warp collective over the mask, like vote.
template <value_domain D, observer O>
inline void engine<D, O>::elect(const xinstr& x, const std::vector<std::uint32_t>& members) {
  const xoperand& d = x.ops[0];
  if (!x.has(flag::sync) || x.flags != std::uint64_t{1} << static_cast<unsigned>(flag::sync) || !x.types.empty())
    fail_at(error_kind::unsupported, members.front(), "this elect form (expected elect.sync d|p, membermask)");
  if (d.k != xoperand::kind::vector || d.elems.size() != 2)
    fail_at(error_kind::unsupported, members.front(), "elect.sync writes a pair d|p (d may be the sink _)");
  const std::uint32_t leader = members.front();  // members are in lane order
  for (auto u : members) {
    write(u, d.elems[0], value::of_bits(leader % warp_size));
    write(u, d.elems[1], value::of_bits(u == leader));
  }
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 imm-reg-count (PTX ISA 8.0, sm_90a): a hint that moves
// registers between a warp and the CTA's pool. It changes no value gpueq models (the registers it
// adds have undefined contents, and gpueq registers are unbounded), so it is checked, not run:
//   - imm-reg-count is an integer constant in 24..256 and a multiple of 8;
//   - .sync: a warp collective, the warp's 32 threads all execute it (none exited: .aligned);
//   - "the same setmaxnreg instruction must be executed by all warps in a warpgroup": the k-th
//     setmaxnreg of every warp of a warpgroup is the same instruction, and no warp of the group
//     ends the run having executed fewer than another (setmaxnreg_finish);
//   - "after executing a setmaxnreg instruction, all warps in the warpgroup must synchronize
//     explicitly before executing subsequent setmaxnreg instructions": a warp that runs its
//     (k+1)-th while another warp of the group has not yet run its k-th cannot have synchronized
//     with it. (A missing synchronization is found when the run's schedule shows it; the race
//     context does not track it.)
//   - .dec must not raise and .inc must not lower the count the warp holds ("the maximum number
//     of per-thread registers owned by the warp prior to the execution ... should be greater than
//     or equal to [.dec] / less than or equal to [.inc] the imm-reg-count"): known after the
//     group's previous setmaxnreg. Before the first one the warp holds the kernel's register
//     count, which ptxas picks at most at its .maxnreg: a .dec above .maxnreg is an error, an
//     .inc is not checked against it (ptxas may have allocated fewer).
template <value_domain D, observer O>
inline void engine<D, O>::setmaxnreg(const xinstr& x, const std::vector<std::uint32_t>& members) {
  const std::uint32_t u0 = members.front(), w = u0 / warp_size, g = w / 4;
  auto flag_bit = [](flag f) { return std::uint64_t{1} << static_cast<unsigned>(f); };
  const bool inc = x.has(flag::inc);
  if (x.flags != (flag_bit(inc ? flag::inc : flag::dec) | flag_bit(flag::sync) | flag_bit(flag::aligned)) ||
      x.types.size() != 1 || x.type != vtype::u32)
    fail_at(error_kind::unsupported, u0, "this setmaxnreg form (expected setmaxnreg.{inc,dec}.sync.aligned.u32 N)");
  const xoperand& c = x.ops[0];
  if (c.k != xoperand::kind::imm || c.imm_float)
    fail_at(error_kind::barrier, u0, "setmaxnreg's register count must be an integer constant");
  const std::uint64_t count = c.imm;
  if (count < 24 || count > 256 || count % 8 != 0)
    fail_at(error_kind::barrier, u0,
            "setmaxnreg register count " + std::to_string(static_cast<std::int64_t>(count)) +
                " is not a multiple of 8 in 24..256");
  if (members.size() != warp_size)
    for (std::uint32_t lane = 0; lane < warp_size; ++lane)
      if (status_[w * warp_size + lane] == status::exited)
        fail_at(error_kind::barrier, u0,
                "setmaxnreg.sync.aligned is executed by every thread of the warpgroup, and thread " +
                    thread_name(w * warp_size + lane) + " (lane " + std::to_string(lane) + ") has exited");
  auto& mine = setmaxnreg_[w];
  const std::size_t k = mine.size();
  for (std::uint32_t v = 4 * g; v < 4 * g + 4; ++v) {
    if (v == w) continue;
    const auto& theirs = setmaxnreg_[v];
    if (theirs.size() > k && theirs[k].instruction != pc_[u0])
      fail_at(error_kind::barrier, u0,
              "warp " + std::to_string(w) + " executes setmaxnreg " + where(pc_[u0]) + " where warp " +
                  std::to_string(v) + " of warpgroup " + std::to_string(g) + " executed " +
                  where(theirs[k].instruction) + ": all warps of a warpgroup must execute the same setmaxnreg");
    if (k > 0 && theirs.size() < k)
      fail_at(error_kind::barrier, u0,
              "warp " + std::to_string(w) + " executes another setmaxnreg before warp " + std::to_string(v) +
                  " of warpgroup " + std::to_string(g) + " executed the one at " + where(mine[k - 1].instruction) +
                  ": the warpgroup's warps must synchronize between two setmaxnreg");
  }
  // The count the warp holds before: the previous setmaxnreg's; before the first, at most the
  // kernel's .maxnreg.
  if (k > 0 && (inc ? mine[k - 1].count > count : mine[k - 1].count < count))
    fail_at(error_kind::barrier, u0,
            std::string("setmaxnreg.") + (inc ? "inc" : "dec") + " to " + std::to_string(count) +
                " registers from the " + std::to_string(mine[k - 1].count) + " of " + where(mine[k - 1].instruction) +
                ": .inc may only raise the count and .dec only lower it");
  if (k == 0 && !inc)
    for (const auto& dir : p_.function->directives)
      if (p_.str(dir.name) == ".maxnreg" && !dir.values.empty() && dir.values.front() < count)
        fail_at(error_kind::barrier, u0,
                "setmaxnreg.dec to " + std::to_string(count) + " registers, more than the kernel's .maxnreg " +
                    std::to_string(dir.values.front()) + ": .dec may only lower the count");
  mine.push_back({pc_[u0], static_cast<std::uint32_t>(count)});
}

// At the end of a run: every warp of a warpgroup executed the same setmaxnreg instructions.
template <value_domain D, observer O>
inline void engine<D, O>::setmaxnreg_finish() {
  for (std::uint32_t w = 0; w < warps_; ++w)
    for (std::uint32_t v = w / 4 * 4; v < std::min(warps_, w / 4 * 4 + 4); ++v)
      if (setmaxnreg_[v].size() > setmaxnreg_[w].size()) {
        const std::uint32_t missed = setmaxnreg_[v][setmaxnreg_[w].size()].instruction;
        fail(error_kind::barrier, w * warp_size,
             "warp " + std::to_string(w) + " of warpgroup " + std::to_string(w / 4) +
                 " exited without executing the setmaxnreg that warp " + std::to_string(v) +
                 " executed: all warps of a warpgroup must execute the same setmaxnreg",
             missed);
      }
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
