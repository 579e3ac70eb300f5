// support::sort_nearly_sorted against std::sort (an independent model): shuffled, reversed,
// permuted within blocks of 8 (an accumulation's products by tile), with repeated values, empty
// and single-element inputs; and a custom order.
#include <gpueq/support/sort.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

TEST_CASE("sort_nearly_sorted sorts what std::sort sorts, near order or not") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 600; ++trial) {
    const int n = static_cast<int>(rng() % 300);
    std::vector<int> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
    switch (trial % 4) {
      case 0: std::shuffle(v.begin(), v.end(), rng); break;  // far from sorted: falls back
      case 1:  // each block of 8 permuted: insertion only
        for (int i = 0; i + 8 <= n; i += 8) std::shuffle(v.begin() + i, v.begin() + i + 8, rng);
        break;
      case 2: std::reverse(v.begin(), v.end()); break;
      default: break;  // sorted already
    }
    if (trial % 2)  // repeated values
      for (auto& x : v)
        if (rng() % 5 == 0) x = v[rng() % v.size()];
    CAPTURE(trial);
    auto want = v;
    std::sort(want.begin(), want.end());
    gpueq::support::sort_nearly_sorted(v.begin(), v.end(), std::less<>());
    CHECK(v == want);
  }
  // By another order, with a small distance budget.
  std::vector<int> v = {3, 2, 1, 6, 5, 4, 9, 8, 7};
  gpueq::support::sort_nearly_sorted(v.begin(), v.end(), std::greater<>(), 1);
  CHECK(v == std::vector<int>{9, 8, 7, 6, 5, 4, 3, 2, 1});
}
