// Exact rational numbers for term constants and normal-form coefficients: Boost.Multiprecision
// over GMP (mpq_rational) when GPUEQ_HAVE_GMP, else the header-only cpp_rational. Only headers
// that need exact arithmetic include this one (it is heavy to compile).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#if defined(GPUEQ_HAVE_GMP) && GPUEQ_HAVE_GMP
#include <boost/multiprecision/gmp.hpp>
#else
#include <boost/multiprecision/cpp_int.hpp>
#endif

#include <gpueq/support/hash.hpp>

namespace gpueq::support {

#if defined(GPUEQ_HAVE_GMP) && GPUEQ_HAVE_GMP
using rational = boost::multiprecision::mpq_rational;
using integer = boost::multiprecision::mpz_int;
#else
using rational = boost::multiprecision::cpp_rational;
using integer = boost::multiprecision::cpp_int;
#endif

inline std::uint64_t hash_rational(const rational& r) {
  return mix64(static_cast<std::uint64_t>(std::hash<rational>{}(r)) ^ 0x5bd1e995ULL);
}

inline bool is_integer(const rational& r) {
  return boost::multiprecision::denominator(r) == 1;
}

// -1, 0 or 1 when r is one of them, else 2: without the temporary rationals that comparing a GMP
// rational with an integer constructs (term::store::intern_constant asks this of every constant).
inline int unit_value(const rational& r) {
#if defined(GPUEQ_HAVE_GMP) && GPUEQ_HAVE_GMP
  const auto* q = r.backend().data();
  if (mpz_cmp_ui(mpq_denref(q), 1) != 0 || mpz_cmpabs_ui(mpq_numref(q), 1) > 0) return 2;
  return mpz_sgn(mpq_numref(q));
#else
  if (r == 0) return 0;
  if (r == 1) return 1;
  if (r == -1) return -1;
  return 2;
#endif
}

// The rational as an int64 when it is an integer that fits.
inline std::optional<std::int64_t> to_int64(const rational& r) {
  if (!is_integer(r)) return std::nullopt;
  const integer& n = boost::multiprecision::numerator(r);
  if (n > INT64_MAX || n < INT64_MIN) return std::nullopt;
  return n.convert_to<std::int64_t>();
}

// The bits of numerator and denominator together: what a rational costs in memory and in each
// operation, for the size estimates that bound expansions (canon::normal_form_options).
inline std::uint64_t bit_size(const rational& r) {
#if defined(GPUEQ_HAVE_GMP) && GPUEQ_HAVE_GMP
  return mpz_sizeinbase(mpq_numref(r.backend().data()), 2) + mpz_sizeinbase(mpq_denref(r.backend().data()), 2);
#else
  const integer n = boost::multiprecision::abs(boost::multiprecision::numerator(r));
  return (n == 0 ? 1 : boost::multiprecision::msb(n) + 1) + boost::multiprecision::msb(boost::multiprecision::denominator(r)) + 1;
#endif
}

// r^e for an integer exponent; e < 0 needs r != 0 (checked by the caller).
inline rational pow_int(const rational& r, std::int64_t e) {
  rational base = e < 0 ? rational(1) / r : r;
  std::uint64_t n = e < 0 ? static_cast<std::uint64_t>(-(e + 1)) + 1 : static_cast<std::uint64_t>(e);
  rational result = 1;
  while (n) {
    if (n & 1) result *= base;
    n >>= 1;
    if (n) base *= base;
  }
  return result;
}

// Exact square root of a non-negative rational when it is a perfect square.
inline std::optional<rational> exact_sqrt(const rational& r) {
  if (r < 0) return std::nullopt;
  const integer& n = boost::multiprecision::numerator(r);
  const integer& d = boost::multiprecision::denominator(r);
  integer sn = boost::multiprecision::sqrt(n), sd = boost::multiprecision::sqrt(d);
  if (sn * sn != n || sd * sd != d) return std::nullopt;
  return rational(sn, sd);
}

// Text for humans and for the term syntax: "3", "-1/3", or a short exact decimal such as
// "0.125" when the denominator is 2^a 5^b and the decimal stays short. Parses back exactly.
inline std::string to_string(const rational& r) {
  const integer& d = boost::multiprecision::denominator(r);
  if (d == 1) return boost::multiprecision::numerator(r).str();
  integer rest = d;
  int twos = 0, fives = 0;
  while (rest % 2 == 0 && twos <= 64) rest /= 2, ++twos;
  while (rest % 5 == 0 && fives <= 64) rest /= 5, ++fives;
  int digits = twos > fives ? twos : fives;
  if (rest == 1 && digits <= 12) {
    integer scale = 1;
    for (int i = 0; i < digits; ++i) scale *= 10;
    integer scaled = boost::multiprecision::numerator(r) * (scale / d);
    bool negative = scaled < 0;
    if (negative) scaled = -scaled;
    std::string s = scaled.str();
    if (s.size() <= static_cast<std::size_t>(digits)) s.insert(0, static_cast<std::size_t>(digits) - s.size() + 1, '0');
    s.insert(s.size() - static_cast<std::size_t>(digits), 1, '.');
    return negative ? "-" + s : s;
  }
  return boost::multiprecision::numerator(r).str() + "/" + d.str();
}

// Parses an unsigned decimal literal (digits, optional fraction, optional exponent) exactly.
// Returns nullopt when the text is not such a literal or its exponent is absurd (|e| > 4096).
inline std::optional<rational> parse_decimal(std::string_view text) {
  integer mantissa = 0;
  std::int64_t exponent = 0;
  std::size_t i = 0;
  bool any_digit = false;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    mantissa = mantissa * 10 + (text[i] - '0');
    any_digit = true;
    ++i;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      mantissa = mantissa * 10 + (text[i] - '0');
      --exponent;
      any_digit = true;
      ++i;
    }
  }
  if (!any_digit) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    std::int64_t e = 0;
    bool any = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (e < 100000) e = e * 10 + (text[i] - '0');
      any = true;
      ++i;
    }
    if (!any) return std::nullopt;
    exponent += negative ? -e : e;
  }
  if (i != text.size() || exponent > 4096 || exponent < -4096) return std::nullopt;
  rational r(mantissa);
  return exponent == 0 ? r : r * pow_int(rational(10), exponent);
}

}  // namespace gpueq::support
