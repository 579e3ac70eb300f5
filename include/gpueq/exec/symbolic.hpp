// The symbolic domain: data values are term ids of a term::store, so a run computes each output
// as a real-valued term of the inputs (VOLTA's symbolic execution). Float formats are reals here
// (DESIGN.md, semantics decisions): a float constant is the exact dyadic rational it encodes, a
// format conversion (f32 -> f16, f16 -> f32) is the identity, rounding modes and .ftz are not
// modelled. Integer data are exact integers (no overflow: stated in the README). A value that is
// not a real (NaN) or a conversion of symbolic data to an integer is a domain_error, which the
// engine reports as "not a structured CTA" with the instruction.
#pragma once

#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/floats.hpp>
#include <gpueq/term/print.hpp>
#include <gpueq/term/store.hpp>

#include <boost/container/small_vector.hpp>

#include <cmath>
#include <string>

namespace gpueq::exec {

class symbolic_domain {
 public:
  using real = term::term_id;
  static constexpr bool symbolic = true;

  explicit symbolic_domain(term::store& s) : s_(s) {}
  term::store& store() { return s_; }

  real from_float(std::uint64_t bits, rkind k) {
    double v = floats::decode(bits, k);
    if (std::isnan(v)) throw domain_error("a NaN constant has no real value");
    if (std::isinf(v)) return s_.infinity(v < 0);
    return s_.constant(support::rational(v));
  }
  real from_int(std::int64_t v) { return s_.constant(static_cast<long long>(v)); }
  std::optional<std::uint64_t> float_bits(real a, rkind k) {
    if (s_.kind_of(a) == term::kind::neg_inf) return floats::encode(-INFINITY, k);
    if (s_.kind_of(a) == term::kind::pos_inf) return floats::encode(INFINITY, k);
    if (!s_.is_constant(a)) return std::nullopt;
    double d = s_.value_of(a).convert_to<double>();
    if (support::rational(d) != s_.value_of(a) || floats::round_to(d, k) != d) return std::nullopt;
    return floats::encode(d, k);
  }
  std::optional<std::int64_t> integer(real a) {
    if (!s_.is_constant(a)) return std::nullopt;
    return support::to_int64(s_.value_of(a));
  }
  real input(const input_ref& in) {
    if (in.shape.empty()) return s_.input(in.name);
    boost::container::small_vector<std::uint32_t, 4> idx(in.shape.size());
    std::uint64_t e = in.element;
    for (std::size_t d = in.shape.size(); d-- > 0;) {
      idx[d] = static_cast<std::uint32_t>(e % in.shape[d]);
      e /= in.shape[d];
    }
    return s_.input(in.name, std::span<const std::uint32_t>(idx.data(), idx.size()));
  }

  real arith(aop o, std::span<const real> x, rkind, float_mode) {
    switch (o) {
      case aop::add: return s_.add(x[0], x[1]);
      case aop::sub: return s_.sub(x[0], x[1]);
      case aop::mul: return s_.mul(x[0], x[1]);
      case aop::fma: return s_.fma(x[0], x[1], x[2]);
      case aop::neg: return s_.neg(x[0]);
      case aop::abs: return s_.apply(term::function::abs, x[0]);
      case aop::min: return s_.min(x[0], x[1]);
      case aop::max: return s_.max(x[0], x[1]);
      case aop::div: return s_.div(x[0], x[1]);
      case aop::rcp: return s_.inv(x[0]);
      case aop::sqrt: return s_.sqrt(x[0]);
      case aop::rsqrt: return s_.rsqrt(x[0]);
      case aop::exp: return s_.exp(x[0]);
      // 2^x = e^(x ln 2): ln 2 stays an atom (log of a constant), so exp2 meets exp.
      case aop::exp2: return s_.exp(s_.mul(x[0], ln2()));
      case aop::log: return s_.log(x[0]);
      case aop::log2: return s_.div(s_.log(x[0]), ln2());
      case aop::tanh: return s_.apply(term::function::tanh, x[0]);
      case aop::sin: return s_.apply(term::function::sin, x[0]);
      case aop::cos: return s_.apply(term::function::cos, x[0]);
    }
    return x[0];
  }

  std::optional<bool> compare(cmp_op c, real a, real b, rkind) {
    auto value = [&](real t) -> std::optional<double> {
      if (s_.kind_of(t) == term::kind::neg_inf) return -INFINITY;
      if (s_.kind_of(t) == term::kind::pos_inf) return INFINITY;
      return std::nullopt;
    };
    std::optional<int> order;  // -1, 0, 1
    if (a == b) order = 0;
    else if (s_.is_constant(a) && s_.is_constant(b)) order = s_.value_of(a) < s_.value_of(b) ? -1 : s_.value_of(a) == s_.value_of(b) ? 0 : 1;
    else if (auto va = value(a)) order = *va < 0 ? -1 : 1;   // -inf below, +inf above any real
    else if (auto vb = value(b)) order = *vb < 0 ? 1 : -1;
    if (!order) return std::nullopt;
    switch (c) {
      case cmp_op::eq: case cmp_op::equ: return *order == 0;
      case cmp_op::ne: case cmp_op::neu: return *order != 0;
      case cmp_op::lt: case cmp_op::ltu: case cmp_op::lo: return *order < 0;
      case cmp_op::le: case cmp_op::leu: case cmp_op::ls: return *order <= 0;
      case cmp_op::gt: case cmp_op::gtu: case cmp_op::hi: return *order > 0;
      case cmp_op::ge: case cmp_op::geu: case cmp_op::hs: return *order >= 0;
      case cmp_op::num: return true;
      case cmp_op::nan: return false;
    }
    return std::nullopt;
  }

  // Float formats are reals; only a conversion to an integer needs a concrete value.
  real convert(real a, rkind, rkind to, float_mode m) {
    if (to != rkind::integer) return a;
    if (!s_.is_constant(a)) throw domain_error("conversion of a symbolic value to an integer");
    double d = s_.value_of(a).convert_to<double>();
    switch (m.round) {
      case rounding::rzi: case rounding::rz: d = std::trunc(d); break;
      case rounding::rmi: case rounding::rm: d = std::floor(d); break;
      case rounding::rpi: case rounding::rp: d = std::ceil(d); break;
      default: d = std::nearbyint(d); break;
    }
    return s_.constant(static_cast<long long>(d));
  }

  bool same(real a, real b) const { return a == b; }
  std::uint64_t identity(real a) const { return std::uint64_t{a} + 1; }
  std::string show(real a) const { return term::to_string(s_, a); }

 private:
  real ln2() {
    if (ln2_ == term::no_term) ln2_ = s_.log(s_.constant(2));
    return ln2_;
  }
  term::store& s_;
  real ln2_ = term::no_term;
};

static_assert(value_domain<symbolic_domain>);

}  // namespace gpueq::exec
