// Floating-point arithmetic (semantics of engine<D, O>, declared in exec/engine.hpp): every float
// instruction through the domain's one entry point (arith with an aop), packed f16x2/bf16x2
// elementwise, the lifted real functions (ptx/lift.hpp: exp, log, ... recognized from nvcc's
// sequences), copysign and testp (a value's sign and class), and the fast forms of f32 arithmetic
// and setp.f32 on registers that hold reals.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

template <value_domain D, observer O>
inline void engine<D, O>::float_op(std::uint32_t t, const xinstr& x) {
  auto code = float_aop(x.op);
  if (!code) fail_at(error_kind::unsupported, t, "this floating-point instruction");
  aop o = *code;
  float_mode m = mode_of(x);
  rkind k = *rkind_of(x.type);
  std::size_t n = x.ops.size() - 1;
  // min/max with three inputs (sm_100, PTX ISA 8.8; .f32 only, as ptxas checks): the extremum of
  // the three, which is the two-input one applied twice (NaNs are skipped, or with .NaN
  // propagate, through both steps alike).
  const bool extremum = o == aop::min || o == aop::max;
  const bool three = extremum && n == 3;
  if (extremum && x.has(flag::abs))
    fail_at(error_kind::unsupported, t, "min/max .abs is not modelled yet");
  if (three && x.type != vtype::f32)
    fail_at(error_kind::unsupported, t, "three-input min/max exists for .f32 only (PTX ISA)");
  if (n > 3) fail_at(error_kind::unsupported, t, "a floating-point instruction with this many operands");
  if (is_packed(x.type)) {  // elementwise on both halves
    real lo[3], hi[3];
    for (std::size_t i = 0; i < n; ++i) std::tie(lo[i], hi[i]) = packed_halves(read(t, x.ops[i + 1]), k, t);
    real rl = guarded([&] { return d_.arith(o, std::span<const real>(lo, n), k, m); }, t);
    real rh = guarded([&] { return d_.arith(o, std::span<const real>(hi, n), k, m); }, t);
    return write(t, x.ops[0], value::of_packed(rl, rh, k));
  }
  real args[3];
  for (std::size_t i = 0; i < n; ++i) args[i] = to_real(read(t, x.ops[i + 1]), k, t);
  real r = guarded([&] { return d_.arith(o, std::span<const real>(args, three ? 2 : n), k, m); }, t);
  if (three) {
    real last[2] = {std::move(r), args[2]};
    r = guarded([&] { return d_.arith(o, std::span<const real>(last, 2), k, m); }, t);
  }
  write(t, x.ops[0], value::of_real(std::move(r), k));
}

