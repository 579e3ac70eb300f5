// The final contents of one output tensor, element by element: a value, or nothing where no
// thread wrote it. Elements live in pages allocated on first write, so an output of which a run
// writes a tile costs the tile: checking CTA 0 of a 4096x4096 GEMM writes 16 K of the 16.7 M
// elements of C, and neither the run nor the comparison touches the others.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

namespace gpueq::check {

template <class T>
class element_values {
 public:
  static constexpr unsigned page_bits = 10;
  static constexpr std::uint64_t page_size = std::uint64_t{1} << page_bits;

  element_values() = default;
  // n elements, none written.
  explicit element_values(std::uint64_t n) : size_(n) {}
  // Dense values, one per element (an optional or a value).
  template <std::input_iterator It>
  element_values(It first, It last) {
    for (; first != last; ++first) push_back(std::optional<T>(*first));
  }
  element_values(const element_values& o) : size_(o.size_) { copy_pages(o); }
  element_values(element_values&&) noexcept = default;
  element_values& operator=(const element_values& o) {
    if (this != &o) {
      size_ = o.size_;
      pages_.clear();
      copy_pages(o);
    }
    return *this;
  }
  element_values& operator=(element_values&&) noexcept = default;

  std::uint64_t size() const { return size_; }
  // n elements, none written (the only value assign() takes is nullopt).
  void assign(std::uint64_t n, std::nullopt_t) {
    pages_.clear();
    size_ = n;
  }

  // Appends an element (unwritten when v is empty), as a vector would.
  void push_back(std::optional<T> v) {
    if (v) (*this)[size_] = std::move(v);
    ++size_;
  }

  // Element i, or nullopt where nothing was written.
  const std::optional<T>& operator[](std::uint64_t i) const {
    std::uint64_t p = i >> page_bits;
    if (p >= pages_.size() || !pages_[p]) return none_;
    return (*pages_[p])[i & (page_size - 1)];
  }
  // Element i for writing: allocates its page. Read through a const reference (or at()) to keep
  // an untouched page unallocated.
  std::optional<T>& operator[](std::uint64_t i) {
    std::uint64_t p = i >> page_bits;
    if (p >= pages_.size()) pages_.resize(p + 1);
    if (!pages_[p]) pages_[p] = std::make_unique<page>();
    return (*pages_[p])[i & (page_size - 1)];
  }
  const std::optional<T>& at(std::uint64_t i) const { return (*this)[i]; }

  // The first index >= i that may hold a value (it lies on an allocated page), or size(): loops
  // over the written elements step with it, `for (i = v.next(0); i < v.size(); i = v.next(i + 1))`,
  // at the cost of the pages, not of the size.
  std::uint64_t next(std::uint64_t i) const {
    for (std::uint64_t p = i >> page_bits; p < pages_.size(); ++p)
      if (pages_[p]) {
        std::uint64_t first = std::max(i, p << page_bits);
        return first < size_ ? first : size_;
      }
    return size_;
  }
  // Every element in order (for output that shows them all: `gpueq run`).
  std::vector<std::optional<T>> dense() const {
    std::vector<std::optional<T>> out(size_);
    for (std::uint64_t i = next(0); i < size_; i = next(i + 1)) out[i] = (*this)[i];
    return out;
  }
  // How many elements hold a value.
  std::uint64_t written() const {
    std::uint64_t n = 0;
    for (std::uint64_t i = next(0); i < size_; i = next(i + 1)) n += (*this)[i].has_value();
    return n;
  }

  friend bool operator==(const element_values& a, const element_values& b) {
    if (a.size_ != b.size_) return false;
    for (std::uint64_t i = std::min(a.next(0), b.next(0)); i < a.size_; i = std::min(a.next(i + 1), b.next(i + 1)))
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  using page = std::array<std::optional<T>, page_size>;
  void copy_pages(const element_values& o) {
    pages_.resize(o.pages_.size());
    for (std::size_t p = 0; p < o.pages_.size(); ++p)
      if (o.pages_[p]) pages_[p] = std::make_unique<page>(*o.pages_[p]);
  }

  std::uint64_t size_ = 0;
  std::vector<std::unique_ptr<page>> pages_;
  static inline const std::optional<T> none_{};
};

// The first index >= i at which a or b may hold a value, or their size.
template <class A, class B>
std::uint64_t next_either(const element_values<A>& a, const element_values<B>& b, std::uint64_t i) {
  return std::min(a.next(i), b.next(i));
}

}  // namespace gpueq::check
