// Printing to text and parsing it back gives the same term; parse errors carry positions.
#include <gpueq/term.hpp>

#include "../common/term_families.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

using namespace gpueq;
using term::rational;
using term::store;
using term::term_id;

namespace {

// Same store: parse(print(t)) must return the very same id.
void check_round_trip(store& s, term_id t) {
  std::string text = term::to_string(s, t);
  term_id back = term::parse(s, text);
  INFO("printed: " << text.substr(0, 400));
  CHECK(back == t);
  // And into a fresh store: printing again gives the same text (structure is store-independent).
  store fresh;
  CHECK(term::to_string(fresh, term::parse(fresh, text)) == text);
}

// Random terms over a few inputs with every operator.
term_id random_term(store& s, std::mt19937_64& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  if (depth == 0 || pick(4) == 0) {
    switch (pick(4)) {
      case 0: return s.constant(rational(pick(9) - 4, pick(4) + 1));
      case 1: return s.input("x", {static_cast<std::uint32_t>(pick(3))});
      case 2: return s.input("y");
      default: return s.input("q", {static_cast<std::uint32_t>(pick(2)), static_cast<std::uint32_t>(pick(2))});
    }
  }
  term_id a = random_term(s, rng, depth - 1), b = random_term(s, rng, depth - 1);
  try {
    switch (pick(11)) {
      case 0: return s.add(a, b);
      case 1: return s.sub(a, b);
      case 2: return s.mul(a, b);
      case 3: return s.div(a, b);
      case 4: return s.pow(a, pick(5) - 2);
      case 5: return s.exp(a);
      case 6: return s.max(a, b);
      case 7: return s.min(a, b);
      case 8: return s.sqrt(s.mul(a, a));
      case 9: return s.log(s.add(s.exp(a), s.one()));
      default: return s.apply(term::function::tanh, a);
    }
  } catch (const term::term_error&) {
    return a;
  }
}

}  // namespace

TEST_CASE("round trip of hand-written terms") {
  store s;
  for (const char* text : {"x", "x[3]", "q[2][5]", "-x", "1/3", "0.125", "-2.5e-3", "inf", "-inf",
                           "x + y", "x - y", "2*x*y", "x/y", "x^3", "x^-2", "(x + y)^2", "exp(x - max(x, y))",
                           "log(x)", "sqrt(x)", "rsqrt(x)", "min(x, y, z)", "tanh(x) + erf(y) + abs(z)",
                           "sin(x)*cos(y)", "-(x + y)", "exp(x)/(exp(x) + exp(y))", "1 - x", "-x^2", "(-x)^3"})
    check_round_trip(s, term::parse(s, text));
}

TEST_CASE("round trip of random terms") {
  store s;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 400; ++i) check_round_trip(s, random_term(s, rng, 5));
}

TEST_CASE("round trip of large chunked sums and the softmax families") {
  store s;
  check_round_trip(s, families::dot_chain(s, 300));
  check_round_trip(s, families::dot_tree(s, 300, 8));
  for (term_id y : families::softmax_online(s, 8)) check_round_trip(s, y);
}

TEST_CASE("parse errors carry line, column and a reason") {
  store s;
  struct bad {
    const char* text;
    std::size_t line, column;
    const char* reason;
  };
  for (bad b : std::initializer_list<bad>{{"x +", 1, 4, "operand"},
                                          {"exp(x", 1, 1, "never closed"},
                                          {"x)", 1, 2, ")"},
                                          {"foo(x)", 1, 1, "foo"},
                                          {"x ^ y", 1, 3, "integer"},
                                          {"x\n+ * y", 2, 3, "operand"},
                                          {"x[", 1, 3, "index"},
                                          {"3 $ 4", 1, 3, "$"},
                                          {"", 1, 1, "empty"},
                                          {"max(x)", 1, 1, "max"},
                                          {"log(-1)", 1, 1, "negative"}}) {
    INFO("input: " << std::string(b.text));
    try {
      (void)term::parse(s, b.text);
      FAIL("no error for " << b.text);
    } catch (const term::parse_error& e) {
      INFO("message: " << std::string(e.what()));
      CHECK(e.line == b.line);
      CHECK(e.column == b.column);
      CHECK(std::string(e.reason).find(b.reason) != std::string::npos);
    }
  }
}