// copysign.type d, a, b (d: b's magnitude with a's sign; PTX ISA, note the operand order, the
// reverse of C's copysign) and testp.op.type p, a (.finite .infinite .number .notanumber .normal
// .subnormal; "as a special case, positive and negative zero are considered normal numbers"),
// .type = .f32 or .f64. A value with concrete bits (a bits cell, or a real the domain holds
// exactly in the format: every float32 value, exact and symbolic constants) is answered from its
// bits, so copysign copies the sign bit and keeps a NaN's payload, and testp classifies NaNs and
// infinities even in the exact domain (which stops only where it must compute with one). Any
// other value is a real (an exact rational not representable in the format, a symbolic term that
// is not an infinity), and there (README, "Semantics decisions"):
//   - testp: it is finite, a number, not infinite, not a NaN (values are reals: no overflow); it
//     is subnormal when 0 < |a| < the format's smallest normal (2^-126, 2^-1022), as the
//     format's classes are defined by magnitude, else normal. An exact rational is never rounded,
//     so this classifies its magnitude, not a rounded value's.
//   - copysign: the sign of a is the outcome of a < 0; its magnitude is |b| (the domain's abs).
//     The reals have one zero: a zero of the exact or symbolic domain is +0 (a -0 still held as
//     bits keeps its sign bit), and a symbolic sign source that may be zero is taken as a >= 0
//     on the `false` outcome of a < 0.
// A comparison the domain cannot decide (a symbolic a) is a branch point of the case split where
// one runs (as selp's), else the run stops as not structured.
template <value_domain D, observer O>
inline void engine<D, O>::sign_and_class(std::uint32_t t, const xinstr& x) {
  const std::string op_name(ptx::name(x.op));
  if (x.type != vtype::f32 && x.type != vtype::f64)
    fail_at(error_kind::unsupported, t, op_name + " needs type .f32 or .f64");
  const rkind k = x.type == vtype::f32 ? rkind::f32 : rkind::f64;
  const unsigned fraction_bits = x.type == vtype::f32 ? 23 : 52, width = x.type == vtype::f32 ? 32 : 64;
  const std::uint64_t sign_bit = std::uint64_t{1} << (width - 1), format_mask = mask_of(x.type);
  const std::uint64_t exponent_all = (sign_bit - 1) >> fraction_bits;
  const std::uint64_t fraction_mask = (std::uint64_t{1} << fraction_bits) - 1;
  auto bits_of = [&](const value& v) -> std::optional<std::uint64_t> {
    if (v.t == value::tag::bits) return v.bits & format_mask;
    if (v.t == value::tag::real && v.k != rkind::integer) return d_.float_bits(v.r, k);
    return std::nullopt;
  };
  auto decide = [&](cmp_op c, const real& l, const real& r) -> bool {
    if (auto o = d_.compare(c, l, r, k)) return *o;
    value p;
    p.t = value::tag::predicate;
    p.k = k;
    p.cmp = c;
    p.r = l;
    p.r2 = r;
    if (auto o = branch(p)) return *o;
    fail_at(error_kind::not_structured, t, op_name + " of a symbolic value depends on a comparison (" + d_.show(l) +
                                                " vs " + d_.show(r) + ") that the run cannot decide");
  };
  const real zero = d_.from_int(0);
  if (x.op == ptx::opcode::copysign) {
    const value a = read(t, x.ops[1]), b = read(t, x.ops[2]);
    const auto sa = bits_of(a), sb = bits_of(b);
    if (sa && sb) return write(t, x.ops[0], value::of_bits((*sb & ~sign_bit) | (*sa & sign_bit)));
    const bool negative = sa ? (*sa & sign_bit) != 0 : decide(cmp_op::lt, to_real(a, k, t), zero);
    real magnitude[1] = {to_real(b, k, t)};
    real r = guarded([&] { return d_.arith(aop::abs, magnitude, k, {}); }, t);
    if (negative) {
      real m[1] = {r};
      r = guarded([&] { return d_.arith(aop::neg, m, k, {}); }, t);
    }
    return write(t, x.ops[0], value::of_real(std::move(r), k));
  }
  enum test { finite, infinite, number, notanumber, normal, subnormal };
  constexpr std::string_view spellings[] = {".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"};
  int which = -1;
  if (x.unknown_mods.size() == 1)
    for (int i = 0; i < 6; ++i)
      if (p_.str(x.unknown_mods[0]) == spellings[i]) which = i;
  if (which < 0 || x.flags)
    fail_at(error_kind::unsupported, t,
            "testp needs one test: .finite, .infinite, .number, .notanumber, .normal or .subnormal");
  const value a = read(t, x.ops[1]);
  bool result = false;
  if (const auto b = bits_of(a)) {
    const std::uint64_t exponent = (*b >> fraction_bits) & exponent_all, fraction = *b & fraction_mask;
    const bool nan = exponent == exponent_all && fraction != 0, inf = exponent == exponent_all && fraction == 0;
    const bool sub = exponent == 0 && fraction != 0;  // (a zero is normal)
    switch (which) {
      case finite: result = !nan && !inf; break;
      case infinite: result = inf; break;
      case number: result = !nan; break;
      case notanumber: result = nan; break;
      case normal: result = !nan && !inf && !sub; break;
      default: result = sub; break;
    }
  } else if (const real v = to_real(a, k, t); which == finite || which == number) {
    result = true;
  } else if (which == normal || which == subnormal) {
    real args[1] = {v};
    const real magnitude = guarded([&] { return d_.arith(aop::abs, args, k, {}); }, t);
    const real smallest = guarded([&] { return d_.from_float(std::uint64_t{1} << fraction_bits, k); }, t);
    const bool sub = decide(cmp_op::lt, magnitude, smallest) && !decide(cmp_op::eq, v, zero);
    result = which == subnormal ? sub : !sub;
  }
  write(t, x.ops[0], value::of_bits(result));
}

