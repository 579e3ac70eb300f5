// The DSL: the same specification evaluated at compile time, at run time in double and exact
// rationals, and lowered to terms, where it is proved equal to the kernel-shaped families.
#include <gpueq/canon.hpp>
#include <gpueq/dsl.hpp>
#include <gpueq/term.hpp>

#include "../common/term_families.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace dsl = gpueq::dsl;
using namespace gpueq;
using dsl::constant;
using dsl::var;
using dsl::tensor;

namespace {

constexpr var<'i'> i;
constexpr var<'j'> j;
constexpr var<'k'> k;

// Specifications, each a few lines.
constexpr tensor<"x", 8> x;
constexpr auto softmax = dsl::exp(x(i)) / dsl::sum<j, 0, 8>(dsl::exp(x(j)));
constexpr auto softmax_stable =
    dsl::exp(x(i) - dsl::max_over<j, 0, 8>(x(j))) / dsl::sum<j, 0, 8>(dsl::exp(x(j) - dsl::max_over<k, 0, 8>(x(k))));

constexpr auto mean = dsl::sum<j, 0, 8>(x(j)) / 8;
constexpr auto variance = dsl::sum<j, 0, 8>((x(j) - mean) * (x(j) - mean)) / 8;
constexpr auto layernorm = (x(i) - mean) * dsl::rsqrt(variance + constant(1, 100000));

constexpr tensor<"A", 4, 3> A;
constexpr tensor<"B", 3, 5> B;
constexpr tensor<"C", 4, 5> C;
constexpr auto gemm = constant(3, 2) * dsl::sum<k, 0, 3>(A(i, k) * B(k, j)) + constant(1, 2) * C(i, j);

constexpr tensor<"img", 6> img;
constexpr tensor<"w", 3> w;
constexpr auto conv1d = dsl::sum<k, 0, 3>(img(i + k) * w(k));

// Deterministic inputs usable in constant expressions.
constexpr double input_value(std::string_view name, std::size_t n) {
  double base = name == "x" ? 0.25 : name == "A" ? -0.5 : name == "B" ? 0.75 : name == "w" ? 0.5 : 1.0;
  return base + static_cast<double>(n % 7) * 0.125 - static_cast<double>(n % 3) * 0.25;
}
struct inputs_t {
  constexpr double operator()(std::string_view name, std::size_t n) const { return input_value(name, n); }
};

template <class E, auto... Out>
constexpr double at_compile_time(const E& e, dsl::bindings b) {
  dsl::constexpr_real<inputs_t> d{inputs_t{}};
  return dsl::evaluate(e, d, b);
}

constexpr bool close(double a, double b) { return (a - b) < 1e-12 && (b - a) < 1e-12; }

// Compile-time checks: the specifications evaluate in constant expressions.
constexpr double softmax_total() {
  dsl::constexpr_real<inputs_t> d{inputs_t{}};
  double t = 0;
  for (long n = 0; n < 8; ++n) t += dsl::evaluate(softmax, d, dsl::bindings{}.with('i', n));
  return t;
}
static_assert(close(softmax_total(), 1.0), "softmax sums to 1");
static_assert(close(at_compile_time(softmax, dsl::bindings{}.with('i', 3)),
                    at_compile_time(softmax_stable, dsl::bindings{}.with('i', 3))),
              "the max-shifted softmax has the same value");
static_assert(close(at_compile_time(conv1d, dsl::bindings{}.with('i', 2)),
                    input_value("img", 2) * input_value("w", 0) + input_value("img", 3) * input_value("w", 1) +
                        input_value("img", 4) * input_value("w", 2)),
              "1-D convolution");
static_assert(close(at_compile_time(gemm, dsl::bindings{}.with('i', 1).with('j', 4)),
                    1.5 * (input_value("A", 3) * input_value("B", 4) + input_value("A", 4) * input_value("B", 9) +
                           input_value("A", 5) * input_value("B", 14)) +
                        0.5 * input_value("C", 9)),
              "GEMM element (1, 4)");
static_assert(close(dsl::cmath::exp(1.0), 2.718281828459045), "constexpr exp");
static_assert(close(dsl::cmath::log(10.0), 2.302585092994046), "constexpr log");
static_assert(close(dsl::cmath::sqrt(2.0), 1.4142135623730951), "constexpr sqrt");
static_assert(dsl::is_closed<decltype(dsl::sum<j, 0, 8>(x(j)))>);
static_assert(!dsl::is_closed<decltype(softmax)>);

// Output definitions, scalar parameters and let-bindings (the form of check/spec_check.hpp's
// specifications). The scalar "eps" reads input ("eps", 0) = 1 in the inputs above.
constexpr tensor<"y", 8> y;
constexpr dsl::scalar<"eps"> eps;
constexpr auto layernorm_def = [] {
  auto m = dsl::let(dsl::sum<j, 0, 8>(x(j)) / 8);
  auto v = dsl::let(dsl::sum<j, 0, 8>((x(j) - m) * (x(j) - m)) / 8);
  return dsl::define(y(i), (x(i) - m) * dsl::rsqrt(v + eps));
}();
constexpr auto layernorm_eps1 = (x(i) - mean) * dsl::rsqrt(variance + 1);
constexpr auto gemm_def = dsl::define(C(i, j), gemm);

constexpr double def_at(std::size_t n) {
  dsl::constexpr_real<inputs_t> d{inputs_t{}};
  return layernorm_def.at(d, n);
}
static_assert(layernorm_def.size() == 8 && gemm_def.size() == 20 && gemm_def.rank == 2);
static_assert(close(def_at(5), at_compile_time(layernorm_eps1, dsl::bindings{}.with('i', 5))),
              "a let-bound layernorm definition has the plain expression's value");
static_assert(close([] {
                dsl::constexpr_real<inputs_t> d{inputs_t{}};
                return gemm_def.at(d, 9);  // row 1, column 4
              }(),
              at_compile_time(gemm, dsl::bindings{}.with('i', 1).with('j', 4))),
              "a definition's flat index is row-major over its output variables");

}  // namespace

