// An append-only arena whose elements never move: spans handed out stay valid while the arena
// grows, so interned polynomials can be read while new ones are being interned.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace gpueq::support {

template <class T>
class stable_arena {
 public:
  explicit stable_arena(std::size_t block = 1 << 14) : block_(block) {}

  // Copies the elements into the arena; the returned span is stable.
  template <class It>
  std::span<T> append(It first, It last) {
    auto n = static_cast<std::size_t>(std::distance(first, last));
    if (blocks_.empty() || used_ + n > capacity_) {
      capacity_ = n > block_ ? n : block_;
      blocks_.push_back(std::make_unique<T[]>(capacity_));
      used_ = 0;
    }
    T* out = blocks_.back().get() + used_;
    std::copy(first, last, out);
    used_ += n;
    return {out, n};
  }

 private:
  std::size_t block_;
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t used_ = 0, capacity_ = 0;
};

}  // namespace gpueq::support