template <value_domain D, observer O>
inline void engine<D, O>::lifted(std::uint32_t t, const xinstr& x) {
  const aop o = x.lifted_fn;  // the same vocabulary (support/operations.hpp)
  rkind k = rkind_of(x.type).value_or(rkind::f32);
  bool adds = x.has(flag::add);  // fn(inputs...) + the last operand (an idiom fused with an add)
  std::size_t n = x.ops.size() - 1 - (adds ? 1 : 0);
  if (n < 1 || n > 2) fail_at(error_kind::unsupported, t, "a lifted function with this many operands");
  real args[2];
  for (std::size_t i = 0; i < n; ++i) args[i] = to_real(read(t, x.ops[i + 1]), k, t);
  real r = guarded([&] { return d_.arith(o, std::span<const real>(args, n), k, float_mode{}); }, t);
  if (adds) {
    real sum[2] = {r, to_real(read(t, x.ops.back()), k, t)};
    r = guarded([&] { return d_.arith(aop::add, sum, k, float_mode{}); }, t);
  }
  write(t, x.ops[0], value::of_real(std::move(r), k));
}

template <value_domain D, observer O>
inline bool engine<D, O>::fast_float(std::uint32_t t, lane_regs regs, const fast_form& f) {
  real args[3];
  if (!f.imm) {  // registers only, the common case
    for (std::uint32_t i = 0; i < f.n; ++i)
      if (regs[f.src[i]].t != value::tag::real) return fast_float_mixed(t, regs, f);
    for (std::uint32_t i = 0; i < f.n; ++i) args[i] = regs[f.src[i]].r;
  } else {
    return fast_float_mixed(t, regs, f);
  }
  fast_float_finish(t, regs, f, args);
  return true;
}

// Sources that are immediates or bits (decoded as f32, as to_real decodes them).
template <value_domain D, observer O>
inline bool engine<D, O>::fast_float_mixed(std::uint32_t t, lane_regs regs, const fast_form& f) {
  for (std::uint32_t i = 0; i < f.n; ++i)
    if (!f.is_imm(i) && regs[f.src[i]].t != value::tag::real && regs[f.src[i]].t != value::tag::bits) return false;
  real args[3];
  for (std::uint32_t i = 0; i < f.n; ++i) {
    if (f.is_imm(i)) {
      std::uint64_t b = f.imms[i];
      args[i] = guarded([&] { return d_.from_float(b, rkind::f32); }, t);
    } else {
      const value& a = regs[f.src[i]];
      if (a.t == value::tag::real) args[i] = a.r;
      else args[i] = guarded([&] { return d_.from_float(a.bits, rkind::f32); }, t);
    }
  }
  fast_float_finish(t, regs, f, args);
  return true;
}

