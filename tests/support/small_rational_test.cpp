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
