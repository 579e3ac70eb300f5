// Atomics (semantics of engine<D, O>, declared in exec/engine.hpp): atom and red as observed
// read-modify-writes. add/min/max on data go through the domain (so symbolic accumulations stay
// symbolic); the old value an atom returns on symbolic data depends on the schedule and is poisoned
// so that a later read of it is a clear error.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <algorithm>
#include <cstdint>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

template <value_domain D, observer O>
inline void engine<D, O>::atomic(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  bool has_result = x.op == ptx::opcode::atom;
  std::size_t at = has_result ? 1 : 0;
  address_value addr = effective_address(t, x.ops[at]);
  const std::uint32_t w = access_width(x);
  // A vector atomic (sm_90's `atom/red.global.add.v2.f32`, .v4, and the .f16x2/.bf16x2 forms,
  // what atomicAdd on a float2 or float4 compiles to) is one access of all its elements,
  // each element its own read-modify-write; the operand and the result are vectors of that size.
  const xoperand& operand = x.ops[at + 1];
  const std::uint32_t n = operand.elements();
  if (n != (x.vec > 1 ? x.vec : 1u) || (has_result && x.ops[0].elements() != n))
    fail_at(error_kind::unsupported, t, "a vector atomic whose operands do not have the vector's size");
  if (n > 1 && !(x.has(flag::add) || x.has(flag::min) || x.has(flag::max)))
    fail_at(error_kind::unsupported, t, "a vector atomic other than add, min or max (the PTX ISA's forms)");
  check_alignment(t, addr.at, w * n);
  place p = locate(t, x.has_space ? x.space : ptx::state_space::generic, addr, w * n);
  observe(t, p, w * n, access_kind::atomic, pc, {},
          x.has(flag::add) ? atomic_op::add : x.has(flag::min) ? atomic_op::min : x.has(flag::max) ? atomic_op::max
          : x.has(flag::and_) ? atomic_op::and_ : x.has(flag::or_) ? atomic_op::or_ : x.has(flag::xor_) ? atomic_op::xor_
          : atomic_op::other);
  auto k = rkind_of(x.type);
  // Every source element is read before any old value is written back (a destination register
  // may be a later element's source).
  value bs[8];
  if (n > 8) fail_at(error_kind::unsupported, t, "a vector atomic of more than eight elements");
  for (std::uint32_t e = 0; e < n; ++e) bs[e] = read(t, operand.element(e));
  for (std::uint32_t e = 0; e < n; ++e) {
    const std::uint64_t offset = p.offset + std::uint64_t{e} * w;
    value old = load_cell(t, *p.r, offset, w);
    const value& b = bs[e];
    value result;
    bool data = k || is_symbolic(old) || is_symbolic(b);
    if (k && is_packed(x.type) && (x.has(flag::add) || x.has(flag::min) || x.has(flag::max))) {
      // A packed type (.f16x2, .bf16x2): each half its own add, min or max, as float_op does.
      aop o = x.has(flag::add) ? aop::add : x.has(flag::min) ? aop::min : aop::max;
      auto [olo, ohi] = packed_halves(old, *k, t);
      auto [blo, bhi] = packed_halves(b, *k, t);
      real lo[2] = {olo, blo}, hi[2] = {ohi, bhi};
      result = value::of_packed(guarded([&] { return d_.arith(o, lo, *k, float_mode{}); }, t),
                                guarded([&] { return d_.arith(o, hi, *k, float_mode{}); }, t), *k);
    } else if (is_packed(x.type)) {
      fail_at(error_kind::unsupported, t, "this atomic operation on a packed type (add, min and max are modelled)");
    } else if (x.has(flag::exch)) result = b;
    else if (x.has(flag::cas)) {
      value c = read(t, x.ops[at + 2]);
      if (is_symbolic(old) || is_symbolic(b)) fail_at(error_kind::not_structured, t, "compare-and-swap on symbolic data");
      result = (to_bits(old, t) & mask_of(x.type)) == (to_bits(b, t) & mask_of(x.type)) ? c : old;
    } else if (data && (x.has(flag::add) || x.has(flag::min) || x.has(flag::max))) {
      rkind kk = k.value_or(rkind::integer);
      real xs[2] = {to_real(old, kk, t), to_real(b, kk, t)};
      aop o = x.has(flag::add) ? aop::add : x.has(flag::min) ? aop::min : aop::max;
      result = value::of_real(guarded([&] { return d_.arith(o, xs, kk, float_mode{}); }, t), kk);
    } else {
      std::uint64_t a = to_bits(old, t) & mask_of(x.type), v = to_bits(b, t) & mask_of(x.type), r = 0;
      bool s = is_signed(x.type);
      if (x.has(flag::add)) r = a + v;
      else if (x.has(flag::and_)) r = a & v;
      else if (x.has(flag::or_)) r = a | v;
      else if (x.has(flag::xor_)) r = a ^ v;
      else if (x.has(flag::inc)) r = a >= v ? 0 : a + 1;
      else if (x.has(flag::dec)) r = (a == 0 || a > v) ? v : a - 1;
      else if (x.has(flag::min)) r = s ? static_cast<std::uint64_t>(std::min(sext(a, x.type), sext(v, x.type))) : std::min(a, v);
      else if (x.has(flag::max)) r = s ? static_cast<std::uint64_t>(std::max(sext(a, x.type), sext(v, x.type))) : std::max(a, v);
      else fail_at(error_kind::unsupported, t, "this atomic operation");
      result = value::of_bits(r & mask_of(x.type));
    }
    p.r->store(offset, w, result);
    if (!has_result) continue;
    const xoperand& dst = x.ops[0].element(e);
    // The old value an atomic returns depends on the order of the threads' atomics; with
    // symbolic data that order is one schedule among many, so such a result may not be used.
    if (D::symbolic && data && dst.k != xoperand::kind::sink) {
      value poisoned;
      poisoned.bits = value::poisoned_atomic;
      write(t, dst, poisoned);
    } else {
      write(t, dst, old);
    }
  }
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