template <value_domain D, observer O>
inline void engine<D, O>::fast_float_finish(std::uint32_t t, lane_regs regs, const fast_form& f, real* args) {
  if (f.op == fast_op::setp_f32) {
    if (auto r = d_.compare(f.cmp, args[0], args[1], rkind::f32)) {
      regs[f.dst[0]] = value::of_bits(*r);
    } else {
      value p;
      p.t = value::tag::predicate;
      p.k = rkind::f32;
      p.cmp = f.cmp;
      p.r = args[0];
      p.r2 = args[1];
      regs[f.dst[0]] = std::move(p);
    }
    return;
  }
  if constexpr (requires { D::template f32_plain<aop::add>(0.0, 0.0, 0.0); }) {
    if (f.plain) {
      double r = 0;
      switch (f.arith) {
        case aop::add: r = D::template f32_plain<aop::add>(args[0], args[1], 0.0); break;
        case aop::sub: r = D::template f32_plain<aop::sub>(args[0], args[1], 0.0); break;
        case aop::mul: r = D::template f32_plain<aop::mul>(args[0], args[1], 0.0); break;
        default: r = D::template f32_plain<aop::fma>(args[0], args[1], args[2]); break;  // plain: add/sub/mul/fma
      }
      // A NaN's payload is whichever operand's NaN the compiled code propagates, which IEEE
      // leaves open: take it from arith itself, so that NaNs too are arith's bit for bit.
      if (!std::isnan(r)) {
        regs[f.dst[0]] = value::of_real(r, rkind::f32);
        return;
      }
    }
  }
  real r = guarded([&] { return d_.arith(f.arith, std::span<const real>(args, f.n), rkind::f32, f.mode); }, t);
  regs[f.dst[0]] = value::of_real(std::move(r), rkind::f32);
}

// fast_float's warp form (warp_fast) for f32 arithmetic on registers: what fast_float_finish
// computes, without its per-lane dispatch. Plain add, sub, mul and fma in a domain with f32_plain
// (float32) are computed here (warp_float_lanes); the rest, and every domain without it (symbolic,
// exact), go to the domain's arith (warp_arith_lanes). A lane whose sources are not all real
// values, whose result is a NaN (whose payload arith picks), or whose arith fails stops it;
// fast_float takes that lane.
template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::warp_float(std::uint32_t first, std::uint32_t end, std::uint32_t pc,
    std::uint32_t& ran) {
  const fast_form& f = p_.fast[pc];
  if (f.op != fast_op::f32_arith || f.guarded || f.imm) return first;
  if constexpr (requires { D::template f32_plain<aop::add>(0.0, 0.0, 0.0); }) {
    if (f.plain) {
      switch (f.arith) {
        case aop::add: return warp_float_lanes<aop::add>(first, end, pc, ran);
        case aop::sub: return warp_float_lanes<aop::sub>(first, end, pc, ran);
        case aop::mul: return warp_float_lanes<aop::mul>(first, end, pc, ran);
        case aop::fma: return warp_float_lanes<aop::fma>(first, end, pc, ran);
        default: break;
      }
    }
  }
  return warp_arith_lanes(first, end, pc, ran);
}

// The domain's arith for each lane, as fast_float_finish calls it. A lane whose arith throws is
// not run: fast_float runs it again in its turn and fails there as it would have (arith changes
// nothing a second call would see differently: a symbolic sum appends only once it succeeds).
template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::warp_arith_lanes(std::uint32_t first, std::uint32_t end, std::uint32_t pc,
    std::uint32_t& ran) {
  const fast_form& f = p_.fast[pc];
  value* regs = warp_regs(first);
  const value* src[3] = {};
  for (std::uint32_t i = 0; i < f.n; ++i) src[i] = regs + std::size_t{f.src[i]} * warp_size;
  value* d = regs + std::size_t{f.dst[0]} * warp_size;
  std::uint32_t t = first;
  const bool whole = warp_whole_;
  for (; t < end; ++t) {
    if (!whole && status_[t] == status::exited) continue;
    const std::uint32_t l = t - first;
    real args[3];
    std::uint32_t i = 0;
    for (; i < f.n; ++i) {
      const value& v = src[i][l];
      if (v.t != value::tag::real) break;
      args[i] = v.r;
    }
    if (i != f.n) break;
    real r;
    try {
      r = d_.arith(f.arith, std::span<const real>(args, f.n), rkind::f32, f.mode);
    } catch (const domain_error&) {
      break;
    } catch (const term::term_error&) {
      break;
    }
    d[l] = value::of_real(std::move(r), rkind::f32);
    pc_[t] = pc + 1;
    ++ran;
  }
  return t;
}

