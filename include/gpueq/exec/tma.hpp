// TMA tensor maps (issue 20 item 4): the description of a tiled tensor map, as the CUDA driver's
// cuTensorMapEncodeTiled takes it, its validation, the field updates of PTX `tensormap.replace`,
// and the geometry of one tile-mode tensor copy: for each element of the box, its tensor
// coordinate, whether it lies outside the tensor, its byte offset in global memory and its byte
// offset in the shared-memory box after the swizzle. Self-contained (standard library only): the
// engine's `cp.async.bulk.tensor` (exec/semantics/bulk_copy.hpp) asks this header where each
// element goes and completes the box's transaction bytes on the mbarrier
// (exec/semantics/mbarrier.hpp). A map lives in memory as 128 bytes (a CUtensorMap parameter, or
// a map a kernel builds with tensormap.replace): the hardware's encoding is not documented, so
// gpueq stores the fields in a layout of its own (`slot_of`, at the end of this file), which the
// engine writes for a map the spec describes and for tensormap.replace, and reads at a copy.
//
// Sources (read, not copied):
// - CUDA Driver API, "Tensor Map Object Management", cuTensorMapEncodeTiled: the fields and every
//   requirement validated below (rank 1..5, 16-byte aligned global address, globalDim 1..2^32,
//   globalStrides multiples of 16 below 2^40, boxDim 1..256 with an inner dimension that is a
//   multiple of 16 bytes and at most the swizzle span, elementStrides 1..8 with dimension 0's
//   ignored when not interleaved, ceil(boxDim/elementStride) elements traversed, the OOB-NaN fill
//   for floating-point types only). The requirements that only interleaved maps have (rank >= 3,
//   32-byte aligned address and strides, the 32-byte swizzle) are moot: interleave is refused.
// - PTX ISA 9.0, section 5.5 "Tensors": 5.5.3 tiled mode (bounding box, traversal stride,
//   out-of-boundary access: zero fill or OOB-NaN fill) and 5.5.7 "Swizzling Modes": the tables of
//   16-byte chunks per 128-byte shared-memory line (32B: lines alternate 0..7 / 1 0 3 2 5 4 7 6,
//   pattern from a 256-byte boundary; 64B: line l has chunk c at c ^ (l % 4), 512-byte boundary;
//   128B: c ^ (l % 8), 1024-byte boundary) and the "swizzle base offset" (dstMem / 128) % N when
//   the destination is not on the pattern's boundary.
// - PTX ISA 9.0, `tensormap.replace`: the field names, `.rank` written zero-based, the values of
//   the .elemtype / .interleave_layout / .swizzle_mode / .swizzle_atomicity / .fill_mode fields
//   (Table "Tensormap new_val validity"; the .elemtype numbering is not CUtensorMapDataType's).
// - CUDA C++ Programming Guide, "TMA Swizzle": 128-byte alignment of the shared destination,
//   the repeat lengths 256/512/1024, and that a box whose inner dimension is narrower than the
//   swizzle span needs shared memory for the full span per row.
//
// The swizzle, as written here from those tables: the chunk bits 4..6 of the shared-memory byte
// address are XORed with the 128-byte line bits 7..9, as many bits as the span has chunks
// (1 for 32B, 2 for 64B, 3 for 128B):  a' = a ^ (((a >> 7) & (span / 16 - 1)) << 4).
// Being a function of the address, it reproduces the ISA's base offset for a destination that is
// 128-byte but not pattern aligned; an aligned destination (1024 bytes for 128B) starts the table
// at its first line. So a copy needs only 128-byte alignment (what the Programming Guide requires;
// pattern alignment is its advice), and the caller must pass the destination's real shared-window
// address: an engine that placed a `.align 1024` shared array off its alignment would swizzle
// differently from the hardware.
//
// Semantic choices (each also said where it is made):
// - Box layout in shared memory: the traversed box (ceil(boxDim[i] / elementStrides[i]) elements
//   in dimension i >= 1, boxDim[0] in dimension 0) is dense with dimension 0 innermost; a row is
//   boxDim[0] * element size bytes, and with a swizzle each row takes the full span (a 64-byte
//   row under the 128-byte swizzle occupies 128 bytes; the Programming Guide's allocation rule).
//   The copy's transaction bytes are the elements' bytes, padding excluded (not yet checked on
//   hardware).
// - Out-of-bounds elements (a coordinate below 0 or at/after globalDim) are neither read nor
//   written in global memory. A load fills them: zero fill with zero bits; the OOB-NaN fill
//   (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) is accepted in a map but refused as not
//   modelled when a load actually has an out-of-bounds element (`fill_bits`): its value is a NaN
//   that tensor-core FMAs read as zero, which no value domain of gpueq has.
// - Stores (cp.async.bulk.tensor.global.shared::cta) and reductions (cp.reduce.async.bulk.tensor)
//   use the same geometry read the other way: the in-bounds elements' shared bytes go to (or are
//   reduced into) their global bytes; out-of-bounds elements are skipped.
// - Not modelled, refused with a message by `validate`: interleaved layouts (16B / 32B
//   interleave, the NC/8HWC8-style layouts), the 96-byte swizzle, swizzle atomicities other than
//   16 bytes, the packed sub-byte element types. L2 promotion is kept and has no effect.
// - globalStrides are not required to cover the previous dimension (the driver describes strides
//   as extent plus padding but states only alignment and range): an overlapping map aliases
//   elements exactly as its address arithmetic says.
// - dimension 0's element stride is ignored, as the driver says (the ISA says it must be 1).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::exec::tma {

