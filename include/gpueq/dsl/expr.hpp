// gpueq::dsl — specifications as C++ expressions. An expression is a type (an expression
// template) built from tensors with compile-time shapes, scalar parameters, index variables,
// arithmetic, the real functions gpueq knows, and reductions over index ranges:
//
//   using namespace gpueq::dsl;
//   constexpr tensor<"x", 8> x;  constexpr tensor<"y", 8> y;
//   constexpr var<'i'> i;  constexpr var<'j'> j;
//   constexpr auto softmax = define(y(i), exp(x(i)) / sum<j, 0, 8>(exp(x(j))));
//
// The same expression evaluates at compile time (constexpr, in the constexpr_real domain), at run
// time in any value domain (double, exact rationals) and lowers to terms of the store
// (domains.hpp), where it meets a kernel's outputs. define(out(i, j), e) names the output tensor
// an expression fills (the form a specification takes, check/spec_check.hpp).
//
// Let-bindings are C++ variables wrapped in let(): `auto mean = let(sum<j, 0, N>(x(j)) / N);`. A
// plain variable is already shared as a type and, when lowered, through hash-consing; let() also
// evaluates the binding once per value of its free indices (domains with a memo: numeric and
// lowering), so a layernorm's mean is not recomputed inside the variance's sum for every element.
//
// Misuse is a compile error that says what is wrong: a tensor indexed with the wrong number of
// indices, or an index used outside a reduction or output that binds it (see tabulate()).
#pragma once

#include <gpueq/support/operations.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpueq::dsl {

// ---- names ----------------------------------------------------------------------------------
template <std::size_t N>
struct fixed_string {
  char text[N]{};
  constexpr fixed_string(const char (&s)[N]) {  // NOLINT: implicit, for template arguments
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
  constexpr std::string_view view() const { return {text, N - 1}; }
};

// ---- index variables and their bindings -------------------------------------------------------
// The values bound to index variables, by the variable's character.
struct bindings {
  std::array<long, 128> value{};
  constexpr long operator[](char c) const { return value[static_cast<unsigned char>(c)]; }
  constexpr bindings with(char c, long v) const {
    bindings b = *this;
    b.value[static_cast<unsigned char>(c)] = v;
    return b;
  }
};

// A set of index variables as a bit mask over characters (two words for 128 characters).
struct var_set {
  std::uint64_t lo = 0, hi = 0;
  constexpr var_set operator|(var_set o) const { return {lo | o.lo, hi | o.hi}; }
  constexpr var_set without(char c) const {
    var_set r = *this;
    auto u = static_cast<unsigned char>(c);
    if (u < 64) r.lo &= ~(std::uint64_t{1} << u);
    else r.hi &= ~(std::uint64_t{1} << (u - 64));
    return r;
  }
  static constexpr var_set of(char c) {
    auto u = static_cast<unsigned char>(c);
    return u < 64 ? var_set{std::uint64_t{1} << u, 0} : var_set{0, std::uint64_t{1} << (u - 64)};
  }
  constexpr bool subset_of(var_set o) const { return (lo & ~o.lo) == 0 && (hi & ~o.hi) == 0; }
  constexpr bool empty() const { return lo == 0 && hi == 0; }
};

// Index expressions: an index variable, an integer, and sums, differences and constant multiples
// of index expressions (enough for tiles, strides and convolution windows).
struct index_expr_tag {};
template <class T>
concept index_expression = std::is_base_of_v<index_expr_tag, std::remove_cvref_t<T>>;

template <char Name>
struct var : index_expr_tag {
  static constexpr char name = Name;
  static constexpr var_set free = var_set::of(Name);
  constexpr long at(const bindings& b) const { return b[Name]; }
};

struct index_constant : index_expr_tag {
  long v;
  static constexpr var_set free{};
  constexpr explicit index_constant(long left) : v(left) {}
  constexpr long at(const bindings&) const { return v; }
};

template <class A, class B, int Op>  // Op: 0 add, 1 sub, 2 mul
struct index_binary : index_expr_tag {
  A a;
  B b;
  static constexpr var_set free = A::free | B::free;
  constexpr index_binary(A left, B right) : a(left), b(right) {}
  constexpr long at(const bindings& s) const {
    if constexpr (Op == 0) return a.at(s) + b.at(s);
    else if constexpr (Op == 1) return a.at(s) - b.at(s);
    else return a.at(s) * b.at(s);
  }
};

template <class T>
constexpr auto as_index(T left) {
  if constexpr (index_expression<T>) return left;
  else {
    static_assert(std::is_integral_v<T>, "an index must be an index variable, an integer, or a sum of them");
    return index_constant(static_cast<long>(left));
  }
}

template <class A, class B>
  requires(index_expression<A> || index_expression<B>) && (!std::is_floating_point_v<A> && !std::is_floating_point_v<B>)
constexpr auto operator+(A a, B b) {
  auto left = as_index(a);
  auto right = as_index(b);
  return index_binary<decltype(left), decltype(right), 0>(left, right);
}
template <class A, class B>
  requires(index_expression<A> || index_expression<B>) && (!std::is_floating_point_v<A> && !std::is_floating_point_v<B>)
constexpr auto operator-(A a, B b) {
  auto left = as_index(a);
  auto right = as_index(b);
  return index_binary<decltype(left), decltype(right), 1>(left, right);
}
template <class A, class B>
  requires(index_expression<A> || index_expression<B>) && (!std::is_floating_point_v<A> && !std::is_floating_point_v<B>)
constexpr auto operator*(A a, B b) {
  auto left = as_index(a);
  auto right = as_index(b);
  return index_binary<decltype(left), decltype(right), 2>(left, right);
}

// ---- value expressions ------------------------------------------------------------------------
struct expr_tag {};
template <class T>
concept expression = std::is_base_of_v<expr_tag, std::remove_cvref_t<T>>;

// An exact constant num/den (so it lowers to an exact rational term).
struct constant : expr_tag {
  long num, den;
  static constexpr var_set free{};
  constexpr constant(long n, long d = 1) : num(n), den(d) {}
  template <class D>
  constexpr auto eval(D& d, const bindings&) const {
    return d.constant(num, den);
  }
};

// An element of a named input tensor of compile-time shape Dims..., stored row-major.
template <fixed_string Name, class... I>
struct access;

template <fixed_string Name, std::size_t... Dims>
struct tensor {
  static constexpr std::string_view name = Name.view();
  static constexpr std::size_t rank = sizeof...(Dims);
  static constexpr std::array<std::size_t, sizeof...(Dims)> dims{Dims...};
  static constexpr std::size_t size = (std::size_t{1} * ... * Dims);

