// The real operations gpueq knows, defined once (issue 18 item 4). Every layer that names an
// operation uses this enumeration: the engine's arithmetic (`exec::aop`), the lifted idioms of the
// PTX front end (`ptx::real_function`), the kernel DSL (`dsl::op`), the term store's opaque
// functions (`term::function`, derived from the rows of form `apply`) and the term syntax's
// function names (`term::parse`). Adding a real function is a row here, its float32
// implementation (`exec/float32.hpp`) and its term builder (`term::build`, term/operations.hpp);
// the switches that must handle every operation are exhaustive, so the compiler names the places
// a new row is missing from.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpueq::support {

// How the term store represents an operation.
enum class term_form : std::uint8_t {
  ring,     // the store's sums and products (add, mul)
  node,     // a node kind of its own (exp, log, sqrt, max, min)
  apply,    // an opaque function node (term::function): tanh, erf, ...
  derived,  // built from the others (sub, div, exp2 = exp(x ln 2), ...)
};

// X(enumerator, arity, form, callable)
//   arity     operands of the engine's operation (max/min take two; the term syntax and the
//             store also take more)
//   form      term_form above
//   callable  spelled as a function in the term syntax, `name(args)`; the others are operators
//             (+ - * /) or have no spelling there
// The order of the `apply` rows is the numbering of term::function (stored in term payloads).
#define GPUEQ_REAL_OPERATIONS(X)  \
  X(add, 2, ring, false)          \
  X(sub, 2, derived, false)       \
  X(mul, 2, ring, false)          \
  X(fma, 3, derived, false)       \
  X(neg, 1, derived, false)       \
  X(div, 2, derived, false)       \
  X(rcp, 1, derived, true)        \
  X(min, 2, node, true)           \
  X(max, 2, node, true)           \
  X(exp, 1, node, true)           \
  X(exp2, 1, derived, true)       \
  X(log, 1, node, true)           \
  X(log2, 1, derived, true)       \
  X(pow, 2, derived, false)       \
  X(sqrt, 1, node, true)          \
  X(rsqrt, 1, derived, true)      \
  X(tanh, 1, apply, true)         \
  X(erf, 1, apply, true)          \
  X(abs, 1, apply, true)          \
  X(sin, 1, apply, true)          \
  X(cos, 1, apply, true)

enum class real_op : std::uint8_t {
#define GPUEQ_X(e, arity, form, callable) e,
  GPUEQ_REAL_OPERATIONS(GPUEQ_X)
#undef GPUEQ_X
};

namespace detail {
struct real_op_row {
  std::string_view name;
  std::uint8_t arity;
  term_form form;
  bool callable;
};
inline constexpr real_op_row real_op_rows[] = {
#define GPUEQ_X(e, arity, form, callable) {#e, arity, term_form::form, callable},
    GPUEQ_REAL_OPERATIONS(GPUEQ_X)
#undef GPUEQ_X
};
}  // namespace detail

inline constexpr std::size_t real_op_count = std::size(detail::real_op_rows);

constexpr std::string_view name(real_op o) { return detail::real_op_rows[static_cast<std::size_t>(o)].name; }
constexpr unsigned arity(real_op o) { return detail::real_op_rows[static_cast<std::size_t>(o)].arity; }
constexpr term_form form(real_op o) { return detail::real_op_rows[static_cast<std::size_t>(o)].form; }
constexpr bool callable(real_op o) { return detail::real_op_rows[static_cast<std::size_t>(o)].callable; }

// The operation spelled `s`, if any.
constexpr std::optional<real_op> find_real_op(std::string_view s) {
  for (std::size_t i = 0; i < real_op_count; ++i)
    if (detail::real_op_rows[i].name == s) return static_cast<real_op>(i);
  return std::nullopt;
}

namespace detail {
constexpr bool real_ops_well_formed() {
  for (std::size_t i = 0; i < real_op_count; ++i) {
    const auto& r = real_op_rows[i];
    if (r.arity < 1 || r.arity > 3) return false;
    if (find_real_op(r.name) != static_cast<real_op>(i)) return false;  // unique spellings
    if (r.form == term_form::apply && r.arity != 1) return false;         // term::function is unary
  }
  return true;
}
static_assert(real_ops_well_formed(), "GPUEQ_REAL_OPERATIONS: arity 1..3, unique names, unary apply rows");
}  // namespace detail

}  // namespace gpueq::support
