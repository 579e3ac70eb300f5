// Conversions (semantics of engine<D, O>, declared in exec/engine.hpp): cvt between float formats,
// integers to floats, floats to integers (rounded, saturating, NaN to 0 as PTX says) and integers
// to integers (truncating or, with .sat, clamping); fp8 pairs (PTX ISA "cvt"):
//   cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b    a to d's upper byte, b to the lower (also .e5m2x2)
//   cvt.rn.satfinite{.relu}.e4m3x2.f16x2 d, a     a's upper half to d's upper byte
//   cvt.rn{.relu}.f16x2.e4m3x2 d, a               a's upper byte to d's upper half
// rounding to nearest even, .satfinite keeping NaN and clamping larger magnitudes (infinities
// included) to the largest finite value (448 e4m3, 57344 e5m2), .relu making negative results +0.
// Over the reals (exact and symbolic domains) a conversion between float formats is the identity,
// fp8 ones included, and .satfinite therefore too; .relu is max(x, 0). The fast form of an integer cvt is
// integer.hpp's fast_integer.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

template <value_domain D, observer O>
inline void engine<D, O>::cvt(std::uint32_t t, const xinstr& x) {
  if (x.types.size() < 2) fail_at(error_kind::unsupported, t, "cvt without two types");
  vtype to = x.types[x.types.size() - 2], from = x.types.back();
  float_mode m = mode_of(x);
  m.satfinite = x.has(flag::satfinite);
  const bool relu = x.has(flag::relu);
  if ((m.satfinite || relu) && !(to == vtype::f16 || to == vtype::bf16 || is_packed(to)))
    fail_at(error_kind::unsupported, t,
            std::string("cvt") + (relu ? ".relu" : ".satfinite") + " to this type (gpueq models it for .f16, .bf16, "
            ".f16x2, .bf16x2, .e4m3x2 and .e5m2x2)");
  // .relu: a negative result becomes +0 (a NaN stays NaN): max(r, 0) over the reals.
  auto clamp_relu = [&](real r, rkind k) -> real {
    if (!relu) return r;
    if (auto b = d_.float_bits(r, k)) {
      double v = floats::decode(*b, k);
      return v < 0 ? guarded([&] { return d_.from_float(0, k); }, t) : r;
    }
    real xs[2] = {r, guarded([&] { return d_.from_float(0, k); }, t)};
    return guarded([&] { return d_.arith(aop::max, xs, k, float_mode{}); }, t);
  };
  auto convert_one = [&](const real& r, rkind kf, rkind kt) {
    return clamp_relu(guarded([&] { return d_.convert(r, kf, kt, m); }, t), kt);
  };
  if (is_packed(from) && floats::is_fp8(*rkind_of(from))) {
    // cvt.rn{.relu}.f16x2.e4m3x2 d, a (and .e5m2x2): the byte in a's bits 8..15 to d's upper half,
    // bits 0..7 to the lower half; every fp8 value is an f16 value, so this rounds nothing.
    if (to != vtype::f16x2) fail_at(error_kind::unsupported, t, "cvt from an fp8 pair to a type other than .f16x2");
    const rkind k8 = *rkind_of(from);
    auto [lo, hi] = fp8_pair(read(t, x.ops[1]), k8, t);
    real l = convert_one(lo, k8, rkind::f16), h = convert_one(hi, k8, rkind::f16);
    return write(t, x.ops[0], value::of_packed(l, h, rkind::f16));
  }
  if (is_packed(to)) {  // cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower
    rkind k = *rkind_of(to);
    if (floats::is_fp8(k) && (!m.satfinite || m.round != rounding::rn))
      fail_at(error_kind::unsupported, t, "cvt to an fp8 pair without .rn.satfinite (the ISA's only form)");
    if (from == vtype::f16x2) {  // cvt.rn.satfinite.e4m3x2.f16x2 d, a: each half of a to its byte of d
      if (!floats::is_fp8(k)) fail_at(error_kind::unsupported, t, "cvt from .f16x2 to a type other than an fp8 pair");
      value a = read(t, x.ops[1]);
      real lo, hi;
      if (a.t == value::tag::packed && a.k == rkind::f16) {
        lo = a.r;
        hi = a.r2;
      } else {
        std::uint64_t b = to_bits(a, t);
        lo = guarded([&] { return d_.from_float(b & 0xffff, rkind::f16); }, t);
        hi = guarded([&] { return d_.from_float((b >> 16) & 0xffff, rkind::f16); }, t);
      }
      return write(t, x.ops[0], value::of_packed(convert_one(lo, rkind::f16, k), convert_one(hi, rkind::f16, k), k));
    }
    if (from != vtype::f32 || x.ops.size() != 3)
      fail_at(error_kind::unsupported, t, "cvt to a packed pair from two .f32 operands (d, a, b) or, for fp8, one .f16x2");
    real hi = convert_one(to_real(read(t, x.ops[1]), rkind::f32, t), rkind::f32, k);
    real lo = convert_one(to_real(read(t, x.ops[2]), rkind::f32, t), rkind::f32, k);
    return write(t, x.ops[0], value::of_packed(lo, hi, k));
  }
  value a = read(t, x.ops[1]);
  auto kt = rkind_of(to), kf = rkind_of(from);
  if ((kt && floats::is_fp8(*kt)) || (kf && floats::is_fp8(*kf)))
    fail_at(error_kind::unsupported, t, "cvt of a single fp8 value (PTX converts fp8 in pairs: .e4m3x2/.e5m2x2)");
  if (kt && kf) {  // float -> float
    real r = to_real(a, *kf, t);
    return write(t, x.ops[0], value::of_real(convert_one(r, *kf, *kt), *kt));
  }
  if (kt) {  // integer -> float
    real r = a.t == value::tag::real && a.k == rkind::integer
                 ? a.r
                 : d_.from_int(is_signed(from) ? sext(to_bits(a, t), from)
                                               : static_cast<std::int64_t>(to_bits(a, t) & mask_of(from)));
    return write(t, x.ops[0], value::of_real(guarded([&] { return d_.convert(r, rkind::integer, *kt, m); }, t), *kt));
  }
  if (kf) {  // float -> integer (saturating, NaN to 0, as PTX)
    real r = to_real(a, *kf, t);
    if (m.round == rounding::rn) m.round = rounding::rni;
    real i = guarded([&] { return d_.convert(r, *kf, rkind::integer, m); }, t);
    auto v = d_.integer(i);
    if (!v) {
      if constexpr (D::symbolic)
        if (d_.float_bits(r, *kf) == std::nullopt)
          fail_at(error_kind::not_structured, t, "conversion of symbolic data to an integer");
      v = saturate_infinite(r, *kf);
      if (!v) fail_at(error_kind::not_structured, t, "conversion of a non-finite value to an integer");
    }
    return write(t, x.ops[0], value::of_bits(static_cast<std::uint64_t>(clamp(*v, to)) & mask_of(to)));
  }
  // integer -> integer
  if (a.t == value::tag::real && a.k == rkind::integer && is_symbolic(a)) return write(t, x.ops[0], a);  // exact data
  // An f32 value zero-extended to 64 bits (cvt.u64.u32 of a float's register, how LLVM starts to
  // move two floats as one i64) is the word pair (the value, +0): integer.hpp's word_pair_op.
  if (a.t == value::tag::real && a.k == rkind::f32 && is_symbolic(a) && bytes(from) == 4 && !is_signed(from) &&
      bytes(to) == 8 && !x.has(flag::sat))
    return write(t, x.ops[0], value::of_packed(a.r, guarded([&] { return d_.from_float(0, rkind::f32); }, t), rkind::f32));
  // The low half of a packed pair cut to the half's width: `cvt.u16.u32 %rs, %r` after
  // cvt.rn.f16x2.e4m3x2 (how nvcc takes an fp8's f16 out of the pair) is that half, symbolic or not.
  if (a.t == value::tag::packed && !x.has(flag::sat) && bytes(to) == bytes(a.k) && bytes(from) >= bytes(a.k) &&
      !is_signed(to))
    return write(t, x.ops[0], value::of_real(a.r, a.k));
  std::uint64_t bits = to_bits(a, t);
  std::int64_t v = is_signed(from) ? sext(bits, from) : static_cast<std::int64_t>(bits & mask_of(from));
  if (x.has(flag::sat)) v = clamp(v, to);
  std::uint64_t out = static_cast<std::uint64_t>(v) & mask_of(to);
  if (is_signed(to)) out = static_cast<std::uint64_t>(sext(out, to));
  value c = value::of_bits(out);
  c.provenance = a.t == value::tag::bits ? a.provenance : 0;
  write(t, x.ops[0], c);
}

