#include <gpueq/support/hash.hpp>
#include <gpueq/support/rational.hpp>

#include <doctest/doctest.h>

using namespace gpueq::support;

TEST_CASE("rational printing is exact: short decimals, otherwise p/q") {
  CHECK(to_string(rational(3)) == "3");
  CHECK(to_string(rational(-5, 2)) == "-2.5");
  CHECK(to_string(rational(1, 8)) == "0.125");
  CHECK(to_string(rational(1, 3)) == "1/3");
  CHECK(to_string(rational(-2, 7)) == "-2/7");
}

TEST_CASE("decimal parsing is exact") {
  CHECK(*parse_decimal("0.125") == rational(1, 8));
  CHECK(*parse_decimal("2.5e-3") == rational(1, 400));
  CHECK_FALSE(parse_decimal("-1").has_value());  // unsigned: the sign is an operator
  CHECK(*parse_decimal("1e3") == rational(1000));
  CHECK(*parse_decimal("7") == rational(7));
  CHECK_FALSE(parse_decimal("").has_value());
  CHECK_FALSE(parse_decimal("1.2.3").has_value());
  CHECK_FALSE(parse_decimal("e5").has_value());
  CHECK_FALSE(parse_decimal("1e").has_value());
}

TEST_CASE("printing and parsing decimals round-trip") {
  for (long long p : {-1000003LL, -7LL, 0LL, 1LL, 12345LL})
    for (long long q : {1LL, 2LL, 4LL, 5LL, 1024LL, 1000LL}) {
      rational r(p, q);
      auto text = to_string(r);
      if (text.find('/') != std::string::npos) continue;
      auto back = parse_decimal(text[0] == '-' ? text.substr(1) : text);
      REQUIRE(back.has_value());
      CHECK((text[0] == '-' ? rational(-*back) : *back) == r);
    }
}

TEST_CASE("integer helpers") {
  CHECK(to_int64(rational(42)) == 42);
  CHECK_FALSE(to_int64(rational(1, 2)).has_value());
  CHECK(pow_int(rational(2, 3), 3) == rational(8, 27));
  CHECK(pow_int(rational(2, 3), -2) == rational(9, 4));
  CHECK(pow_int(rational(5), 0) == rational(1));
  CHECK(*exact_sqrt(rational(9, 16)) == rational(3, 4));
  CHECK_FALSE(exact_sqrt(rational(2)).has_value());
  CHECK_FALSE(exact_sqrt(rational(-4)).has_value());
}

TEST_CASE("hashes mix") {
  CHECK(mix64(1) != mix64(2));
  CHECK(hash_string("x") != hash_string("y"));
  CHECK(hash_combine(1, 2) != hash_combine(2, 1));
}