  template <class... I>
  constexpr auto operator()(I... i) const {
    static_assert(sizeof...(I) == sizeof...(Dims),
                  "gpueq::dsl: a tensor is indexed with as many indices as its shape has dimensions");
    return access<Name, decltype(as_index(i))...>(dims_array(), as_index(i)...);
  }
  static constexpr std::array<std::size_t, sizeof...(Dims)> dims_array() { return dims; }
};

template <fixed_string Name, class... I>
struct access : expr_tag {
  std::array<std::size_t, sizeof...(I)> dims;
  std::tuple<I...> idx;
  static constexpr var_set free = (var_set{} | ... | I::free);
  constexpr access(std::array<std::size_t, sizeof...(I)> d, I... i) : dims(d), idx(i...) {}

  // The row-major flat index; out of range is an error (a constant expression stops there).
  constexpr std::size_t flat(const bindings& b) const {
    std::size_t f = 0;
    std::size_t k = 0;
    bool ok = true;
    std::apply(
        [&](const auto&... ix) {
          ((ok = ok && ix.at(b) >= 0 && static_cast<std::size_t>(ix.at(b)) < dims[k],
            f = f * dims[k] + static_cast<std::size_t>(ix.at(b)), ++k),
           ...);
        },
        idx);
    if (!ok) throw_out_of_range();
    return f;
  }
  // The row-major multi-index (the flat index is checked first, so every part is in range).
  constexpr std::array<std::size_t, sizeof...(I)> indices(const bindings& b) const {
    std::array<std::size_t, sizeof...(I)> at{};
    std::size_t k = 0;
    std::apply([&](const auto&... ix) { ((at[k++] = static_cast<std::size_t>(ix.at(b))), ...); }, idx);
    return at;
  }
  // A domain that names inputs by multi-index (lowering: the names the kernel run gives) takes
  // (name, flat, indices); the others take (name, flat).
  template <class D>
  constexpr auto eval(D& d, const bindings& b) const {
    std::size_t f = flat(b);
    if constexpr (requires { d.input(Name.view(), f, std::span<const std::size_t>{}); }) {
      auto at = indices(b);
      return d.input(Name.view(), f, std::span<const std::size_t>(at.data(), at.size()));
    } else {
      return d.input(Name.view(), f);
    }
  }

