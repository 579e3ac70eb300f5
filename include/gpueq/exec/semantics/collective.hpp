// Warp collectives (semantics of engine<D, O>, declared in exec/engine.hpp): a thread arrives with
// its member mask and waits; when every non-exited member has arrived at the same collective it
// completes as one warp-level barrier generation, and its semantics run over the members at once:
// shfl, vote, match, redux here, mma, ldmatrix and wmma in tensor_core.hpp.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <algorithm>
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
    case op::match: case op::redux: mask = to_bits(read(t, x.ops.back()), t); break;
    default: break;  // mma, ldmatrix, wmma: .aligned over the whole warp
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
template <value_domain D, observer O>
inline void engine<D, O>::try_collective(std::uint32_t t) {
  std::uint32_t w = t / warp_size, base = w * warp_size;
  std::uint32_t mask = warp_mask_[t];
  const xinstr& x = p_.code[pc_[t]];
  std::vector<std::uint32_t> members;
  for (std::uint32_t lane = 0; lane < warp_size; ++lane) {
    if (!(mask >> lane & 1)) continue;
    std::uint32_t u = base + lane;
    if (status_[u] == status::exited) continue;
    if (status_[u] != status::at_warp) return;
    const xinstr& y = p_.code[pc_[u]];
    if (y.op != x.op || y.flags != x.flags || warp_mask_[u] != mask) {
      // Divergence within the warp: members wait at different collectives.
      fail(error_kind::barrier, u,
           "warp " + std::to_string(w) + ": threads of member mask 0x" + hex(mask) + " wait at different collectives (" +
               where(pc_[t]) + " and " + where(pc_[u]) + ")",
           pc_[u]);
    }
    members.push_back(u);
  }
  if (members.empty()) return;
  std::vector<barrier_registration> regs;
  for (auto u : members) {
    regs.push_back({u, true, pc_[u]});
    o_.on_barrier_register(regs.back(), barrier_key{barrier_kind::warp, w}, warp_generation_[w], mask);
  }
  collective(x, members);
  ++stats_.warp_collectives;
  o_.on_barrier_complete(barrier_instance{barrier_key{barrier_kind::warp, w}, warp_generation_[w],
                                          static_cast<std::uint32_t>(members.size()), regs});
  ++warp_generation_[w];
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
    case op::mma: return mma(x, members);
    case op::ldmatrix: return ldmatrix(x, members);
    case op::wmma_load: return wmma_load(x, members);
    case op::wmma_store: return wmma_store(x, members);
    case op::wmma_mma: return wmma_mma(x, members);
    default: fail_at(error_kind::unsupported, members.front(), "this warp collective");
  }
}

template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::member_at(const std::vector<std::uint32_t>& members, std::uint32_t lane) const {
  std::uint32_t base = members.front() / warp_size * warp_size;
  for (auto u : members)
    if (u == base + lane) return u;
  return ~0u;
}

template <value_domain D, observer O>
inline void engine<D, O>::shfl(const xinstr& x, const std::vector<std::uint32_t>& members) {
  // PTX ISA, shfl.sync: source lane j from b (lane or offset) and c (clamp | segment mask << 8).
  std::vector<value> a(members.size());
  // An undefined source value (values.hpp) moves like any other: the lane that reads it holds an
  // undefined value (Triton's cross-warp reductions shuffle unloaded registers in lanes whose
  // results are never used).
  for (std::size_t i = 0; i < members.size(); ++i) a[i] = read_data(members[i], x.ops[1]);
  std::vector<std::pair<value, bool>> out(members.size());
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
    std::uint32_t src = member_at(members, static_cast<std::uint32_t>(j));
    if (src == ~0u)
      fail(error_kind::barrier, u,
           "shfl reads lane " + std::to_string(j) + ", which is not a non-exited member of the mask", pc_[u]);
    std::size_t si = static_cast<std::size_t>(std::find(members.begin(), members.end(), src) - members.begin());
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
    real acc = to_real(v[0], kk, members[0]);
    for (std::size_t i = 1; i < v.size(); ++i) {
      real xs[2] = {acc, to_real(v[i], kk, members[i])};
      acc = guarded([&] { return d_.arith(o, xs, kk, float_mode{}); }, members[i]);
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

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
