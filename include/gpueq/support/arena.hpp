// An append-only arena whose elements never move: spans handed out stay valid while the arena
// grows, so interned polynomials can be read while new ones are being interned.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
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

// An append-only array of 32-bit words addressed by 32-bit indices whose words never move, so a
// span into it stays valid while it grows (a term's operands can be read while new terms are
// built). Words live in chunks of 2^20; a run longer than a chunk gets consecutive chunk numbers
// over one buffer of its own, so index → address is one shift and one load. A copy shares the
// chunks written so far, which neither side writes again: the copy appends to fresh chunks, and
// the original only past the copy's end.
class word_arena {
 public:
  static constexpr unsigned shift = 20;
  static constexpr std::uint64_t chunk = std::uint64_t{1} << shift;

  word_arena() = default;
  word_arena(const word_arena& o) : owners_(o.owners_), base_(o.base_), end_(o.end_), limit_(o.end_) {}
  word_arena& operator=(const word_arena&) = delete;

  const std::uint32_t* at(std::uint32_t i) const { return base_[i >> shift] + (i & (chunk - 1)); }
  std::uint64_t size() const { return end_; }

  // Appends the words; returns the index of the first.
  std::uint32_t append(std::span<const std::uint32_t> words) {
    std::uint64_t n = words.size();
    if (n == 0) return static_cast<std::uint32_t>(end_ & 0xffffffffu);
    if (end_ + n > limit_) {
      std::uint64_t first = base_.size(), chunks = (n + chunk - 1) >> shift;
      if ((first + chunks) << shift > (std::uint64_t{1} << 32))
        throw std::length_error("term store: operand arena is full (2^32 words)");
      std::shared_ptr<std::uint32_t[]> buffer = std::make_shared_for_overwrite<std::uint32_t[]>(chunks << shift);
      for (std::uint64_t j = 0; j < chunks; ++j) base_.push_back(buffer.get() + (j << shift));
      owners_.push_back(std::move(buffer));
      end_ = first << shift;
      limit_ = (first + chunks) << shift;
    }
    auto index = static_cast<std::uint32_t>(end_);
    std::copy(words.begin(), words.end(), base_[index >> shift] + (index & (chunk - 1)));
    end_ += n;
    return index;
  }

 private:
  std::vector<std::shared_ptr<std::uint32_t[]>> owners_;
  std::vector<std::uint32_t*> base_;  // per chunk number: its first word
  std::uint64_t end_ = 0, limit_ = 0;
};

}  // namespace gpueq::support
