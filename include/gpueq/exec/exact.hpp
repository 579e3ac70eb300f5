// The exact domain: data values are rationals (GMP). Polynomial kernels (GEMM, reductions, sums)
// run here without rounding, which is what the symbolic result must equal at a rational point;
// exp, log, sqrt and the other transcendental functions have no rational values in general and
// are a domain_error (unless the argument makes the result rational: sqrt of a perfect square).
#pragma once

#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/floats.hpp>
#include <gpueq/support/rational.hpp>

#include <bit>
#include <cmath>
#include <functional>
#include <optional>
#include <string>

namespace gpueq::exec {

class exact_domain {
 public:
  using real = support::rational;
  using result = support::rational;
  static constexpr bool symbolic = false;

  using input_source = std::function<support::rational(const input_ref&)>;
  explicit exact_domain(input_source inputs) : inputs_(std::move(inputs)) {}

  real from_float(std::uint64_t bits, rkind k) {
    double v = floats::decode(bits, k);
    if (!std::isfinite(v)) throw domain_error("the exact domain has no infinities or NaN");
    return real(v);
  }
  real from_int(std::int64_t v) { return real(v); }
  std::optional<std::uint64_t> float_bits(const real& a, rkind k) {
    double d = a.convert_to<double>();
    if (real(d) != a || floats::round_to(d, k) != d) return std::nullopt;
    return floats::encode(d, k);
  }
  std::optional<std::int64_t> integer(const real& a) { return support::to_int64(a); }
  real input(const input_ref& in) { return inputs_(in); }
  result finish(const real& a) { return a; }
  void end_run() {}

  // The most bits (numerator and denominator together) one value may have. A chain of squarings
  // doubles a rational's size at every step (x^(2^k)), so without a bound a short kernel exhausts
  // memory inside GMP, which aborts; over the bound the operation is a domain_error (a run error
  // at the instruction), never an abort. 2^22 bits is 512 KiB per value, far beyond what a
  // polynomial kernel of realistic degree needs.
  std::uint64_t max_bits = std::uint64_t{1} << 22;

  real arith(aop o, std::span<const real> x, rkind, float_mode) {
    switch (o) {
      case aop::add: return bounded(x[0] + x[1]);
      case aop::sub: return bounded(x[0] - x[1]);
      case aop::mul: return bounded(x[0] * x[1]);
      case aop::fma: return bounded(x[0] * x[1] + x[2]);
      case aop::neg: return -x[0];
      case aop::abs: return x[0] < 0 ? real(-x[0]) : x[0];
      case aop::min: return x[0] < x[1] ? x[0] : x[1];
      case aop::max: return x[0] < x[1] ? x[1] : x[0];
      case aop::div:
        if (x[1] == 0) throw domain_error("division by zero");
        return bounded(x[0] / x[1]);
      case aop::rcp:
        if (x[0] == 0) throw domain_error("division by zero");
        return real(1) / x[0];
      case aop::sqrt:
        if (auto r = support::exact_sqrt(x[0])) return *r;
        break;
      case aop::rsqrt:
        if (auto r = support::exact_sqrt(x[0]); r && *r != 0) return real(1) / *r;
        break;
      default: break;
    }
    throw domain_error(std::string("'") + std::string(name(o)) + "' has no rational value here");
  }

  std::optional<bool> compare(cmp_op c, const real& a, const real& b, rkind) {
    return holds(relation_of(c), a < b ? -1 : a == b ? 0 : 1);
  }

  real convert(const real& a, rkind, rkind to, float_mode m) {
    if (to != rkind::integer) return a;
    const support::integer& n = boost::multiprecision::numerator(a);
    const support::integer& d = boost::multiprecision::denominator(a);
    support::integer q = n / d;  // truncates toward zero
    bool exact = q * d == n;
    if (!exact) {
      bool negative = n < 0;
      if ((m.round == rounding::rmi || m.round == rounding::rm) && negative) q -= 1;
      else if ((m.round == rounding::rpi || m.round == rounding::rp) && !negative) q += 1;
      else if (m.round != rounding::rzi && m.round != rounding::rz) {  // nearest, ties to even
        real frac = a - real(q);
        if (frac < 0) frac = -frac;
        if (frac > real(1, 2) || (frac == real(1, 2) && q % 2 != 0)) q += negative ? -1 : 1;
      }
    }
    return real(q);
  }

  bool same(const real& a, const real& b) const { return a == b; }
  // A rational's exact identity: the bits of the double it equals, when one does (a hash would
  // make two different values the same).
  std::optional<std::uint64_t> identity(const real& a) const {
    double d = a.convert_to<double>();
    if (!std::isfinite(d) || real(d) != a) return std::nullopt;
    return std::bit_cast<std::uint64_t>(d);
  }
  std::string show(const real& a) const { return support::to_string(a); }

 private:
  real bounded(real r) const {
    if (std::uint64_t b = support::bit_size(r); b > max_bits)
      throw domain_error("exact value of " + std::to_string(b) + " bits, over the exact domain's bound of " +
                         std::to_string(max_bits) + " bits (a chain of products doubles the size of a rational)");
    return r;
  }

  input_source inputs_;
};

static_assert(value_domain<exact_domain>);

}  // namespace gpueq::exec
