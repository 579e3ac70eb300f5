// Byte-addressed memory whose contents are cells. A region (a tensor, a shared array, a thread's
// local depot) maps each byte to the stored value that covers it, so accesses of any width and
// alignment are resolved by byte ranges, never by first address (a float4 store read back as four
// floats, two halves read as one f16x2 word, a packed word read as one half). A value read whole
// comes back as the very cell that was stored: symbolic data never needs splitting into bytes.
// Only when a read mixes pieces of values does the region ask for their bits, which exist for
// concrete values only; a symbolic value read in pieces is a clear error.
//
// Byte-to-value slots live in pages allocated on first touch, so a large tensor of which a CTA
// touches a tile costs memory for the tile. A slot stands for a granule of bytes, as large as
// every store so far allows (region::store): a float tensor written and read by whole floats keeps
// one slot per element, not four, and a store of a smaller or misaligned piece refines the
// region's granules once. What a slot means (the value covering a given byte) does not depend on
// the granule.
#pragma once

#include <gpueq/exec/launch.hpp>
#include <gpueq/exec/observer.hpp>
#include <gpueq/exec/values.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::exec {

// 32 bytes, aligned to 32, so that two stored values share a cache line and none straddles two:
// a warp's load waits on one line per lane for the value it reads (with the place's 8 bytes
// apart from the cell, 40 bytes, the float32 flash attention ran about 5 % slower). Offsets are
// below 2^40 (region::max_bytes), and widths, one value's bytes (at most 16), below 2^22.
template <class R>
struct alignas(32) stored_value {
  stored_value(cell<R> c, std::uint64_t off, std::uint32_t w, bool m) noexcept
      : value(std::move(c)), offset(off & ((std::uint64_t{1} << 40) - 1)), width(w & ((1u << 22) - 1)),
        materialized(m), intact(true) {}
  cell<R> value;
  std::uint64_t offset : 40;
  std::uint64_t width : 22;
  // An input element (or one of given contents) read and kept here so that later reads see the
  // same value: the element is not written, so touched_elements and an output read pass over it.
  std::uint64_t materialized : 1;
  // No later store covered a part of it: every byte of [offset, offset + width) still holds it.
  // Once false, its remaining bytes are read as pieces (region::exact declines it).
  std::uint64_t intact : 1;
};

template <class R>
class region {
 public:
  // Pages of 512 slots (2 KiB; 512 bytes to 4 KiB of the region by the granule): a CTA that
  // reads a column tile of a row-major matrix touches a few bytes of every row, and each row it
  // touches costs a page; with pages of 4096 byte slots a 128-column tile of a 4096x4096 matrix
  // cost 64 MiB of zeroed slots per CTA.
  static constexpr unsigned page_bits = 9;
  static constexpr std::uint64_t page_size = std::uint64_t{1} << page_bits;
  // The largest region (stored_value's offsets); launch refuses larger tensors.
  static constexpr std::uint64_t max_bytes = std::uint64_t{1} << 40;

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
  std::uint32_t slot(std::uint64_t offset) const { return slot_of_granule(offset >> shift_); }
  // Whether some byte of [offset, offset + width) has a slot (a stored or materialized value),
  // and whether some byte has none: slot() of each byte, one lookup per granule.
  bool any_slot(std::uint64_t offset, std::uint32_t width) const { return any_granule(offset, width, true); }
  bool any_empty(std::uint64_t offset, std::uint32_t width) const { return any_granule(offset, width, false); }
  const stored_value<R>& value(std::uint32_t slot_id) const { return values_[slot_id - 1]; }
  const std::vector<stored_value<R>>& values() const { return values_; }

  // Stores a cell over [offset, offset + width). The caller checked bounds. `materialized`: the
  // cell is an input element's value being read, not a write.
  void store(std::uint64_t offset, std::uint32_t width, cell<R> c, bool materialized = false) {
    std::uint32_t s = slot(offset);
    if (s && values_[s - 1].offset == offset && values_[s - 1].width == width && values_[s - 1].intact) {
      values_[s - 1].value = std::move(c);  // the same place again: overwrite in place
      values_[s - 1].materialized = materialized;
      return;
    }
    values_.emplace_back(std::move(c), offset, width, materialized);
    auto id = static_cast<std::uint32_t>(values_.size());
    // The granule: on the first store the largest power of two up to 8 bytes that its offset and
    // width are multiples of; a later store that does not cover whole granules refines them.
    const auto fit = static_cast<unsigned>(std::min(3, std::countr_zero(offset | width)));
    if (values_.size() == 1 && pages_.empty()) shift_ = fit;
    else if (fit < shift_) refine(fit);
    for (std::uint64_t g = offset >> shift_; g < (offset + width) >> shift_; ++g) {
      std::uint32_t& slot_of = slot_ref(g);
      // A value this one covers only in part is no longer whole anywhere.
      if (slot_of) {
        stored_value<R>& old = values_[slot_of - 1];
        if (old.offset < offset || old.offset + old.width > offset + width) old.intact = false;
      }
      slot_of = id;
    }
  }
  // Bytes per slot (tests, statistics).
  std::uint32_t granule() const { return std::uint32_t{1} << shift_; }

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
    if (v.offset != offset || v.width != width || !v.intact) return nullptr;
    return &v.value;
  }

 private:
  using page = std::array<std::uint32_t, page_size>;
  // Whether some granule of [offset, offset + width) has a slot (filled) or has none (!filled).
  bool any_granule(std::uint64_t offset, std::uint32_t width, bool filled) const {
    if (width == 0) return false;
    for (std::uint64_t g = offset >> shift_, last = (offset + width - 1) >> shift_; g <= last; ++g)
      if ((slot_of_granule(g) != 0) == filled) return true;
    return false;
  }
  std::uint32_t slot_of_granule(std::uint64_t g) const {
    const std::uint64_t p = g >> page_bits;
    if (p >= pages_.size() || !pages_[p]) return 0;
    return (*pages_[p])[g & (page_size - 1)];
  }
  std::uint32_t& slot_ref(std::uint64_t granule) {
    std::uint64_t p = granule >> page_bits;
    if (p >= pages_.size()) pages_.resize(p + 1);
    if (!pages_[p]) pages_[p] = std::make_unique<page>();
    return (*pages_[p])[granule & (page_size - 1)];
  }
  // Granules of 2^shift bytes (shift < shift_) from the present ones: each slot repeated.
  void refine(unsigned shift) {
    const std::uint64_t f = std::uint64_t{1} << (shift_ - shift);
    std::vector<std::unique_ptr<page>> old = std::move(pages_);
    pages_.clear();
    shift_ = shift;
    for (std::uint64_t p = 0; p < old.size(); ++p)
      if (old[p])
        for (std::uint64_t i = 0; i < page_size; ++i)
          if (std::uint32_t id = (*old[p])[i])
            for (std::uint64_t j = 0; j < f; ++j) slot_ref(((p << page_bits) + i) * f + j) = id;
  }

  unsigned shift_ = 0;  // a slot per 2^shift_ bytes
  std::vector<std::unique_ptr<page>> pages_;
  std::vector<stored_value<R>> values_;
};

}  // namespace gpueq::exec