TEST_CASE("let-bindings are evaluated once per value of their free indices") {
  std::size_t reads = 0;
  struct counting {
    std::size_t* reads;
    double operator()(std::string_view name, std::size_t n) const {
      ++*reads;
      return input_value(name, n);
    }
  };
  dsl::numeric<double, counting> f64{counting{&reads}};
  std::vector<double> with_let;
  layernorm_def.tabulate(f64, [&](std::size_t, double v) { with_let.push_back(v); });
  std::size_t let_reads = reads;
  reads = 0;
  std::vector<double> plain;
  dsl::tabulate<i>(layernorm_eps1, f64, {8}, [&](std::size_t, double v) { plain.push_back(v); });
  REQUIRE(with_let.size() == plain.size());
  for (std::size_t n = 0; n < plain.size(); ++n) CHECK(with_let[n] == doctest::Approx(plain[n]).epsilon(1e-12));
  // Each copy of a let in the expression tree is evaluated once (the mean's three copies: 3 × 8
  // reads), the variance's sum once (16), then x(i) and eps per element (16). Without let, every
  // element recomputes both sums, and the variance the mean in each of its 8 terms.
  CHECK(let_reads == 3 * 8 + 16 + 16);
  CHECK(reads > 10 * let_reads);
}

TEST_CASE("lowering names inputs by multi-index and scalars by name, as a kernel's symbolic run does") {
  term::store s;
  dsl::lowering lower{s};
  term::term_id a = dsl::evaluate(A(i, k), lower, dsl::bindings{}.with('i', 2).with('k', 1));
  CHECK(a == s.input("A", {2, 1}));
  CHECK(dsl::evaluate(eps, lower) == s.input("eps"));
  // A let lowers to the same term as its body (the memo only saves work).
  term::term_id via_let = dsl::evaluate(dsl::let(x(j) * 2), lower, dsl::bindings{}.with('j', 3));
  CHECK(via_let == dsl::evaluate(x(j) * 2, lower, dsl::bindings{}.with('j', 3)));
  std::vector<term::term_id> ys;
  gemm_def.tabulate(lower, [&](std::size_t n, term::term_id t) {
    CHECK(n == ys.size());
    ys.push_back(t);
  });
  CHECK(ys.size() == 20);
  CHECK(ys[9] == dsl::evaluate(gemm, lower, dsl::bindings{}.with('i', 1).with('j', 4)));
}

