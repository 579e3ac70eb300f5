// Binary floating-point formats of PTX (f16, bf16, f32, f64) as bits and as the exact double
// they encode, and rounding a double to a format with a PTX rounding mode. Every value of those
// formats is exactly a double, which is why the concrete float32 domain can carry doubles and
// still be bit-faithful: the rounding happens here, per operation, in the instruction's format.
#pragma once

#include <gpueq/exec/values.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace gpueq::exec::floats {

struct format {
  int precision;  // significand bits including the implicit one
  int emin, emax; // exponent of the smallest normal and of the largest finite value
  int exponent_bits, total_bits;
};

constexpr format format_of(rkind k) {
  switch (k) {
    case rkind::f16: return {11, -14, 15, 5, 16};
    case rkind::bf16: return {8, -126, 127, 8, 16};
    case rkind::f32: return {24, -126, 127, 8, 32};
    default: return {53, -1022, 1023, 11, 64};
  }
}

inline double max_finite(const format& f) {
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
}

// x rounded to the format with the given mode (rn: to nearest even; rna: nearest, ties away).
inline double round_to(double x, rkind k, rounding r = rounding::rn) {
  if (k == rkind::f64 || k == rkind::integer || x == 0 || !std::isfinite(x)) return x;
  const format f = format_of(k);
  int e = 0;
  std::frexp(x, &e);  // x = m 2^e, 0.5 <= |m| < 1: the leading bit has weight 2^(e-1)
  int exponent = std::max(e - 1, f.emin);
  double quantum = std::ldexp(1.0, exponent - f.precision + 1);
  double q = x / quantum;  // exact: a power-of-two scaling
  switch (r) {
    case rounding::rz: case rounding::rzi: q = std::trunc(q); break;
    case rounding::rm: case rounding::rmi: q = std::floor(q); break;
    case rounding::rp: case rounding::rpi: q = std::ceil(q); break;
    case rounding::rna: q = std::round(q); break;
    default: q = std::nearbyint(q); break;  // the default environment rounds to nearest even
  }
  double y = q * quantum;
  double top = max_finite(f);
  if (std::fabs(y) > top) {
    bool neg = y < 0;
    bool to_inf = r == rounding::rn || r == rounding::rna || r == rounding::none || (r == rounding::rm && neg) ||
                  (r == rounding::rp && !neg) || r == rounding::rni;
    y = to_inf ? (neg ? -INFINITY : INFINITY) : (neg ? -top : top);
  }
  return y;
}

// The value encoded by `bits` in the format.
inline double decode(std::uint64_t bits, rkind k) {
  if (k == rkind::f64) return std::bit_cast<double>(bits);
  if (k == rkind::f32) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  if (k == rkind::bf16) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>((bits & 0xffff) << 16)));
  // f16
  std::uint32_t h = static_cast<std::uint32_t>(bits & 0xffff);
  bool neg = h & 0x8000;
  int exp = static_cast<int>((h >> 10) & 0x1f);
  std::uint32_t man = h & 0x3ff;
  double v;
  if (exp == 0x1f) v = man ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
  else if (exp == 0) v = std::ldexp(static_cast<double>(man), -24);
  else v = std::ldexp(static_cast<double>(man | 0x400), exp - 25);
  return neg ? -v : v;
}

// The bits of x, which must be exactly representable in the format (round_to first).
inline std::uint64_t encode(double x, rkind k) {
  if (k == rkind::f64) return std::bit_cast<std::uint64_t>(x);
  if (k == rkind::f32) return std::bit_cast<std::uint32_t>(static_cast<float>(x));
  if (k == rkind::bf16) {
    std::uint32_t b = std::bit_cast<std::uint32_t>(static_cast<float>(x));
    if (std::isnan(x)) return 0x7fc0;
    return b >> 16;
  }
  // f16
  std::uint32_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return 0x7e00;
  double a = std::fabs(x);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);
  int exponent = e - 1;
  if (exponent < -14) return sign | static_cast<std::uint32_t>(std::ldexp(a, 24));  // subnormal
  std::uint32_t man = static_cast<std::uint32_t>(std::ldexp(a, 10 - exponent)) & 0x3ff;
  return sign | (static_cast<std::uint32_t>(exponent + 15) << 10) | man;
}

// A subnormal of the format flushed to a zero of the same sign (.ftz).
inline double flush(double x, rkind k) {
  if (k == rkind::f64 || x == 0 || !std::isfinite(x)) return x;
  double smallest = std::ldexp(1.0, format_of(k).emin);
  if (std::fabs(x) < smallest) return std::signbit(x) ? -0.0 : 0.0;
  return x;
}

}  // namespace gpueq::exec::floats
