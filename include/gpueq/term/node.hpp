// The term store's vocabulary: term ids, the kinds of node and their entries (sum, product and dot
// entries, the dot payload view), the errors a construction can throw and the store's options.
// term/store.hpp holds the class store over these; most code includes that.
#pragma once

#include <gpueq/support/operations.hpp>
#include <gpueq/support/rational.hpp>
#include <gpueq/support/small_rational.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

// Canonical-form invariants are asserted when GPUEQ_CHECK_INVARIANTS is non-zero, independently
// of NDEBUG (the test suite turns them on in release builds).
#ifndef GPUEQ_CHECK_INVARIANTS
#define GPUEQ_CHECK_INVARIANTS 0
#endif
#if GPUEQ_CHECK_INVARIANTS
#define GPUEQ_INVARIANT(cond, what)                                                      \
  do {                                                                                   \
    if (!(cond)) throw ::gpueq::term::invariant_error(std::string("invariant: ") + what); \
  } while (0)
#else
#define GPUEQ_INVARIANT(cond, what) \
  do {                              \
  } while (0)
#endif

namespace gpueq::term {

using support::rational;
using support::small_rational;
using term_id = std::uint32_t;
inline constexpr term_id no_term = 0xffffffffu;

// A term that has no real value (0·∞, ∞−∞, log of a negative constant, division by zero).
struct term_error : std::domain_error {
  using std::domain_error::domain_error;
};
struct invariant_error : std::logic_error {
  using std::logic_error::logic_error;
};

enum class kind : std::uint8_t {
  constant,  // payload: constant index
  neg_inf,
  pos_inf,
  input,     // payload: tensor-name index; slots: the element's indices (none for a scalar)
  add,       // payload: constant index of c0; slots: (coefficient index, term) pairs
  mul,       // payload: constant index of c; slots: (base term, exponent as int32) pairs
  exp,       // slots: argument
  log,
  sqrt,
  max,       // slots: ≥ 2 sorted, distinct arguments, none of them a max
  min,
  apply,     // payload: opaque function; slots: arguments
  dot,       // slots: (coefficient index, x, y) triples, more than flatten_limit of them (see sum_of);
             // payload unit_dot: every coefficient is 1 and the slots are (x, y) pairs
};
constexpr bool is_infinity(kind k) { return k == kind::neg_inf || k == kind::pos_inf; }

// Real functions whose identities we do not model: applications are atoms of the normal form.
// The operations of form `apply` in support/operations.hpp, in their order there.
#define GPUEQ_TERM_FUNCTION_ring(e)
#define GPUEQ_TERM_FUNCTION_node(e)
#define GPUEQ_TERM_FUNCTION_derived(e)
#define GPUEQ_TERM_FUNCTION_apply(e) e,
#define GPUEQ_X(e, arity, form, callable) GPUEQ_TERM_FUNCTION_##form(e)
enum class function : std::uint32_t { GPUEQ_REAL_OPERATIONS(GPUEQ_X) };
#undef GPUEQ_X
#undef GPUEQ_TERM_FUNCTION_apply
#define GPUEQ_TERM_FUNCTION_apply(e) support::real_op::e,
#define GPUEQ_X(e, arity, form, callable) GPUEQ_TERM_FUNCTION_##form(e)
// function -> its operation.
inline constexpr support::real_op function_ops[] = {GPUEQ_REAL_OPERATIONS(GPUEQ_X)};
#undef GPUEQ_X
#undef GPUEQ_TERM_FUNCTION_ring
#undef GPUEQ_TERM_FUNCTION_node
#undef GPUEQ_TERM_FUNCTION_derived
#undef GPUEQ_TERM_FUNCTION_apply

inline constexpr support::real_op op_of(function f) { return function_ops[static_cast<std::uint32_t>(f)]; }
inline constexpr std::string_view name_of(function f) { return support::name(op_of(f)); }
// The function an operation of form `apply` is.
inline constexpr std::optional<function> function_of_op(support::real_op o) {
  for (std::uint32_t i = 0; i < std::size(function_ops); ++i)
    if (function_ops[i] == o) return static_cast<function>(i);
  return std::nullopt;
}

struct node {
  kind k;
  // Cached at creation: the node is a constant, an input, or a product whose bases are all inputs
  // (a monomial). Normal forms read it instead of visiting the children.
  bool monomial;
  std::uint32_t payload;
  std::uint32_t first;  // index of the first slot in the store's slot arena
  std::uint32_t count;  // number of slots (pairs count 2)
  std::uint64_t hash;
};

// A (coefficient, term) entry of a sum or (base, exponent) entry of a product.
struct sum_entry {
  std::uint32_t coefficient;  // constant index
  term_id term;
};
struct product_entry {
  term_id base;
  std::int32_t exponent;
};
// A (coefficient, x, y) entry of a dot: c·x·y, with x, y dot factors (see store::dot_factor) and
// x ≤ y by id.
struct dot_entry {
  std::uint32_t coefficient;  // constant index
  term_id x, y;
};
static_assert(sizeof(dot_entry) == 3 * sizeof(std::uint32_t), "a dot's slots are its entries, word for word");

// A dot node's payload: general (the slots are (coefficient, x, y) triples) or unit_dot (every
// coefficient is 1, so the slots are (x, y) pairs: two words a product instead of three — a
// GEMM's dot products are all of this kind, and their slots are most of such a check's memory).
// store::dot chooses, so a dot has one representation and hash-consing still finds equal ones.
inline constexpr std::uint32_t general_dot = 0, unit_dot = 1;

// The entries of a dot, read from its slots in either representation (dot_entry values).
class dot_entries_view {
 public:
  dot_entries_view(const std::uint32_t* slots, std::size_t words, bool unit)
      : s_(slots), n_(words / (unit ? 2 : 3)), unit_(unit) {}
  std::size_t size() const { return n_; }
  dot_entry operator[](std::size_t i) const {
    return unit_ ? dot_entry{1, s_[2 * i], s_[2 * i + 1]} : dot_entry{s_[3 * i], s_[3 * i + 1], s_[3 * i + 2]};
  }
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = dot_entry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = dot_entry;
    iterator() = default;
    iterator(const dot_entries_view* v, std::size_t i) : v_(v), i_(i) {}
    dot_entry operator*() const { return (*v_)[i_]; }
    iterator& operator++() { ++i_; return *this; }
    iterator operator++(int) { iterator r = *this; ++i_; return r; }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
   private:
    const dot_entries_view* v_ = nullptr;
    std::size_t i_ = 0;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, n_}; }

 private:
  const std::uint32_t* s_;
  std::size_t n_;
  bool unit_;
};
// A summand of store::sum_of: a·b, or a alone when b is no_term.
struct summand {
  term_id a;
  term_id b = no_term;
};

struct store_options {
  // Nested sums/products with at most this many entries are flattened into their parent.
  std::uint32_t flatten_limit = 16;
};

}  // namespace gpueq::term
