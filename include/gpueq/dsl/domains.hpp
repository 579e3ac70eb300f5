// Value domains for DSL expressions: what "evaluate" means. A domain provides the value type's
// operations (constant, input, add, sub, mul, div, neg, max, min, exp, log, sqrt, rsqrt, tanh).
//   constexpr_real  double arithmetic usable in constant expressions (its own exp/log/sqrt/tanh)
//   numeric<T>      run-time arithmetic in T (double, float, cpp_bin_float_50, …)
//   exact           exact rationals; exp/log/sqrt/tanh have no rational value and throw
//   lowering        terms of a term::store, built through the smart constructors
#pragma once

#include <gpueq/dsl/expr.hpp>
#include <gpueq/term/store.hpp>

#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpueq::dsl {

// ---- constexpr real arithmetic ------------------------------------------------------------------
namespace cmath {

constexpr double ln2 = 0.693147180559945309417232121458176568;

constexpr double exp(double v) {
  if (v != v) return v;
  if (v > 709) return std::numeric_limits<double>::infinity();
  if (v < -745) return 0;
  // x = k·ln2 + r with |r| ≤ ln2/2, e^r by its Taylor series, then · 2^k.
  long k = static_cast<long>(v / ln2 + (v >= 0 ? 0.5 : -0.5));
  double r = v - static_cast<double>(k) * ln2;
  double term = 1, sum = 1;
  for (int n = 1; n < 30; ++n) {
    term *= r / n;
    sum += term;
  }
  double scale = 1;
  for (long i = 0; i < (k >= 0 ? k : -k); ++i) scale *= 2;
  return k >= 0 ? sum * scale : sum / scale;
}

constexpr double log(double v) {
  if (!(v > 0)) throw std::domain_error("gpueq::dsl: log of a non-positive value");
  // x = m·2^e with m in [0.75, 1.5), log m = 2·atanh((m − 1)/(m + 1)).
  long e = 0;
  while (v >= 1.5) v /= 2, ++e;
  while (v < 0.75) v *= 2, --e;
  double z = (v - 1) / (v + 1), z2 = z * z, term = z, sum = 0;
  for (int n = 1; n < 80; n += 2) {
    sum += term / n;
    term *= z2;
  }
  return 2 * sum + static_cast<double>(e) * ln2;
}

constexpr double sqrt(double v) {
  if (v < 0) throw std::domain_error("gpueq::dsl: sqrt of a negative value");
  if (v == 0) return 0;
  double r = v >= 1 ? v : 1;
  for (int n = 0; n < 200; ++n) {
    double next = 0.5 * (r + v / r);
    if (next == r) break;
    r = next;
  }
  return r;
}

constexpr double tanh(double v) {
  if (v > 20) return 1;
  if (v < -20) return -1;
  double e2 = exp(2 * v);
  return (e2 - 1) / (e2 + 1);
}

}  // namespace cmath

// Inputs: a callable (name, flat index) -> double, usable in constant expressions.
template <class Inputs>
struct constexpr_real {
  Inputs inputs;
  using value = double;
  constexpr double constant(long n, long d) const { return static_cast<double>(n) / static_cast<double>(d); }
  constexpr double input(std::string_view name, std::size_t i) const { return inputs(name, i); }
  constexpr double add(double a, double b) const { return a + b; }
  constexpr double sub(double a, double b) const { return a - b; }
  constexpr double mul(double a, double b) const { return a * b; }
  constexpr double div(double a, double b) const { return a / b; }
  constexpr double neg(double a) const { return -a; }
  constexpr double max(double a, double b) const { return a < b ? b : a; }
  constexpr double min(double a, double b) const { return b < a ? b : a; }
  constexpr double exp(double a) const { return cmath::exp(a); }
  constexpr double log(double a) const { return cmath::log(a); }
  constexpr double sqrt(double a) const { return cmath::sqrt(a); }
  constexpr double rsqrt(double a) const { return 1 / cmath::sqrt(a); }
  constexpr double tanh(double a) const { return cmath::tanh(a); }
};
template <class Inputs>
constexpr_real(Inputs) -> constexpr_real<Inputs>;

// Run-time arithmetic in T; inputs: a callable (name, flat index) -> T.
template <class T, class Inputs>
struct numeric {
  Inputs inputs;
  using value = T;
  T constant(long n, long d) const { return T(n) / T(d); }
  T input(std::string_view name, std::size_t i) const { return inputs(name, i); }
  T add(const T& a, const T& b) const { return a + b; }
  T sub(const T& a, const T& b) const { return a - b; }
  T mul(const T& a, const T& b) const { return a * b; }
  T div(const T& a, const T& b) const { return a / b; }
  T neg(const T& a) const { return -a; }
  T max(const T& a, const T& b) const { return a < b ? b : a; }
  T min(const T& a, const T& b) const { return b < a ? b : a; }
  T exp(const T& a) const {
    using std::exp;
    return exp(a);
  }
  T log(const T& a) const {
    using std::log;
    return log(a);
  }
  T sqrt(const T& a) const {
    using std::sqrt;
    return sqrt(a);
  }
  T rsqrt(const T& a) const {
    using std::sqrt;
    return T(1) / sqrt(a);
  }
  T tanh(const T& a) const {
    using std::tanh;
    return tanh(a);
  }
  // let() bindings, once per value of their free indices (cleared by evaluate and tabulate).
  mutable std::unordered_map<memo_key, T, memo_hash> memo_table{};
  template <class F>
  T memo(const memo_key& k, F&& compute) const {
    if (auto it = memo_table.find(k); it != memo_table.end()) return it->second;
    T v = compute();
    memo_table.emplace(k, v);
    return v;
  }
  void clear_memo() const { memo_table.clear(); }
};