// A map or copy that the hardware would reject (`invalid`), or one it accepts and gpueq does not
// model (`unsupported`). The message names the field, its value and the rule.
class map_error : public std::runtime_error {
 public:
  enum class kind : std::uint8_t { invalid, unsupported };
  map_error(kind k, const std::string& what) : std::runtime_error(what), kind_(k) {}
  kind which() const noexcept { return kind_; }

 private:
  kind kind_;
};

inline constexpr std::uint32_t max_rank = 5;
inline constexpr std::uint32_t max_box_dim = 256;
inline constexpr std::uint32_t max_element_stride = 8;
inline constexpr std::uint64_t max_global_dim = std::uint64_t{1} << 32;      // inclusive
inline constexpr std::uint64_t global_stride_limit = std::uint64_t{1} << 40;  // exclusive
inline constexpr std::uint32_t shared_alignment = 128;  // of a tensor copy's shared address

// Element types, numbered as `tensormap.replace.elemtype` numbers them (not CUtensorMapDataType).
// 13..15 are the packed sub-byte types (.b4x16, .b4x16_p64, .b6x16_p32 / .b6p2x16).
enum class element_type : std::uint8_t {
  u8, u16, u32, s32, u64, s64, f16, f32, f32_ftz, f64, bf16, tf32, tf32_ftz,
  b4x16, b4x16_p64, b6x16_p32,
};
inline constexpr std::uint32_t element_type_count = 16;

// The PTX spelling of each type (what a spec names); "f32.ftz" and "tf32.ftz" as in the ISA.
inline std::string_view name(element_type t) {
  constexpr std::string_view names[] = {"u8",   "u16",  "u32",      "s32",   "u64",       "s64",
                                        "f16",  "f32",  "f32.ftz",  "f64",   "bf16",      "tf32",
                                        "tf32.ftz", "b4x16", "b4x16_p64", "b6x16_p32"};
  return names[static_cast<std::size_t>(t)];
}

inline std::optional<element_type> parse_element_type(std::string_view s) {
  for (std::uint32_t i = 0; i < element_type_count; ++i)
    if (name(static_cast<element_type>(i)) == s) return static_cast<element_type>(i);
  return std::nullopt;
}

// Bytes per element; 0 for the packed sub-byte types (not modelled).
inline std::uint32_t element_size(element_type t) {
  constexpr std::uint32_t sizes[] = {1, 2, 4, 4, 8, 8, 2, 4, 4, 8, 2, 4, 4, 0, 0, 0};
  return sizes[static_cast<std::size_t>(t)];
}

inline bool is_floating(element_type t) {
  switch (t) {
    case element_type::f16: case element_type::f32: case element_type::f32_ftz:
    case element_type::f64: case element_type::bf16: case element_type::tf32:
    case element_type::tf32_ftz:
      return true;
    default:
      return false;
  }
}

