// Binary floating-point formats of PTX (e4m3, e5m2, f16, bf16, f32, f64) as bits and as the exact double
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
    // OCP FP8 (PTX ISA "Alternate Floating-Point Data Formats"): e4m3 has bias 7 and no
    // infinities, S.1111.111 is its NaN, so its largest finite value is 1.75 * 2^8 = 448 (the
    // exponent 1111 holds finite values, max_finite says so); e5m2 is IEEE-like, bias 15, largest
    // finite 1.75 * 2^15 = 57344, S.11111.00 infinity, S.11111.xx (xx != 0) NaN.
    case rkind::e4m3: return {4, -6, 8, 4, 8};
    case rkind::e5m2: return {3, -14, 15, 5, 8};
    default: return {53, -1022, 1023, 11, 64};
  }
}

// 2^n, as std::ldexp(1.0, n) gives it: built from its bits when it is a normal double (every
// power the formats below ask for), so that a conversion to or from a 16-bit format (each half of
// every f16 mma operand) is arithmetic instead of a libm call each; multiplying by it is then
// std::ldexp, exactly, while the product stays a normal double, as it does here.
constexpr double pow2(int n) {
  if (n >= -1022 && n <= 1023) return std::bit_cast<double>(static_cast<std::uint64_t>(n + 1023) << 52);
  double r = 1.0;  // (not reached by the formats here; kept exact for any n)
  for (; n > 0; --n) r *= 2.0;
  for (; n < 0; ++n) r /= 2.0;
  return r;
}

constexpr double max_finite(const format& f) {
  if (f.total_bits == 8 && f.exponent_bits == 4) return 448.0;  // e4m3: S.1111.111 is NaN, not 480
  return (2.0 - pow2(1 - f.precision)) * pow2(f.emax);
}
constexpr double max_finite(rkind k) { return max_finite(format_of(k)); }
inline bool is_fp8(rkind k) { return k == rkind::e4m3 || k == rkind::e5m2; }

// x rounded to the format with the given mode (rn: to nearest even; rna: nearest, ties away).
inline double round_to(double x, rkind k, rounding r = rounding::rn) {
  if (k == rkind::f64 || k == rkind::integer || x == 0 || !std::isfinite(x)) return x;
  const format f = format_of(k);
  int e = 0;
  std::frexp(x, &e);  // x = m 2^e, 0.5 <= |m| < 1: the leading bit has weight 2^(e-1)
  int exponent = std::max(e - 1, f.emin);
  double quantum = pow2(exponent - f.precision + 1);
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
    if (to_inf && k == rkind::e4m3) y = std::numeric_limits<double>::quiet_NaN();  // no infinity: NaN
  }
  return y;
}

// x rounded to nearest even in the format and saturated to its finite range (.satfinite): a NaN
// stays NaN, a value (or infinity) beyond the largest finite magnitude becomes that magnitude with
// x's sign. Rounding first or clamping first gives the same result, since the largest finite value
// is representable.
inline double round_satfinite(double x, rkind k) {
  if (std::isnan(x)) return x;
  const double top = max_finite(format_of(k));
  if (std::fabs(x) > top) return std::signbit(x) ? -top : top;
  return round_to(x, k, rounding::rn);
}

// The value encoded by `bits` in the format.
inline double decode(std::uint64_t bits, rkind k) {
  if (k == rkind::f64) return std::bit_cast<double>(bits);
  if (k == rkind::f32) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  if (k == rkind::bf16) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>((bits & 0xffff) << 16)));
  if (is_fp8(k)) {
    const format f = format_of(k);
    const int m = f.precision - 1, bias = f.emax - (k == rkind::e4m3 ? 1 : 0);  // e4m3: 7, e5m2: 15
    const std::uint32_t b = static_cast<std::uint32_t>(bits & 0xff), man = b & ((1u << m) - 1);
    const int exp = static_cast<int>((b >> m) & ((1u << f.exponent_bits) - 1)), top = (1 << f.exponent_bits) - 1;
    double v;
    if (k == rkind::e4m3 && exp == top && man == (1u << m) - 1) v = std::numeric_limits<double>::quiet_NaN();
    else if (k == rkind::e5m2 && exp == top) v = man ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
    else if (exp == 0) v = static_cast<double>(man) * pow2(f.emin - m);
    else v = static_cast<double>(man | (1u << m)) * pow2(exp - bias - m);
    return (b & 0x80) ? -v : v;
  }
  // f16
  std::uint32_t h = static_cast<std::uint32_t>(bits & 0xffff);
  bool neg = h & 0x8000;
  int exp = static_cast<int>((h >> 10) & 0x1f);
  std::uint32_t man = h & 0x3ff;
  double v;
  if (exp == 0x1f) v = man ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
  else if (exp == 0) v = static_cast<double>(man) * pow2(-24);
  else v = static_cast<double>(man | 0x400) * pow2(exp - 25);
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
  if (is_fp8(k)) {  // NaN: 0x7f in both (e4m3's only NaN, e5m2's S.11111.11); e4m3 has no infinity
    const format f = format_of(k);
    const int m = f.precision - 1, bias = f.emax - (k == rkind::e4m3 ? 1 : 0);
    const std::uint32_t sign = std::signbit(x) ? 0x80 : 0;
    if (std::isnan(x) || (std::isinf(x) && k == rkind::e4m3)) return 0x7f;
    if (std::isinf(x)) return sign | 0x7c;
    const double a = std::fabs(x);
    if (a == 0) return sign;
    int e = 0;
    std::frexp(a, &e);
    const int exponent = e - 1;
    if (exponent < f.emin) return sign | static_cast<std::uint32_t>(a * pow2(m - f.emin));  // subnormal
    const std::uint32_t man = static_cast<std::uint32_t>(a * pow2(m - exponent)) & ((1u << m) - 1);
    return sign | (static_cast<std::uint32_t>(exponent + bias) << m) | man;
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
  if (exponent < -14) return sign | static_cast<std::uint32_t>(a * pow2(24));  // subnormal
  std::uint32_t man = static_cast<std::uint32_t>(a * pow2(10 - exponent)) & 0x3ff;
  return sign | (static_cast<std::uint32_t>(exponent + 15) << 10) | man;
}

// A subnormal of the format flushed to a zero of the same sign (.ftz).
inline double flush(double x, rkind k) {
  if (k == rkind::f64 || x == 0 || !std::isfinite(x)) return x;
  double smallest = pow2(format_of(k).emin);
  if (std::fabs(x) < smallest) return std::signbit(x) ? -0.0 : 0.0;
  return x;
}

}  // namespace gpueq::exec::floats