 private:
  // Not constexpr: reaching it during constant evaluation is the compile error.
  static void throw_out_of_range() {
    throw std::out_of_range("gpueq::dsl: tensor '" + std::string(Name.view()) + "' indexed out of its shape");
  }
};

// A named scalar parameter of the kernel (alpha, eps, …), a real shared with the kernel's
// symbolic scalar of that name. Domains without scalars read it as input (name, 0).
template <fixed_string Name>
struct scalar : expr_tag {
  static constexpr std::string_view name = Name.view();
  static constexpr var_set free{};
  template <class D>
  constexpr auto eval(D& d, const bindings&) const {
    if constexpr (requires { d.scalar(Name.view()); }) return d.scalar(Name.view());
    else return d.input(Name.view(), std::size_t{0});
  }
};

// The index variables of a set, in character order.
template <var_set S>
constexpr auto chars_of() {
  constexpr std::size_t n = static_cast<std::size_t>(std::popcount(S.lo) + std::popcount(S.hi));
  std::array<char, n> out{};
  std::size_t k = 0;
  for (unsigned c = 0; c < 128; ++c)
    if (c < 64 ? (S.lo >> c) & 1 : (S.hi >> (c - 64)) & 1) out[k++] = static_cast<char>(c);
  return out;
}

// The key of a memoized let: the node and the values of its free indices.
struct memo_key {
  const void* node = nullptr;
  std::array<long, 4> at{};
  friend bool operator==(const memo_key&, const memo_key&) = default;
};
struct memo_hash {
  std::size_t operator()(const memo_key& k) const {
    std::size_t h = std::hash<const void*>{}(k.node);
    for (long v : k.at) h = (h ^ static_cast<std::size_t>(v)) * 0x100000001b3ull;
    return h;
  }
};

// let(e): e, evaluated once per value of its free indices where the domain memoizes (a domain
// with memo(key, compute)); elsewhere (constant evaluation, exact) simply e. The memo lives for
// one evaluate()/tabulate() call, so node addresses identify lets safely.
template <class E>
struct let_expr : expr_tag {
  E e;
  static constexpr var_set free = E::free;
  constexpr explicit let_expr(E body) : e(body) {}
  template <class D>
  constexpr auto eval(D& d, const bindings& b) const {
    constexpr auto names = chars_of<E::free>();
    if constexpr (names.size() <= 4 && requires { d.memo(memo_key{}, [] { return typename D::value{}; }); }) {
      if (!std::is_constant_evaluated()) {
        memo_key key{this, {}};
        for (std::size_t k = 0; k < names.size(); ++k) key.at[k] = b[names[k]];
        return d.memo(key, [&] { return e.eval(d, b); });
      }
    }
    return e.eval(d, b);
  }
};

template <expression E>
constexpr auto let(E e) {
  return let_expr<E>(e);
}

// The operations of expressions: the real operations of support/operations.hpp (add, sub, mul,
// div, max, min, neg, exp, log, sqrt, rsqrt and tanh are spelled in this language).
using op = support::real_op;

template <op O, class A, class B>
struct binary : expr_tag {
  A a;
  B b;
  static constexpr var_set free = A::free | B::free;
  constexpr binary(A left, B right) : a(left), b(right) {}
  template <class D>
  constexpr auto eval(D& d, const bindings& s) const {
    auto left = a.eval(d, s);
    auto right = b.eval(d, s);
    if constexpr (O == op::add) return d.add(left, right);
    else if constexpr (O == op::sub) return d.sub(left, right);
    else if constexpr (O == op::mul) return d.mul(left, right);
    else if constexpr (O == op::div) return d.div(left, right);
    else if constexpr (O == op::max) return d.max(left, right);
    else return d.min(left, right);
  }
};

template <op O, class A>
struct unary : expr_tag {
  A a;
  static constexpr var_set free = A::free;
  constexpr explicit unary(A left) : a(left) {}
  template <class D>
  constexpr auto eval(D& d, const bindings& s) const {
    auto left = a.eval(d, s);
    if constexpr (O == op::neg) return d.neg(left);
    else if constexpr (O == op::exp) return d.exp(left);
    else if constexpr (O == op::log) return d.log(left);
    else if constexpr (O == op::sqrt) return d.sqrt(left);
    else if constexpr (O == op::rsqrt) return d.rsqrt(left);
    else return d.tanh(left);
  }
};

// Σ or max/min of Body over the index variable V from Lo to Hi − 1 (evaluated left to right, as
// a sequential loop would: the order does not matter over the reals).
template <op O, char V, long Lo, long Hi, class Body>
struct reduction : expr_tag {
  static_assert(Lo < Hi, "gpueq::dsl: a reduction needs a non-empty index range");
  Body body;
  static constexpr var_set free = Body::free.without(V);
  constexpr explicit reduction(Body b) : body(b) {}
  template <class D>
  constexpr auto eval(D& d, const bindings& s) const {
    using value = decltype(body.eval(d, s.with(V, Lo)));
    if constexpr (O == op::add && requires(std::span<const value> xs) { d.sum(xs); }) {
      std::vector<value> terms;  // a domain that builds long sums at once (dsl::lowering)
      terms.reserve(static_cast<std::size_t>(Hi - Lo));
      for (long k = Lo; k < Hi; ++k) terms.push_back(body.eval(d, s.with(V, k)));
      return d.sum(std::span<const value>(terms));
    } else {
      auto acc = body.eval(d, s.with(V, Lo));
      for (long k = Lo + 1; k < Hi; ++k) {
        auto left = body.eval(d, s.with(V, k));
        if constexpr (O == op::add) acc = d.add(acc, left);
        else if constexpr (O == op::max) acc = d.max(acc, left);
        else acc = d.min(acc, left);
      }
      return acc;
    }
  }
};

// Numbers in expressions become exact constants: integers as they are, floating-point literals
// by their exact binary value would surprise users, so they are rejected: write constant(1, 8).
template <class T>
constexpr auto as_expr(T left) {
  if constexpr (expression<T>) return left;
  else {
    static_assert(std::is_integral_v<T>,
                  "gpueq::dsl: write non-integer constants exactly, as constant(num, den)");
    return constant(static_cast<long>(left));
  }
}

#define GPUEQ_DSL_BINARY(symbol, O)                                                        \
  template <class A, class B>                                                              \
    requires(expression<A> || expression<B>)                                               \
  constexpr auto operator symbol(A a, B b) {                                               \
    auto left = as_expr(a);                                                                   \
    auto right = as_expr(b);                                                                   \
    return binary<O, decltype(left), decltype(right)>(left, right);                                      \
  }
GPUEQ_DSL_BINARY(+, op::add)
GPUEQ_DSL_BINARY(-, op::sub)
GPUEQ_DSL_BINARY(*, op::mul)
GPUEQ_DSL_BINARY(/, op::div)
#undef GPUEQ_DSL_BINARY

template <expression A>
constexpr auto operator-(A a) {
  return unary<op::neg, A>(a);
}

template <class A, class B>
  requires(expression<A> || expression<B>)
constexpr auto max(A a, B b) {
  auto left = as_expr(a);
  auto right = as_expr(b);
  return binary<op::max, decltype(left), decltype(right)>(left, right);
}
template <class A, class B>
  requires(expression<A> || expression<B>)
constexpr auto min(A a, B b) {
  auto left = as_expr(a);
  auto right = as_expr(b);
  return binary<op::min, decltype(left), decltype(right)>(left, right);
}

#define GPUEQ_DSL_UNARY(fn, O)                \
  template <expression A>                     \
  constexpr auto fn(A a) {                    \
    return unary<O, A>(a);                    \
  }
GPUEQ_DSL_UNARY(exp, op::exp)
GPUEQ_DSL_UNARY(log, op::log)
GPUEQ_DSL_UNARY(sqrt, op::sqrt)
GPUEQ_DSL_UNARY(rsqrt, op::rsqrt)
GPUEQ_DSL_UNARY(tanh, op::tanh)
#undef GPUEQ_DSL_UNARY

// sum<j, 0, N>(body), max_over<j, 0, N>(body), min_over<j, 0, N>(body)
template <auto V, long Lo, long Hi, expression Body>
constexpr auto sum(Body b) {
  return reduction<op::add, decltype(V)::name, Lo, Hi, Body>(b);
}
template <auto V, long Lo, long Hi, expression Body>
constexpr auto max_over(Body b) {
  return reduction<op::max, decltype(V)::name, Lo, Hi, Body>(b);
}
template <auto V, long Lo, long Hi, expression Body>
constexpr auto min_over(Body b) {
  return reduction<op::min, decltype(V)::name, Lo, Hi, Body>(b);
}

// ---- evaluation -------------------------------------------------------------------------------
// The value of a closed expression (every index bound by a reduction), or of an expression whose
// free indices are bound by `b`.
template <expression E, class D>
constexpr auto evaluate(const E& e, D&& domain, const bindings& b = {}) {
  if constexpr (requires { domain.clear_memo(); })
    if (!std::is_constant_evaluated()) domain.clear_memo();
  return e.eval(domain, b);
}

// Every element of an output of shape (extents of the index variables Out...): f(visit) is called
// with the flat row-major index and the value. The expression's free indices must be among Out.
template <auto... Out, expression E, class D, class F>
constexpr void tabulate(const E& e, D& domain, std::array<long, sizeof...(Out)> extents, F&& visit) {
  constexpr var_set bound = (var_set{} | ... | var_set::of(decltype(Out)::name));
  static_assert(E::free.subset_of(bound),
                "gpueq::dsl: the expression uses an index that no reduction or output binds");
  constexpr char names[] = {decltype(Out)::name...};
  if constexpr (requires { domain.clear_memo(); })
    if (!std::is_constant_evaluated()) domain.clear_memo();
  std::array<long, sizeof...(Out)> at{};
  long total = 1;
  for (long left : extents) total *= left;
  for (long flat = 0; flat < total; ++flat) {
    long rest = flat;
    for (std::size_t k = sizeof...(Out); k-- > 0;) {
      at[k] = rest % extents[k];
      rest /= extents[k];
    }
    bindings b;
    for (std::size_t k = 0; k < sizeof...(Out); ++k) b = b.with(names[k], at[k]);
    visit(static_cast<std::size_t>(flat), e.eval(domain, b));
  }
}

// ---- output definitions ------------------------------------------------------------------------
// define(y(i, j), e): the output tensor y (its name and shape) is e at every (i, j). The form a
// specification takes: check::from_dsl turns definitions into a specification of a kernel.
template <fixed_string Name, class E, char... V>
struct definition {
  static constexpr std::string_view name = Name.view();
  static constexpr std::size_t rank = sizeof...(V);
  std::array<std::size_t, sizeof...(V)> dims;
  E e;

