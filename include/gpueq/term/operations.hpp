// The term of each real operation (support/operations.hpp): the one term builder that the
// symbolic domain, the term syntax and the DSL's lowering share. Adding an operation adds its
// case here (the switch is exhaustive).
#pragma once

#include <gpueq/support/operations.hpp>
#include <gpueq/term/store.hpp>

#include <span>
#include <string>

namespace gpueq::term {

// o applied to x. x holds arity(o) terms; add, mul, max and min also take more (a sum, product
// or extremum of all of them). Throws term_error where the store does (an undefined operation
// on ∞, division by zero).
inline term_id build(store& s, support::real_op o, std::span<const term_id> x) {
  using support::real_op;
  const std::size_t want = support::arity(o);
  const bool variadic = o == real_op::add || o == real_op::mul || o == real_op::max || o == real_op::min;
  if (variadic ? x.size() < want : x.size() != want)
    throw term_error("'" + std::string(support::name(o)) + "' applied to " + std::to_string(x.size()) + " arguments");
  // ln 2 stays an atom (log of a constant), so 2^x = e^(x ln 2) meets exp and log2 meets log.
  auto ln2 = [&] { return s.log(s.constant(2)); };
  switch (o) {
    case real_op::add: return s.add(x);
    case real_op::sub: return s.sub(x[0], x[1]);
    case real_op::mul: return s.mul(x);
    case real_op::fma: return s.fma(x[0], x[1], x[2]);
    case real_op::neg: return s.neg(x[0]);
    case real_op::div: return s.div(x[0], x[1]);
    case real_op::rcp: return s.inv(x[0]);
    case real_op::min: return s.min(x);
    case real_op::max: return s.max(x);
    case real_op::exp: return s.exp(x[0]);
    case real_op::exp2: return s.exp(s.mul(x[0], ln2()));
    case real_op::log: return s.log(x[0]);
    case real_op::log2: return s.div(s.log(x[0]), ln2());
    case real_op::pow: return s.exp(s.mul(x[1], s.log(x[0])));  // x^y = e^(y log x), x > 0 as for log
    case real_op::sqrt: return s.sqrt(x[0]);
    case real_op::rsqrt: return s.rsqrt(x[0]);
    case real_op::tanh:
    case real_op::erf:
    case real_op::abs:
    case real_op::sin:
    case real_op::cos: return s.apply(*function_of_op(o), x[0]);
  }
  throw term_error("unknown operation");
}

inline term_id build(store& s, support::real_op o, std::initializer_list<term_id> x) {
  return build(s, o, std::span<const term_id>(x.begin(), x.size()));
}

}  // namespace gpueq::term