// Exact rationals: the transcendental functions have no rational value.
template <class Inputs>
struct exact {
  Inputs inputs;
  using value = support::rational;
  using R = support::rational;
  R constant(long n, long d) const { return R(n, d); }
  R input(std::string_view name, std::size_t i) const { return inputs(name, i); }
  R add(const R& a, const R& b) const { return a + b; }
  R sub(const R& a, const R& b) const { return a - b; }
  R mul(const R& a, const R& b) const { return a * b; }
  R div(const R& a, const R& b) const {
    if (b == 0) throw std::domain_error("gpueq::dsl: division by zero");
    return a / b;
  }
  R neg(const R& a) const { return -a; }
  R max(const R& a, const R& b) const { return a < b ? b : a; }
  R min(const R& a, const R& b) const { return b < a ? b : a; }
  [[noreturn]] static R none(const char* f) {
    throw std::domain_error(std::string("gpueq::dsl: ") + f + " has no exact rational value; use a numeric or term domain");
  }
  R exp(const R&) const { none("exp"); }
  R log(const R&) const { none("log"); }
  R sqrt(const R&) const { none("sqrt"); }
  R rsqrt(const R&) const { none("rsqrt"); }
  R tanh(const R&) const { none("tanh"); }
};

// Lowering to terms: input elements are `name[i][j]…` by multi-index and scalars `name`, the
// names a kernel's symbolic run gives its tensors' elements and symbolic scalars.
struct lowering {
  term::store& s;
  using value = term::term_id;
  term::term_id constant(long n, long d) const { return s.constant(support::rational(n, d)); }
  term::term_id input(std::string_view name, std::size_t i) const {
    return s.input(name, {static_cast<std::uint32_t>(i)});
  }
  term::term_id input(std::string_view name, std::size_t, std::span<const std::size_t> at) const {
    std::array<std::uint32_t, 8> idx{};
    if (at.size() > idx.size()) throw std::invalid_argument("gpueq::dsl: tensors of rank above 8 are not supported");
    for (std::size_t k = 0; k < at.size(); ++k) idx[k] = static_cast<std::uint32_t>(at[k]);
    return s.input(name, std::span<const std::uint32_t>(idx.data(), at.size()));
  }
  term::term_id scalar(std::string_view name) const { return s.input(name); }
  mutable std::unordered_map<memo_key, term::term_id, memo_hash> memo_table{};
  template <class F>
  term::term_id memo(const memo_key& k, F&& compute) const {
    if (auto it = memo_table.find(k); it != memo_table.end()) return it->second;
    term::term_id v = compute();
    memo_table.emplace(k, v);
    return v;
  }
  void clear_memo() const { memo_table.clear(); }
  term::term_id add(term::term_id a, term::term_id b) const { return s.add(a, b); }
  // A reduction's terms as one flat sum, built the way a kernel's accumulation is closed
  // (store::sum_of), so that a specification and a kernel computing the same sum meet as one term.
  term::term_id sum(std::span<const term::term_id> xs) const {
    std::vector<term::summand> summands;
    summands.reserve(xs.size());
    for (term::term_id x : xs) summands.push_back({x});
    return s.sum_of(summands);
  }
  term::term_id sub(term::term_id a, term::term_id b) const { return s.sub(a, b); }
  term::term_id mul(term::term_id a, term::term_id b) const { return s.mul(a, b); }
  term::term_id div(term::term_id a, term::term_id b) const { return s.div(a, b); }
  term::term_id neg(term::term_id a) const { return s.neg(a); }
  term::term_id max(term::term_id a, term::term_id b) const { return s.max(a, b); }
  term::term_id min(term::term_id a, term::term_id b) const { return s.min(a, b); }
  term::term_id exp(term::term_id a) const { return s.exp(a); }
  term::term_id log(term::term_id a) const { return s.log(a); }
  term::term_id sqrt(term::term_id a) const { return s.sqrt(a); }
  term::term_id rsqrt(term::term_id a) const { return s.rsqrt(a); }
  term::term_id tanh(term::term_id a) const { return s.apply(term::function::tanh, a); }
};

}  // namespace gpueq::dsl