TEST_CASE("compile-time, double, and lowered-term values agree") {
  auto f64 = dsl::numeric<double, inputs_t>{inputs_t{}};
  term::store s;
  dsl::lowering lower{s};
  auto check = [&](const auto& e, std::array<long, 2> ext) {
    std::vector<double> by_double;
    std::vector<term::term_id> terms;
    dsl::tabulate<i, j>(e, f64, ext, [&](std::size_t, double v) { by_double.push_back(v); });
    dsl::tabulate<i, j>(e, lower, ext, [&](std::size_t, term::term_id t) { terms.push_back(t); });
    REQUIRE(by_double.size() == terms.size());
    // Lowered inputs are named by multi-index, as a kernel run names them.
    canon::evaluator<double> ev(s, [&](term::term_id in) {
      std::string_view name = s.tensor_name(in);
      std::size_t cols = name == "A" ? 3 : name == "B" || name == "C" ? 5 : 1;
      auto idx = s.input_indices(in);
      std::size_t flat = idx.size() == 2 ? idx[0] * cols + idx[1] : idx[0];
      return support::rational(input_value(name, flat));
    });
    for (std::size_t n = 0; n < terms.size(); ++n) {
      auto v = ev(terms[n]);
      REQUIRE(v.has_value());
      CHECK(*v == doctest::Approx(by_double[n]).epsilon(1e-12));
    }
  };
  check(softmax, {8, 1});
  check(layernorm, {8, 1});
  check(gemm, {4, 5});
  check(conv1d, {4, 1});
  // The compile-time value equals the run-time one.
  CHECK(at_compile_time(layernorm, dsl::bindings{}.with('i', 5)) ==
        doctest::Approx(dsl::evaluate(layernorm, f64, dsl::bindings{}.with('i', 5))).epsilon(1e-12));
}

TEST_CASE("exact rationals, and the functions they cannot evaluate") {
  struct exact_inputs {
    support::rational operator()(std::string_view, std::size_t n) const { return support::rational(static_cast<long>(n) + 1, 3); }
  };
  dsl::exact<exact_inputs> q{exact_inputs{}};
  // C = 3/2·A·B + 1/2·C at (0, 0) with A[n] = B[n] = C[n] = (n+1)/3.
  support::rational want = support::rational(3, 2) *
                               (support::rational(1, 3) * support::rational(1, 3) + support::rational(2, 3) * support::rational(6, 3) +
                                support::rational(3, 3) * support::rational(11, 3)) +
                           support::rational(1, 2) * support::rational(1, 3);
  CHECK(dsl::evaluate(gemm, q, dsl::bindings{}.with('i', 0).with('j', 0)) == want);
  CHECK_THROWS_AS(dsl::evaluate(softmax, q, dsl::bindings{}.with('i', 0)), std::domain_error);
}

TEST_CASE("a DSL specification meets kernel-shaped terms in the store") {
  term::store s;
  dsl::lowering lower{s};
  auto naive = families::softmax_naive(s, 8);
  auto online = families::softmax_online(s, 8);
  canon::decider decide(s);
  dsl::tabulate<i>(softmax_stable, lower, {8}, [&](std::size_t n, term::term_id t) {
    CHECK(decide(t, naive[n]).kind == canon::verdict_kind::equal);
    CHECK(decide(t, online[n]).kind == canon::verdict_kind::equal);
  });
  // A wrong specification is refuted with a counterexample.
  constexpr auto wrong = dsl::exp(x(i)) / dsl::sum<j, 0, 7>(dsl::exp(x(j)));
  dsl::tabulate<i>(wrong, lower, {8}, [&](std::size_t n, term::term_id t) {
    auto v = decide(t, online[n]);
    CHECK(v.kind == canon::verdict_kind::different);
    CHECK(v.witness.has_value());
  });
}

TEST_CASE("an index outside a tensor's shape is an error") {
  term::store s;
  dsl::lowering lower{s};
  CHECK_THROWS_AS(dsl::evaluate(conv1d, lower, dsl::bindings{}.with('i', 4)), std::out_of_range);
}
