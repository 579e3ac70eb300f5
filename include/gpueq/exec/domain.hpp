// The value-domain seam (docs/ARCHITECTURE.md, "Value domains"). The scheduler, memory, barriers and instruction
// semantics are written once, against this concept; each model decides what a data value is:
//   float32_domain  (exec/float32.hpp)  what the GPU computes, bit for bit where PTX defines it
//   exact_domain    (exec/exact.hpp)    exact rationals
//   symbolic_domain (exec/symbolic.hpp) term ids in a term::store: values over the reals
// Law (VOLTA Lemma 5): evaluating a symbolic result at an input equals the concrete run on that
// input; the tests check it, and counterexamples are replayed through it.
//
// A domain never sees addresses or control flow: those are concrete bits in every run. It sees
// float and integer *data* only, through one arithmetic entry point with an operation code, so a
// new instruction needs one new case per domain, not one new method in every domain.
#pragma once

#include <gpueq/exec/values.hpp>
#include <gpueq/support/operations.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpueq::exec {

// Arithmetic on domain values. For rkind::integer values only add, sub, mul, fma, neg, abs, min,
// max are asked for.
// The arithmetic operations of the engine: the real operations of support/operations.hpp.
using aop = support::real_op;

// How the float32 domain rounds an operation; symbolic and exact domains ignore it.
struct float_mode {
  rounding round = rounding::rn;
  bool ftz = false;     // flush subnormal inputs and results to sign-preserving zero
  bool sat = false;     // clamp the result to [0, 1]
  bool satfinite = false;  // cvt .satfinite: NaN stays NaN, beyond the format's range to its largest finite value
  bool approx = false;  // .approx: within the error PTX states
  bool nan = false;     // min/max .NaN: a NaN operand makes the result the canonical NaN
};

// An element of an input tensor (or a scalar: no shape, element 0).
struct input_ref {
  std::uint32_t tensor = 0;  // the launch's tensor index (stable per run)
  std::string_view name;
  std::uint64_t element = 0;  // flat row-major index
  std::span<const std::uint64_t> shape;
  rkind kind = rkind::f32;
};

// A value the domain cannot form: exp in the exact-rational domain, a NaN in the symbolic one.
struct domain_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class D>
concept value_domain = requires(D d, const D cd, typename D::real a, typename D::real b, std::uint64_t bits,
                                rkind k, float_mode m, aop o, cmp_op c, const input_ref& in,
                                std::span<const typename D::real> args) {
  typename D::real;
  { D::symbolic } -> std::convertible_to<bool>;
  { d.from_float(bits, k) } -> std::same_as<typename D::real>;       // float bits of format k
  { d.from_int(std::int64_t{}) } -> std::same_as<typename D::real>;  // an integer
  { d.float_bits(a, k) } -> std::same_as<std::optional<std::uint64_t>>;  // concrete bits, if known
  { d.integer(a) } -> std::same_as<std::optional<std::int64_t>>;         // concrete integer, if known
  { d.input(in) } -> std::same_as<typename D::real>;
  { d.arith(o, args, k, m) } -> std::same_as<typename D::real>;
  { d.compare(c, a, b, k) } -> std::same_as<std::optional<bool>>;
  // Float format conversion (f32 -> f16, ...) and float <-> integer-datum conversion.
  { d.convert(a, k, k, m) } -> std::same_as<typename D::real>;
  { cd.same(a, b) } -> std::same_as<bool>;
  // Exact within one run: equal identities exactly when the same value (the same term, the same
  // bits), never a hash; none where no 64-bit identity is exact (the value then races harmfully).
  { cd.identity(a) } -> std::same_as<std::optional<std::uint64_t>>;
  { cd.show(a) } -> std::same_as<std::string>;
  // A value that leaves a run (an output element, a register read by a test) in its final form:
  // a domain may keep values in a working form while the run lasts (the symbolic domain's open
  // sums), which only the engine and the domain itself see.
  typename D::result;
  { d.finish(a) } -> std::same_as<typename D::result>;
  // Every value of a run is dead (its engine is gone and its results were finished): the domain
  // may drop what it kept for them. A domain serves many runs, one after another.
  { d.end_run() };
};

}  // namespace gpueq::exec