// Values as `tensormap.replace` numbers them (and as CUtensorMapInterleave / CUtensorMapSwizzle /
// CUtensorMapFloatOOBfill do for the modes both have).
enum class interleave : std::uint8_t { none, b16, b32 };
enum class swizzle : std::uint8_t { none, b32, b64, b128, b96 };
enum class swizzle_atomicity : std::uint8_t { b16, b32, b32_flip_8b, b64 };
enum class oob_fill : std::uint8_t { zero, nan_request_zero_fma };
enum class l2_promotion : std::uint8_t { none, b64, b128, b256 };  // no effect on values

inline std::string_view name(interleave i) {
  constexpr std::string_view names[] = {"none", "16B", "32B"};
  return names[static_cast<std::size_t>(i)];
}
inline std::string_view name(swizzle s) {
  constexpr std::string_view names[] = {"none", "32B", "64B", "128B", "96B"};
  return names[static_cast<std::size_t>(s)];
}
inline std::string_view name(swizzle_atomicity a) {
  constexpr std::string_view names[] = {"16B", "32B", "32B + 8B flip", "64B"};
  return names[static_cast<std::size_t>(a)];
}
inline std::string_view name(oob_fill f) {
  constexpr std::string_view names[] = {"zero", "OOB-NaN (request zero FMA)"};
  return names[static_cast<std::size_t>(f)];
}

// Bytes within which a swizzle permutes 16-byte chunks (0 for none).
inline std::uint32_t swizzle_span(swizzle s) {
  constexpr std::uint32_t spans[] = {0, 32, 64, 128, 96};
  return spans[static_cast<std::size_t>(s)];
}

// Bytes after which a swizzle's pattern repeats (PTX ISA 5.5.7: the boundary its table starts on).
inline std::uint32_t swizzle_repeat(swizzle s) {
  constexpr std::uint32_t repeats[] = {0, 256, 512, 1024, 256};
  return repeats[static_cast<std::size_t>(s)];
}

// A tiled tensor map: the arguments of cuTensorMapEncodeTiled. Every array has a slot per possible
// dimension (tensormap.replace addresses slots by ordinal, whatever the rank); only the first
// `rank` slots (rank - 1 for strides) are part of the tensor. Dimension 0 is the contiguous one.
struct tensor_map {
  element_type type = element_type::f32;
  std::uint32_t rank = 1;
  std::uint64_t global_address = 0;  // of element (0, ..., 0); in gpueq, a global-window address
  std::array<std::uint64_t, max_rank> global_dim{1, 1, 1, 1, 1};  // elements per dimension
  // Bytes between consecutive indices of dimension i + 1 (globalStrides[i]); dimension 0's is the
  // element size.
  std::array<std::uint64_t, max_rank - 1> global_stride{};
  std::array<std::uint32_t, max_rank> box_dim{1, 1, 1, 1, 1};
  std::array<std::uint32_t, max_rank> element_stride{1, 1, 1, 1, 1};  // traversal strides
  interleave interleave_layout = interleave::none;
  swizzle swizzle_mode = swizzle::none;
  swizzle_atomicity atomicity = swizzle_atomicity::b16;
  l2_promotion l2 = l2_promotion::none;
  oob_fill fill = oob_fill::zero;

  friend bool operator==(const tensor_map&, const tensor_map&) = default;
};