  constexpr std::size_t size() const {
    std::size_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
  // f(flat index, value) for every element, in row-major order.
  template <class D, class F>
  constexpr void tabulate(D& d, F&& visit) const {
    std::array<long, sizeof...(V)> extents{};
    for (std::size_t k = 0; k < rank; ++k) extents[k] = static_cast<long>(dims[k]);
    dsl::tabulate<var<V>{}...>(e, d, extents, visit);
  }
  // One element, by its flat row-major index.
  template <class D>
  constexpr auto at(D& d, std::size_t flat) const {
    constexpr char names[] = {V...};
    bindings b;
    for (std::size_t k = rank; k-- > 0;) {
      b = b.with(names[k], static_cast<long>(flat % dims[k]));
      flat /= dims[k];
    }
    return dsl::evaluate(e, d, b);
  }
};

template <class T>
inline constexpr bool is_var_v = false;
template <char C>
inline constexpr bool is_var_v<var<C>> = true;

template <char... V>
constexpr bool distinct_chars() {
  constexpr char names[] = {V..., 0};
  for (std::size_t a = 0; a < sizeof...(V); ++a)
    for (std::size_t b = a + 1; b < sizeof...(V); ++b)
      if (names[a] == names[b]) return false;
  return true;
}

template <fixed_string Name, char... V, expression E>
constexpr auto define(const access<Name, var<V>...>& out, E e) {
  static_assert(distinct_chars<V...>(), "gpueq::dsl: define() indexes its output with distinct index variables");
  static_assert(E::free.subset_of((var_set{} | ... | var_set::of(V))),
                "gpueq::dsl: the expression uses an index that no reduction or output binds");
  return definition<Name, E, V...>{out.dims, e};
}
template <fixed_string Name, class... I, class E>
  requires(!(is_var_v<I> && ...))
constexpr auto define(const access<Name, I...>&, E) {
  static_assert(sizeof...(I) == 0, "gpueq::dsl: define() indexes its output with index variables only, e.g. y(i, j)");
}

// A closed expression has no free index: evaluate() needs no bindings.
template <expression E>
inline constexpr bool is_closed = E::free.empty();

}  // namespace gpueq::dsl