TEST_CASE("identities split on ==") {
  store s;
  auto [f, g] = term::parse_identity(s, "x + x == 2*x");
  CHECK(f == g);
  CHECK_THROWS_AS(term::parse_identity(s, "x + x"), term::parse_error);
  CHECK_THROWS_AS(term::parse_identity(s, "x == y == z"), term::parse_error);
}

TEST_CASE("the parser survives arbitrary bytes") {
  store s;
  std::mt19937_64 rng(11);
  const std::string alphabet = "xyq[]()+-*/^,.0123456789e =maxinflogsqrtexp\n\t$";
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    for (int n = static_cast<int>(rng() % 30); n > 0; --n) text += alphabet[rng() % alphabet.size()];
    try {
      (void)term::parse(s, text);
    } catch (const term::parse_error&) {
    }
  }
  // Deep nesting does not overflow the stack.
  std::string deep(100000, '(');
  deep += "x";
  deep += std::string(100000, ')');
  CHECK(term::parse(s, deep) == s.input("x"));
  CHECK_THROWS_AS(term::parse(s, std::string(100000, '(')), term::parse_error);
}

TEST_CASE("shared text: let bindings keep a DAG linear and parse back to the same terms") {
  store s;
  auto online = families::softmax_online(s, 64);
  auto naive = families::softmax_naive(s, 64);
  std::vector<term_id> roots(online.begin(), online.end());
  roots.insert(roots.end(), naive.begin(), naive.end());
  term::shared_text text = term::to_shared_text(s, roots);
  std::size_t shared_size = 0, plain_size = 0;
  for (auto& l : text.lets) shared_size += l.size();
  for (auto& r : text.roots) shared_size += r.size();
  for (term_id r : roots) plain_size += term::to_string(s, r).size();
  CHECK(shared_size * 10 < plain_size);
  // Same store: the very same ids.
  term::let_table lets;
  for (auto& l : text.lets) term::parse_let(s, l, lets);
  for (std::size_t i = 0; i < roots.size(); ++i) CHECK(term::parse(s, text.roots[i], &lets) == roots[i]);
  // A fresh store prints the same shared text.
  store fresh;
  term::let_table fresh_lets;
  for (auto& l : text.lets) term::parse_let(fresh, l, fresh_lets);
  std::vector<term_id> fresh_roots;
  for (auto& r : text.roots) fresh_roots.push_back(term::parse(fresh, r, &fresh_lets));
  term::shared_text again = term::to_shared_text(fresh, fresh_roots);
  CHECK(again.lets == text.lets);
  CHECK(again.roots == text.roots);
}

TEST_CASE("let bindings: errors") {
  store s;
  term::let_table lets;
  term::parse_let(s, "let D = exp(x) + exp(y)", lets);
  CHECK(term::parse(s, "exp(x)/D", &lets) == term::parse(s, "exp(x)/(exp(x) + exp(y))"));
  auto error_of = [&](std::string_view text, bool binding) {
    try {
      if (binding) term::parse_let(s, text, lets);
      else (void)term::parse(s, text, &lets);
    } catch (const term::parse_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("let D = 1", true).find("already bound") != std::string::npos);
  CHECK(error_of("let exp = 1", true).find("reserved") != std::string::npos);
  CHECK(error_of("let E x", true).find("expected '='") != std::string::npos);
  CHECK(error_of("let E == x", true).find("expected '='") != std::string::npos);
  CHECK(error_of("D[3] + 1", false).find("no indices") != std::string::npos);
  CHECK(term::is_let("  let x = 1"));
  CHECK_FALSE(term::is_let("letter + 1"));
}
