// exec/floats.hpp's bit-level formats against independent models: pow2 against std::ldexp over
// every exponent a double has and past both ends; decode of every 16-bit and 8-bit pattern
// against the textbook formula (sign, biased exponent, significand, written here with
// std::ldexp); encode as decode's inverse on every pattern; round_to against rounding by
// std::ldexp scaling, the formula the implementation used before pow2, on random doubles.
#include <gpueq/exec/floats.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

namespace {

using gpueq::exec::rkind;
using gpueq::exec::rounding;
namespace floats = gpueq::exec::floats;

// The value of a bit pattern of a format with e exponent bits and m stored significand bits
// (IEEE-like; e4m3 has no infinities and one NaN pattern per sign), with std::ldexp.
double textbook(std::uint32_t bits, int e, int m, rkind k) {
  const bool neg = bits >> (e + m) & 1;
  const int exp = static_cast<int>(bits >> m & ((1u << e) - 1));
  const std::uint32_t man = bits & ((1u << m) - 1);
  const int bias = (1 << (e - 1)) - 1, top = (1 << e) - 1;
  double v;
  if (k == rkind::e4m3 && exp == top && man == (1u << m) - 1) return NAN;
  if (k != rkind::e4m3 && exp == top) {
    if (man) return NAN;
    v = INFINITY;
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(man), 1 - bias - m);
  } else {
    v = std::ldexp(static_cast<double>(man + (1u << m)), exp - bias - m);
  }
  return neg ? -v : v;
}

TEST_CASE("floats: pow2 is std::ldexp(1, n) for every exponent") {
  for (int n = -1200; n <= 1100; ++n) {
    INFO("n = " << n);
    CHECK(std::bit_cast<std::uint64_t>(floats::pow2(n)) == std::bit_cast<std::uint64_t>(std::ldexp(1.0, n)));
  }
  static_assert(floats::max_finite(rkind::f16) == 65504.0);
  static_assert(floats::max_finite(rkind::bf16) == 0x1.fep127);
  static_assert(floats::max_finite(rkind::e5m2) == 57344.0);
  static_assert(floats::max_finite(rkind::e4m3) == 448.0);
}

TEST_CASE("floats: decode and encode of every f16, bf16, e4m3 and e5m2 pattern") {
  struct fmt {
    rkind k;
    int e, m;
  };
  for (fmt f : {fmt{rkind::f16, 5, 10}, fmt{rkind::bf16, 8, 7}, fmt{rkind::e4m3, 4, 3}, fmt{rkind::e5m2, 5, 2}}) {
    const std::uint32_t patterns = 1u << (1 + f.e + f.m);
    std::uint32_t mismatches = 0, round_trip_misses = 0;
    for (std::uint32_t b = 0; b < patterns; ++b) {
      const double want = textbook(b, f.e, f.m, f.k), got = floats::decode(b, f.k);
      if (std::isnan(want) ? !std::isnan(got) : std::bit_cast<std::uint64_t>(want) != std::bit_cast<std::uint64_t>(got))
        ++mismatches;
      if (!std::isnan(want) && floats::encode(got, f.k) != b) ++round_trip_misses;
    }
    INFO("format " << static_cast<int>(f.k));
    CHECK(mismatches == 0);
    CHECK(round_trip_misses == 0);
  }
}

TEST_CASE("floats: round_to agrees with rounding by ldexp scaling, in every mode") {
  // The reference: x / 2^q rounded to an integer in the mode, times 2^q, where 2^q is the weight
  // of the format's last significand bit at x's exponent (its smallest normal one below that).
  auto reference = [](double x, rkind k, rounding r) {
    const floats::format f = floats::format_of(k);
    int e = 0;
    std::frexp(x, &e);
    const int exponent = std::max(e - 1, f.emin);
    const double quantum = std::ldexp(1.0, exponent - f.precision + 1);
    double q = x / quantum;
    switch (r) {
      case rounding::rz: q = std::trunc(q); break;
      case rounding::rm: q = std::floor(q); break;
      case rounding::rp: q = std::ceil(q); break;
      case rounding::rna: q = std::round(q); break;
      default: q = std::nearbyint(q); break;
    }
    return q * quantum;  // (past the largest finite value: compared below by class only)
  };
  std::mt19937_64 gen(20261127);
  std::uint32_t compared = 0;
  for (rkind k : {rkind::f16, rkind::bf16, rkind::f32, rkind::e5m2})
    for (rounding r : {rounding::rn, rounding::rz, rounding::rm, rounding::rp, rounding::rna})
      for (int i = 0; i < 4000; ++i) {
        // Random doubles across the format's range and past it: a random significand, an exponent
        // from below the smallest subnormal to above the largest finite value.
        const floats::format f = floats::format_of(k);
        const int exponent = f.emin - f.precision - 2 + static_cast<int>(gen() % (f.emax - f.emin + f.precision + 6));
        const double x = std::ldexp(1.0 + static_cast<double>(gen() >> 12) * 0x1p-52, exponent) * (gen() & 1 ? -1 : 1);
        const double want = reference(x, k, r), got = floats::round_to(x, k, r);
        if (std::fabs(want) > floats::max_finite(k)) {
          // Beyond the largest finite value: infinity or the largest finite value, by mode.
          CHECK((std::isinf(got) || std::fabs(got) == floats::max_finite(k)));
          continue;
        }
        ++compared;
        INFO("x = " << x << ", format " << static_cast<int>(k) << ", mode " << static_cast<int>(r));
        CHECK(std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want));
      }
  CHECK(compared > 60000);
}

}  // namespace
