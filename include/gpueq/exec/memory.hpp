// Byte-addressed memory whose contents are cells. A region (a tensor, a shared array, a thread's
// local depot) maps each byte to the stored value that covers it, so accesses of any width and
// alignment are resolved by byte ranges, never by first address (a float4 store read back as four
// floats, two halves read as one f16x2 word, a packed word read as one half). A value read whole
// comes back as the very cell that was stored: symbolic data never needs splitting into bytes.
// Only when a read mixes pieces of values does the region ask for their bits, which exist for
// concrete values only; a symbolic value read in pieces is a clear error.
//
// Byte-to-value slots live in pages allocated on first touch, so a large tensor of which a CTA
// touches a tile costs memory for the tile.
#pragma once

#include <gpueq/exec/launch.hpp>
#include <gpueq/exec/observer.hpp>
#include <gpueq/exec/values.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::exec {

template <class R>
struct stored_value {
  cell<R> value;
  std::uint64_t offset = 0;
  std::uint32_t width = 0;
  // An input element (or one of given contents) read and kept here so that later reads see the
  // same value: the element is not written, so touched_elements and an output read pass over it.
  bool materialized = false;
};

template <class R>
class region {
 public:
  // 512-byte pages (2 KiB of slots): a CTA that reads a column tile of a row-major matrix
  // touches a few bytes of every row, and each row it touches costs a page; with 4 KiB pages a
  // 128-column tile of a 4096x4096 matrix cost 64 MiB of zeroed slots per CTA.
  static constexpr unsigned page_bits = 9;
  static constexpr std::uint64_t page_size = std::uint64_t{1} << page_bits;

  memory_space space = memory_space::global;
  std::string name;
  std::uint64_t base = 0;   // address of byte 0 in its state space's window
  std::uint64_t bytes = 0;
  std::uint32_t element_bytes = 4;
  // Declared as bytes (`.b8 buf[N]`, the dynamic shared array, a thread's local depot): the PTX
  // says nothing of the elements' type, so messages name a place by its byte offset.
  bool byte_indexed = false;
  rkind kind = rkind::f32;  // what an input element is
  bool inputs = false;      // unwritten elements are inputs (input and inout tensors)
  // Unwritten elements hold these contents (a tensor the host initialized), whatever `inputs` says.
  const given_contents* given = nullptr;
  bool output = false;
  std::uint32_t tensor = 0;  // launch tensor index, for inputs
  std::vector<std::uint64_t> shape;

  // 0: the byte was never written; else 1 + index into values().
  std::uint32_t slot(std::uint64_t offset) const {
    std::uint64_t p = offset >> page_bits;
    if (p >= pages_.size() || !pages_[p]) return 0;
    return (*pages_[p])[offset & (page_size - 1)];
  }
  const stored_value<R>& value(std::uint32_t slot_id) const { return values_[slot_id - 1]; }
  const std::vector<stored_value<R>>& values() const { return values_; }

  // Stores a cell over [offset, offset + width). The caller checked bounds. `materialized`: the
  // cell is an input element's value being read, not a write.
  void store(std::uint64_t offset, std::uint32_t width, cell<R> c, bool materialized = false) {
    std::uint32_t s = slot(offset);
    if (s && values_[s - 1].offset == offset && values_[s - 1].width == width) {
      values_[s - 1].value = std::move(c);  // the same place again: overwrite in place
      values_[s - 1].materialized = materialized;
      return;
    }
    values_.push_back({std::move(c), offset, width, materialized});
    auto id = static_cast<std::uint32_t>(values_.size());
    for (std::uint64_t b = offset; b < offset + width; ++b) set_slot(b, id);
  }

  // The indices of the elements that some store touched, ascending and distinct: the union of
  // every stored value's byte range (materialized inputs left out). A value later overwritten in
  // part still names its elements, which stay written. Costs what was stored, not the region's
  // size.
  std::vector<std::uint64_t> touched_elements() const {
    std::vector<std::uint64_t> out;
    for (const auto& v : values_)
      if (!v.materialized)
        for (std::uint64_t e = v.offset / element_bytes; e * element_bytes < v.offset + v.width; ++e) out.push_back(e);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // Whether some byte of [offset, offset + width) holds a written (not materialized) value.
  bool written(std::uint64_t offset, std::uint32_t width) const {
    for (std::uint64_t b = offset; b < offset + width; ++b)
      if (std::uint32_t s = slot(b); s && !values_[s - 1].materialized) return true;
    return false;
  }

  // The stored value that covers exactly [offset, offset + width), if any.
  const cell<R>* exact(std::uint64_t offset, std::uint32_t width) const {
    std::uint32_t s = slot(offset);
    if (!s) return nullptr;
    const auto& v = values_[s - 1];
    if (v.offset != offset || v.width != width) return nullptr;
    return &v.value;
  }

 private:
  void set_slot(std::uint64_t offset, std::uint32_t id) {
    std::uint64_t p = offset >> page_bits;
    if (p >= pages_.size()) pages_.resize(p + 1);
    if (!pages_[p]) pages_[p] = std::make_unique<std::array<std::uint32_t, page_size>>();
    (*pages_[p])[offset & (page_size - 1)] = id;
  }

  std::vector<std::unique_ptr<std::array<std::uint32_t, page_size>>> pages_;
  std::vector<stored_value<R>> values_;
};

}  // namespace gpueq::exec