// The two fp8 values of a 16-bit register (low byte, high byte) of format k: a packed pair, one
// fp8 value alone (what ld.u8 of an fp8 tensor element loads into a 16-bit register: zero-extended,
// so the high byte is +0), or concrete bits (a concrete fp8 value of the other format: its bits).
template <value_domain D, observer O>
inline auto engine<D, O>::fp8_pair(const value& a, rkind k, std::uint32_t t) -> std::pair<real, real> {
  if (a.t == value::tag::packed && a.k == k) return {a.r, a.r2};
  if (a.t == value::tag::real && a.k == k) return {a.r, guarded([&] { return d_.from_float(0, k); }, t)};
  if (a.t == value::tag::real && floats::is_fp8(a.k) && is_symbolic(a))  // (concrete: its bits, below)
    fail_at(error_kind::not_structured, t, "a symbolic e4m3 value read as e5m2 or the other way round");
  std::uint64_t b = to_bits(a, t);
  return {guarded([&] { return d_.from_float(b & 0xff, k); }, t), guarded([&] { return d_.from_float((b >> 8) & 0xff, k); }, t)};
}

// A float too large for an integer converts to the integer type's extreme (clamp saturates).
template <value_domain D, observer O>
inline std::optional<std::int64_t> engine<D, O>::saturate_infinite(const real& r, rkind k) {
  auto bits = d_.float_bits(r, k);
  if (!bits) return std::nullopt;
  double v = floats::decode(*bits, k);
  if (std::isnan(v)) return 0;
  return v < 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
