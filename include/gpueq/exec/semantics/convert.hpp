// Conversions (semantics of engine<D, O>, declared in exec/engine.hpp): cvt between float formats,
// integers to floats, floats to integers (rounded, saturating, NaN to 0 as PTX says) and integers
// to integers (truncating or, with .sat, clamping). The fast form of an integer cvt is
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

inline std::int64_t clamp(std::int64_t v, vtype to) {
  std::uint32_t b = bytes(to);
  if (b >= 8) return is_signed(to) ? v : std::max<std::int64_t>(v, 0);
  if (is_signed(to)) {
    std::int64_t hi = (std::int64_t{1} << (8 * b - 1)) - 1, lo = -hi - 1;
    return std::clamp(v, lo, hi);
  }
  std::int64_t hi = (std::int64_t{1} << (8 * b)) - 1;
  return std::clamp<std::int64_t>(v, 0, hi);
}

template <value_domain D, observer O>
inline void engine<D, O>::cvt(std::uint32_t t, const xinstr& x) {
  if (x.types.size() < 2) fail_at(error_kind::unsupported, t, "cvt without two types");
  vtype to = x.types[x.types.size() - 2], from = x.types.back();
  float_mode m = mode_of(x);
  if (is_packed(to)) {  // cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower
    rkind k = *rkind_of(to);
    real hi = guarded([&] { return d_.convert(to_real(read(t, x.ops[1]), rkind::f32, t), rkind::f32, k, m); }, t);
    real lo = guarded([&] { return d_.convert(to_real(read(t, x.ops[2]), rkind::f32, t), rkind::f32, k, m); }, t);
    return write(t, x.ops[0], value::of_packed(lo, hi, k));
  }
  value a = read(t, x.ops[1]);
  auto kt = rkind_of(to), kf = rkind_of(from);
  if (kt && kf) {  // float -> float
    real r = to_real(a, *kf, t);
    return write(t, x.ops[0], value::of_real(guarded([&] { return d_.convert(r, *kf, *kt, m); }, t), *kt));
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
  std::uint64_t bits = to_bits(a, t);
  std::int64_t v = is_signed(from) ? sext(bits, from) : static_cast<std::int64_t>(bits & mask_of(from));
  if (x.has(flag::sat)) v = clamp(v, to);
  std::uint64_t out = static_cast<std::uint64_t>(v) & mask_of(to);
  if (is_signed(to)) out = static_cast<std::uint64_t>(sext(out, to));
  value c = value::of_bits(out);
  c.provenance = a.t == value::tag::bits ? a.provenance : 0;
  write(t, x.ops[0], c);
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