template <value_domain D, observer O>
template <aop A>
inline std::uint32_t engine<D, O>::warp_float_lanes(std::uint32_t first, std::uint32_t end, std::uint32_t pc,
    std::uint32_t& ran) {
  const fast_form& f = p_.fast[pc];  // (called by warp_float only: D has f32_plain)
  value* regs = warp_regs(first);
  const value* a = regs + std::size_t{f.src[0]} * warp_size;
  const value* b = regs + std::size_t{f.src[1]} * warp_size;
  const value* c = A == aop::fma ? regs + std::size_t{f.src[2]} * warp_size : a;
  value* d = regs + std::size_t{f.dst[0]} * warp_size;
  std::uint32_t t = first;
  if constexpr (A == aop::fma) {
    // The lanes' operands gathered (to f32, as f32_plain rounds them) up to the first lane that
    // is not all reals, their fmas at once (D::f32_fma_lanes), then written in lane order up to
    // the first NaN. Every source is read before any result is written (d may be a source).
    float fa[warp_size], fb[warp_size], fc[warp_size], fr[warp_size];
    if (warp_whole_) {
      // No lane exited (run_warp): lane i is the i-th gathered, and the write-back runs up to the
      // first NaN without an index array; the lanes' pcs are one fill.
      const std::uint32_t lanes = end - first;
      std::uint32_t n = 0;
      for (; n < lanes; ++n) {
        if (a[n].t != value::tag::real || b[n].t != value::tag::real || c[n].t != value::tag::real) break;
        fa[n] = static_cast<float>(a[n].r);
        fb[n] = static_cast<float>(b[n].r);
        fc[n] = static_cast<float>(c[n].r);
      }
      if (D::f32_fma_lanes(fa, fb, fc, fr, n)) n = static_cast<std::uint32_t>(std::find_if(fr, fr + n, [](float x) { return x != x; }) - fr);
      for (std::uint32_t i = 0; i < n; ++i) d[i] = value::of_real(static_cast<double>(fr[i]), rkind::f32);
      std::fill(pc_.begin() + first, pc_.begin() + first + n, pc + 1);
      ran += n;
      return first + n;
    }
    std::uint32_t lanes[warp_size], n = 0;
    for (; t < end; ++t) {
      if (status_[t] == status::exited) continue;
      const std::uint32_t l = t - first;
      if (a[l].t != value::tag::real || b[l].t != value::tag::real || c[l].t != value::tag::real) break;
      fa[n] = static_cast<float>(a[l].r);
      fb[n] = static_cast<float>(b[l].r);
      fc[n] = static_cast<float>(c[l].r);
      lanes[n++] = l;
    }
    const bool nan = D::f32_fma_lanes(fa, fb, fc, fr, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (nan && std::isnan(fr[i])) return first + lanes[i];
      d[lanes[i]] = value::of_real(static_cast<double>(fr[i]), rkind::f32);
      pc_[first + lanes[i]] = pc + 1;
      ++ran;
    }
    return t;
  }
  for (; t < end; ++t) {
    if (status_[t] == status::exited) continue;
    const std::uint32_t l = t - first;
    if (a[l].t != value::tag::real || b[l].t != value::tag::real || c[l].t != value::tag::real) break;
    const double r = D::template f32_plain<A>(a[l].r, b[l].r, A == aop::fma ? c[l].r : 0.0);
    if (std::isnan(r)) break;
    d[l] = value::of_real(r, rkind::f32);
    pc_[t] = pc + 1;
    ++ran;
  }
  return t;
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
