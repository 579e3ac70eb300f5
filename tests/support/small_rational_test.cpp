#include <gpueq/support/small_rational.hpp>

#include <doctest/doctest.h>

#include <limits>
#include <random>

using gpueq::support::rational;
using gpueq::support::small_rational;

TEST_CASE("small_rational agrees with GMP rationals, across the 64-bit boundary") {
  std::mt19937_64 rng(5);
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  std::vector<rational> values = {rational(0), rational(1), rational(-1), rational(1, 3), rational(-7, 2),
                                  rational(big), rational(-big - 1), rational(big, 3), rational(1, big),
                                  rational(big) * 4, rational(3, 2) / rational(big) / 5};
  for (int i = 0; i < 200; ++i) {
    auto n = static_cast<std::int64_t>(rng() >> (rng() % 64));
    auto d = static_cast<std::int64_t>((rng() >> (rng() % 64)) | 1);
    values.emplace_back(rng() % 2 ? n : -n, d);
  }
  for (auto& a : values)
    for (std::size_t j = 0; j < values.size(); j += 7) {
      const rational& b = values[j];
      small_rational x(a), y(b);
      CHECK((x + y).to_rational() == a + b);
      CHECK((x - y).to_rational() == a - b);
      CHECK((x * y).to_rational() == a * b);
      if (b != 0) CHECK((x / y).to_rational() == a / b);
      CHECK((x == y) == (a == b));
      CHECK(((x <=> y) < 0) == (a < b));
      CHECK((-x).to_rational() == -a);
      // Canonical: equal values have equal representations and hashes, whatever the path.
      small_rational z = x + y - y;
      CHECK(z == x);
      CHECK(z.hash() == x.hash());
      CHECK(z.is_small() == x.is_small());
    }
  CHECK_THROWS(small_rational(1) / small_rational(0));
}

TEST_CASE("small_rational: shared denominators and cross-cancelled products stay canonical") {
  // Coefficients of one scale (k/256, k/2^40) take the 64-bit paths of + and ·; results must equal
  // GMP's, with the same representation as a value built from GMP directly.
  std::mt19937_64 rng(11);
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  std::vector<rational> values = {rational(0), rational(lo, 1), rational(hi, 1), rational(lo, hi), rational(hi, 2),
                                  rational(1, std::int64_t{1} << 62), rational(-3, std::int64_t{1} << 62)};
  for (std::int64_t d : {std::int64_t{256}, std::int64_t{1} << 40, std::int64_t{6}, hi})
    for (int i = 0; i < 24; ++i) {
      auto n = static_cast<std::int64_t>(rng() >> (rng() % 64));
      values.emplace_back(rng() % 2 ? n : -n, d);
    }
  for (auto& a : values)
    for (auto& b : values) {
      small_rational x(a), y(b);
      small_rational sum = x + y, product = x * y;
      CHECK(sum.to_rational() == a + b);
      CHECK(product.to_rational() == a * b);
      CHECK(sum == small_rational(rational(a + b)));
      CHECK(sum.hash() == small_rational(rational(a + b)).hash());
      CHECK(product == small_rational(rational(a * b)));
      CHECK(product.is_small() == small_rational(rational(a * b)).is_small());
    }
}

TEST_CASE("bits: numerator and denominator sizes, small or not, as the expansion budget reads them") {
  CHECK(small_rational(1).bits() == 2);
  CHECK(small_rational(rational(-3, 4)).bits() == 5);
  CHECK(small_rational(std::numeric_limits<std::int64_t>::min()).bits() == 65);
  rational big = gpueq::support::pow_int(rational(2), 100) / 3;  // 2^100 / 3: 101 + 2 bits
  CHECK(small_rational(big).bits() == 103);
  CHECK(gpueq::support::bit_size(big) == 103);
}
