// Sorting sequences that arrive nearly in order. An accumulation's products come in loop order,
// and their factors' ids rise with the loop except within a tile, where the threads that loaded
// it made them in another order: each entry is a few places from where it belongs. Insertion
// sort costs about n times that distance there, where std::sort costs n log n whatever the input.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

namespace gpueq::support {

// Sorts [first, last) by `less` (not stably): by insertion while the elements have moved at most
// `distance` places each on average, then, if they move more, by std::sort from where it is.
template <class It, class Less>
void sort_nearly_sorted(It first, It last, Less less, std::size_t distance = 8) {
  const auto n = static_cast<std::size_t>(last - first);
  if (n < 2) return;
  const std::size_t budget = distance * n;
  std::size_t moved = 0;
  for (It i = std::next(first); i != last; ++i) {
    if (!less(*i, *std::prev(i))) continue;
    auto v = std::move(*i);
    It j = i;
    do {
      *j = std::move(*std::prev(j));
      --j;
    } while (j != first && less(v, *std::prev(j)) && ++moved <= budget);
    *j = std::move(v);
    if (moved > budget) {  // far from sorted: the rest of the way by std::sort
      std::sort(first, last, less);
      return;
    }
  }
}

}  // namespace gpueq::support