namespace detail {

[[noreturn]] inline void invalid(const std::string& what) {
  throw map_error(map_error::kind::invalid, "tensor map: " + what);
}
[[noreturn]] inline void unsupported(const std::string& what) {
  throw map_error(map_error::kind::unsupported, "tensor map: " + what);
}

inline std::string hex(std::uint64_t v) {
  constexpr char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

inline std::string indexed(std::string_view array, std::uint32_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

}  // namespace detail

// Checks a map against every requirement cuTensorMapEncodeTiled states for what gpueq models, and
// refuses what it does not model; throws map_error naming the first violation (in the order of the
// driver's list). A map changed by tensormap.replace is checked when a copy uses it, since the
// fields are replaced one at a time through invalid intermediate maps.
inline void validate(const tensor_map& m) {
  using detail::indexed;
  using detail::invalid;
  using detail::unsupported;
  using std::to_string;
  if (static_cast<std::uint32_t>(m.type) >= element_type_count) invalid("unknown element type");
  if (element_size(m.type) == 0)
    unsupported("the packed sub-byte element type " + std::string(name(m.type)) +
                " is not modelled");
  if (m.rank < 1 || m.rank > max_rank) invalid("rank " + to_string(m.rank) + " is outside 1..5");
  // (a map read from memory may hold any byte in its enumerated fields)
  if (static_cast<std::uint32_t>(m.interleave_layout) > 2 || static_cast<std::uint32_t>(m.swizzle_mode) > 4 ||
      static_cast<std::uint32_t>(m.atomicity) > 3 || static_cast<std::uint32_t>(m.fill) > 1 ||
      static_cast<std::uint32_t>(m.l2) > 3)
    invalid("an interleave, swizzle, swizzle atomicity, fill or L2 promotion value out of range");
  if (m.interleave_layout != interleave::none)
    unsupported("interleaved layouts are not modelled (interleave " +
                std::string(name(m.interleave_layout)) + ")");
  if (m.swizzle_mode == swizzle::b96) unsupported("the 96B swizzle is not modelled");
  if (m.atomicity != swizzle_atomicity::b16)
    unsupported("swizzle atomicity " + std::string(name(m.atomicity)) +
                " is not modelled (16B atomicity only)");
  if (m.global_address % 16 != 0)
    invalid("the global address " + detail::hex(m.global_address) + " is not 16-byte aligned");
  for (std::uint32_t i = 0; i < m.rank; ++i)
    if (m.global_dim[i] == 0 || m.global_dim[i] > max_global_dim)
      invalid(indexed("globalDim", i) + " = " + to_string(m.global_dim[i]) + " is outside 1..2^32");
  for (std::uint32_t i = 0; i + 1 < m.rank; ++i) {
    std::uint64_t s = m.global_stride[i];
    if (s % 16 != 0)
      invalid(indexed("globalStrides", i) + " = " + to_string(s) + " bytes (dimension " +
              to_string(i + 1) + ") is not a multiple of 16");
    if (s >= global_stride_limit)
      invalid(indexed("globalStrides", i) + " = " + to_string(s) + " bytes (dimension " +
              to_string(i + 1) + ") is not below 2^40");
  }
  std::uint32_t size = element_size(m.type);
  for (std::uint32_t i = 0; i < m.rank; ++i)
    if (m.box_dim[i] == 0 || m.box_dim[i] > max_box_dim)
      invalid(indexed("boxDim", i) + " = " + to_string(m.box_dim[i]) + " is outside 1..256");
  std::uint32_t inner = m.box_dim[0] * size;
  if (inner % 16 != 0)
    invalid("the inner box dimension, boxDim[0] = " + to_string(m.box_dim[0]) + " " +
            std::string(name(m.type)) + " elements = " + to_string(inner) +
            " bytes, is not a multiple of 16 bytes");
  for (std::uint32_t i = 0; i < m.rank; ++i)
    if (m.element_stride[i] == 0 || m.element_stride[i] > max_element_stride)
      invalid(indexed("elementStrides", i) + " = " + to_string(m.element_stride[i]) +
              " is outside 1..8");
  if (std::uint32_t span = swizzle_span(m.swizzle_mode); span != 0 && inner > span)
    invalid("the inner box dimension, " + to_string(inner) + " bytes, exceeds the " +
            std::string(name(m.swizzle_mode)) + " swizzle span");
  if (m.fill == oob_fill::nan_request_zero_fma && !is_floating(m.type))
    invalid("the OOB-NaN fill needs a floating-point element type, not " +
            std::string(name(m.type)));
}

// The shared-memory address of the byte at `address` after the swizzle (PTX ISA 5.5.7, as derived
// in the header comment): chunk bits 4..6 XOR line bits 7..9, as many as the span has chunks.
inline std::uint64_t swizzle_address(swizzle s, std::uint64_t address) {
  std::uint64_t span = swizzle_span(s);
  if (span == 0) return address;
  std::uint64_t mask = span / 16 - 1;  // 1, 3 or 7 (96B is refused before it gets here)
  return address ^ (((address >> 7) & mask) << 4);
}

// The shape of a map's box in shared memory (semantic choices in the header comment).
struct box_shape {
  std::uint32_t rank = 1;
  // Elements traversed per dimension: boxDim[0], then ceil(boxDim[i] / elementStrides[i]).
  std::array<std::uint32_t, max_rank> extent{1, 1, 1, 1, 1};
  std::uint32_t element_bytes = 0;
  std::uint32_t row_bytes = 0;  // extent[0] * element_bytes
  std::uint32_t row_pitch = 0;  // row_bytes, or the swizzle span when swizzled
  // 64-bit counts: five dimensions of 256 overflow 32 bits. An engine compares shared_bytes with
  // the destination's room before it enumerates anything.
  std::uint64_t rows = 0;               // the product of extent[1..rank-1]
  std::uint64_t elements = 0;
  std::uint64_t transaction_bytes = 0;  // elements * element_bytes: what a load completes
  std::uint64_t shared_bytes = 0;       // rows * row_pitch: the shared memory the box spans
};

inline box_shape shape(const tensor_map& m) {
  validate(m);
  box_shape b;
  b.rank = m.rank;
  b.element_bytes = element_size(m.type);
  b.extent[0] = m.box_dim[0];  // dimension 0's element stride is ignored (driver API)
  for (std::uint32_t i = 1; i < m.rank; ++i)
    b.extent[i] = (m.box_dim[i] + m.element_stride[i] - 1) / m.element_stride[i];
  b.row_bytes = b.extent[0] * b.element_bytes;
  b.row_pitch = m.swizzle_mode == swizzle::none ? b.row_bytes : swizzle_span(m.swizzle_mode);
  b.rows = 1;
  for (std::uint32_t i = 1; i < m.rank; ++i) b.rows *= b.extent[i];
  b.elements = b.rows * b.extent[0];
  b.transaction_bytes = b.elements * b.element_bytes;
  b.shared_bytes = b.rows * b.row_pitch;
  return b;
}

// One element of a tile-mode copy.
struct element {
  std::uint64_t index = 0;                     // position in box order (dimension 0 fastest)
  std::array<std::int64_t, max_rank> coord{};  // tensor coordinate (unused dimensions 0)
  bool in_bounds = true;
  std::uint64_t global_offset = 0;  // bytes from global_address; 0 when out of bounds
  std::uint64_t shared_offset = 0;  // bytes from the copy's shared address, after the swizzle

  friend bool operator==(const element&, const element&) = default;
};

// Calls f(const element&) for each element of the box a tile-mode copy at tensor coordinates
// `coords` (one signed 32-bit coordinate per dimension, the box's first element; any value, the
// box may hang over any edge) moves to or from the shared address `shared_address` (the copy's
// shared-window address: the swizzle depends on its bits). Elements come in box order, dimension
// 0 fastest: the order of the unswizzled shared layout. Validates the map and the copy first.
template <class F>
void for_each_element(const tensor_map& m, std::span<const std::int32_t> coords,
                      std::uint32_t shared_address, F&& f) {
  box_shape b = shape(m);
  if (coords.size() != m.rank)
    throw map_error(map_error::kind::invalid,
                    "tensor copy: " + std::to_string(coords.size()) + " coordinates for a rank-" +
                        std::to_string(m.rank) + " tensor map");
  if (shared_address % shared_alignment != 0)
    throw map_error(map_error::kind::invalid, "tensor copy: the shared address " +
                                                  detail::hex(shared_address) +
                                                  " is not 128-byte aligned");
  std::array<std::uint64_t, max_rank> stride{};
  stride[0] = b.element_bytes;
  for (std::uint32_t i = 1; i < m.rank; ++i) stride[i] = m.global_stride[i - 1];
  std::array<std::uint32_t, max_rank> k{};  // box index per dimension
  element e;
  for (std::uint64_t row = 0; row < b.rows; ++row) {
    // k[1..] from the row number, dimension 1 fastest.
    std::uint64_t r = row;
    for (std::uint32_t i = 1; i < m.rank; ++i) {
      k[i] = static_cast<std::uint32_t>(r % b.extent[i]);
      r /= b.extent[i];
    }
    for (std::uint32_t k0 = 0; k0 < b.extent[0]; ++k0) {
      k[0] = k0;
      e.index = row * b.extent[0] + k0;
      e.in_bounds = true;
      e.global_offset = 0;
      for (std::uint32_t i = 0; i < max_rank; ++i) {
        if (i >= m.rank) {
          e.coord[i] = 0;
          continue;
        }
        std::uint32_t step = i == 0 ? 1 : m.element_stride[i];
        e.coord[i] = std::int64_t{coords[i]} + std::int64_t{k[i]} * step;
        if (e.coord[i] < 0 || static_cast<std::uint64_t>(e.coord[i]) >= m.global_dim[i])
          e.in_bounds = false;
        else
          e.global_offset += static_cast<std::uint64_t>(e.coord[i]) * stride[i];
      }
      if (!e.in_bounds) e.global_offset = 0;
      std::uint64_t linear =
          std::uint64_t{shared_address} + row * b.row_pitch + k0 * b.element_bytes;
      e.shared_offset = swizzle_address(m.swizzle_mode, linear) - shared_address;
      f(static_cast<const element&>(e));
    }
  }
}

// A copy's geometry as a whole.
struct copy_plan {
  box_shape shape;
  std::vector<element> elements;  // box order
  std::uint64_t out_of_bounds = 0;  // how many elements lie outside the tensor
};

inline copy_plan plan_copy(const tensor_map& m, std::span<const std::int32_t> coords,
                           std::uint32_t shared_address) {
  copy_plan p;
  p.shape = shape(m);
  p.elements.reserve(static_cast<std::size_t>(p.shape.elements));
  for_each_element(m, coords, shared_address, [&](const element& e) {
    p.elements.push_back(e);
    if (!e.in_bounds) ++p.out_of_bounds;
  });
  return p;
}

// The bits a load writes for an out-of-bounds element: zero for the zero fill. The OOB-NaN fill is
// refused (see the header comment); the engine asks only when a load has such an element.
inline std::uint64_t fill_bits(const tensor_map& m) {
  if (m.fill == oob_fill::zero) return 0;
  detail::unsupported(
      "the OOB-NaN fill (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) of an out-of-bounds "
      "element is not modelled; use the zero fill or keep the boxes inside the tensor");
}

// ---------------------------------------------------------------------------------------------
// tensormap.replace: one field of a map set to a new value, as the PTX instruction
//   tensormap.replace.tile.<field>{.ss}.b1024.<type> [addr], {ord,} new_val;
// does it. Checks what the instruction and the field can hold (ordinals 0..4, 0..3 for strides;
// a zero-based .rank; the value tables of the enumerated fields; ranges and alignments a field
// must have), nothing that relates fields: a map is written field by field, so it is checked as a
// whole (`validate`) when a copy uses it.

enum class field : std::uint8_t {
  global_address, rank, box_dim, global_dim, global_stride, element_stride,
  elemtype, interleave_layout, swizzle_mode, swizzle_atomicity, fill_mode,
};
inline constexpr std::uint32_t field_count = 11;

inline std::string_view name(field f) {
  constexpr std::string_view names[] = {
      "global_address", "rank",     "box_dim",           "global_dim",   "global_stride",
      "element_stride", "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity",
      "fill_mode"};
  return names[static_cast<std::size_t>(f)];
}

inline std::optional<field> parse_field(std::string_view s) {
  for (std::uint32_t i = 0; i < field_count; ++i)
    if (name(static_cast<field>(i)) == s) return static_cast<field>(i);
  return std::nullopt;
}

// Fields addressed per dimension (the instruction's `ord` operand).
inline bool has_ordinal(field f) {
  return f == field::box_dim || f == field::global_dim || f == field::global_stride ||
         f == field::element_stride;
}

// Width of new_val: .b64 for global_address and global_stride, .b32 otherwise.
inline std::uint32_t value_bits(field f) {
  return f == field::global_address || f == field::global_stride ? 64 : 32;
}

inline void replace(tensor_map& m, field f, std::optional<std::uint32_t> ord,
                    std::uint64_t new_val) {
  using std::to_string;
  std::string where = "tensormap.replace." + std::string(name(f));
  auto bad = [&](const std::string& what) -> void {
    throw map_error(map_error::kind::invalid, where + ": " + what);
  };
  if (has_ordinal(f) && !ord) bad("needs an ordinal");
  if (!has_ordinal(f) && ord) bad("takes no ordinal");
  std::uint32_t slots = f == field::global_stride ? max_rank - 1 : max_rank;
  if (ord && *ord >= slots)
    bad("ordinal " + to_string(*ord) + " is outside 0.." + to_string(slots - 1));
  if (value_bits(f) == 32 && new_val > 0xffffffffu)
    bad("new_val " + to_string(new_val) + " does not fit its .b32 operand");
  auto in = [&](std::uint64_t lo, std::uint64_t hi) {
    if (new_val < lo || new_val > hi)
      bad("new_val " + to_string(new_val) + " is outside " + to_string(lo) + ".." + to_string(hi));
  };
  switch (f) {
    case field::global_address:
      if (new_val % 16 != 0) bad("the address " + detail::hex(new_val) + " is not 16-byte aligned");
      m.global_address = new_val;
      break;
    case field::rank:  // zero-based: new_val is the rank minus one
      if (new_val > max_rank - 1)
        bad("new_val " + to_string(new_val) + " is outside 0..4 (the field is zero-based: rank " +
            to_string(new_val + 1) + " of 1..5)");
      m.rank = static_cast<std::uint32_t>(new_val) + 1;
      break;
    case field::box_dim:
      in(1, max_box_dim);
      m.box_dim[*ord] = static_cast<std::uint32_t>(new_val);
      break;
    case field::global_dim:  // a .b32 operand: 1..2^32-1 here (2^32 only through the driver)
      in(1, 0xffffffffu);
      m.global_dim[*ord] = new_val;
      break;
    case field::global_stride:
      if (new_val % 16 != 0) bad("the stride " + to_string(new_val) + " is not a multiple of 16");
      if (new_val >= global_stride_limit)
        bad("the stride " + to_string(new_val) + " is not below 2^40");
      m.global_stride[*ord] = new_val;
      break;
    case field::element_stride:
      in(1, max_element_stride);
      m.element_stride[*ord] = static_cast<std::uint32_t>(new_val);
      break;
    case field::elemtype:
      in(0, element_type_count - 1);
      m.type = static_cast<element_type>(new_val);
      break;
    case field::interleave_layout:
      in(0, 2);
      m.interleave_layout = static_cast<interleave>(new_val);
      break;
    case field::swizzle_mode:
      in(0, 4);
      m.swizzle_mode = static_cast<swizzle>(new_val);
      break;
    case field::swizzle_atomicity:
      in(0, 3);
      m.atomicity = static_cast<swizzle_atomicity>(new_val);
      break;
    case field::fill_mode:
      in(0, 1);
      m.fill = static_cast<oob_fill>(new_val);
      break;
  }
}

// The same by the instruction's field name ("box_dim", "swizzle_mode", ...).
inline void replace(tensor_map& m, std::string_view field_name, std::optional<std::uint32_t> ord,
                    std::uint64_t new_val) {
  std::optional<field> f = parse_field(field_name);
  if (!f)
    throw map_error(map_error::kind::invalid,
                    "tensormap.replace: unknown field '" + std::string(field_name) + "'");
  replace(m, *f, ord, new_val);
}

// ---------------------------------------------------------------------------------------------
// The 128-byte in-memory form of a map (gpueq's own layout; the hardware's is undocumented, and
// kernels only write it through tensormap.replace and copy it whole). Little-endian fields:
//   0: global_address (8)          8 + 8i: global_stride[i] (8, i < 4)
//   40 + 4i: global_dim[i] (4)     60 + 4i: box_dim[i] (4)     80 + 4i: element_stride[i] (4)
//   100: rank - 1 (4, zero-based as tensormap.replace writes it)
//   104: elemtype, 105: interleave, 106: swizzle, 107: swizzle atomicity, 108: fill, 109: L2 (1 each)
// A map of all zero bytes is therefore rank 1 with zero extents: invalid until its fields are set.

inline constexpr std::uint32_t map_bytes = 128;

struct field_slot {
  std::uint32_t offset = 0, width = 0;
};

inline field_slot slot_of(field f, std::uint32_t ord = 0) {
  switch (f) {
    case field::global_address: return {0, 8};
    case field::global_stride: return {8 + 8 * ord, 8};
    case field::global_dim: return {40 + 4 * ord, 4};
    case field::box_dim: return {60 + 4 * ord, 4};
    case field::element_stride: return {80 + 4 * ord, 4};
    case field::rank: return {100, 4};
    case field::elemtype: return {104, 1};
    case field::interleave_layout: return {105, 1};
    case field::swizzle_mode: return {106, 1};
    case field::swizzle_atomicity: return {107, 1};
    case field::fill_mode: return {108, 1};
  }
  return {};
}
inline constexpr field_slot l2_slot{109, 1};

// The stored bits of field f (dimension ord) of m.
inline std::uint64_t stored(const tensor_map& m, field f, std::uint32_t ord = 0) {
  switch (f) {
    case field::global_address: return m.global_address;
    case field::global_stride: return m.global_stride[ord];
    case field::global_dim: return m.global_dim[ord];
    case field::box_dim: return m.box_dim[ord];
    case field::element_stride: return m.element_stride[ord];
    case field::rank: return m.rank - 1;
    case field::elemtype: return static_cast<std::uint64_t>(m.type);
    case field::interleave_layout: return static_cast<std::uint64_t>(m.interleave_layout);
    case field::swizzle_mode: return static_cast<std::uint64_t>(m.swizzle_mode);
    case field::swizzle_atomicity: return static_cast<std::uint64_t>(m.atomicity);
    case field::fill_mode: return static_cast<std::uint64_t>(m.fill);
  }
  return 0;
}

// Calls put(slot, bits) for every stored field of m (what a CUtensorMap parameter holds).
template <class Put>
void encode(const tensor_map& m, Put&& put) {
  for (std::uint32_t i = 0; i < field_count; ++i) {
    auto f = static_cast<field>(i);
    std::uint32_t n = !has_ordinal(f) ? 1 : f == field::global_stride ? max_rank - 1 : max_rank;
    for (std::uint32_t ord = 0; ord < n; ++ord) put(slot_of(f, ord), stored(m, f, ord));
  }
  put(l2_slot, static_cast<std::uint64_t>(m.l2));
}

// The map whose fields get(slot) reads back (the inverse of encode; validate it before use).
// Enumerations out of range are kept as read, for validate to name.
template <class Get>
tensor_map decode(Get&& get) {
  tensor_map m;
  m.global_address = get(slot_of(field::global_address));
  for (std::uint32_t i = 0; i < max_rank - 1; ++i) m.global_stride[i] = get(slot_of(field::global_stride, i));
  for (std::uint32_t i = 0; i < max_rank; ++i) {
    m.global_dim[i] = get(slot_of(field::global_dim, i));
    m.box_dim[i] = static_cast<std::uint32_t>(get(slot_of(field::box_dim, i)));
    m.element_stride[i] = static_cast<std::uint32_t>(get(slot_of(field::element_stride, i)));
  }
  m.rank = static_cast<std::uint32_t>(get(slot_of(field::rank))) + 1;
  m.type = static_cast<element_type>(get(slot_of(field::elemtype)));
  m.interleave_layout = static_cast<interleave>(get(slot_of(field::interleave_layout)));
  m.swizzle_mode = static_cast<swizzle>(get(slot_of(field::swizzle_mode)));
  m.atomicity = static_cast<swizzle_atomicity>(get(slot_of(field::swizzle_atomicity)));
  m.fill = static_cast<oob_fill>(get(slot_of(field::fill_mode)));
  m.l2 = static_cast<l2_promotion>(get(l2_slot));
  return m;
}

}  // namespace gpueq::exec::tma
