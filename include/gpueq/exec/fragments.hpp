// Fragment layouts of the warp-level matrix instructions (mma.sync, ldmatrix, wmma): for each
// lane of a warp and each element of the lane's fragment, the (row, col) of the matrix element it
// holds, and back. The engine runs these instructions as data exchanges among the 32 lanes: it
// gathers the operands' matrices from the lanes' registers with the *_holder functions, computes
// over whole matrices, and scatters the result with the *_element functions. Everything is a
// closed formula (no tables), constexpr, and checked by the check_*_layout functions.
//
// Sources: NVIDIA PTX ISA (section numbers as in the 9.x documentation; titles are stable across
// versions, numbers drift):
//   9.7.14.5.6  Matrix Fragments for mma.m16n8k4
//   9.7.14.5.7  Matrix Fragments for mma.m16n8k8
//   9.7.14.5.8  Matrix Fragments for mma.m16n8k16 with floating point type
//   9.7.14.5.15 Warp-level matrix load instruction: ldmatrix
//   9.7.14.4.1  Matrix Fragments for WMMA; 9.7.14.4.2 Matrix Storage for WMMA;
//   9.7.14.4.3  Warp-level Matrix Load Instruction: wmma.load
//
// Conventions. A is M x K, B is K x N, C and D are M x N, all indexed (row, col) of the
// mathematical matrix whatever the memory layout. "index" is the ISA's element subscript i of
// a_i, b_i, c_i: elements listed low to high, so element i sits in register
// i / elements_per_register, and where a 32-bit register packs two 16-bit elements the lower
// index is the low half.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>

namespace gpueq::exec::fragments {

inline constexpr std::uint32_t warp_size = 32;

struct coord {
  std::uint32_t row = 0, col = 0;
  friend constexpr bool operator==(coord, coord) = default;
};

// A place in the warp's fragment registers: a lane and an element index within its fragment.
struct slot {
  std::uint32_t lane = 0, index = 0;
  friend constexpr bool operator==(slot, slot) = default;
};

struct extent {
  std::uint32_t rows = 0, cols = 0;
  friend constexpr bool operator==(extent, extent) = default;
};

enum class element_type : std::uint8_t { f16, bf16, tf32, f32 };
enum class operand : std::uint8_t { a, b, c };  // c stands for C and D: they share one layout

// How many elements one 32-bit register holds: .f16x2 / .bf16 pairs pack two, a .tf32 or .f32
// element fills a register (9.7.14.5.x fragment tables, 9.7.14.4.1).
constexpr std::uint32_t elements_per_register(element_type t) {
  return t == element_type::f16 || t == element_type::bf16 ? 2 : 1;
}

namespace detail {

// Out-of-range arguments are caller bugs: in a constant expression the throw makes it a compile
// error, at run time a logic error the engine reports instead of reading a wrong register.
constexpr void require(bool ok, const char* what) {
  if (!ok) throw std::out_of_range(what);
}

constexpr std::uint32_t group_id(std::uint32_t lane) { return lane >> 2; }           // %laneid >> 2
constexpr std::uint32_t thread_in_group(std::uint32_t lane) { return lane % 4; }     // %laneid % 4
constexpr std::uint32_t lane_of(std::uint32_t group, std::uint32_t thread) { return 4 * group + thread; }

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// mma.sync.aligned.{m16n8k4, m16n8k8, m16n8k16}.row.col with f16 / bf16 / tf32 multiplicands.
// The layout depends on the shape and on the multiplicand type (.atype = .btype), never on the
// accumulator type: the ISA gives C/D one formula for .f16 and .f32 accumulators, which differ
// only in packing (elements_per_register).

enum class mma_shape : std::uint8_t { m16n8k4, m16n8k8, m16n8k16 };

constexpr std::uint32_t mma_k(mma_shape s) {
  return s == mma_shape::m16n8k4 ? 4 : s == mma_shape::m16n8k8 ? 8 : 16;
}

// The (shape, multiplicand type) pairs whose fragments the ISA gives for these shapes (f64 and
// the integer types are left out: our corpus has none): m16n8k4 .tf32; m16n8k8 .f16/.bf16/.tf32;
// m16n8k16 .f16/.bf16.
constexpr bool mma_supported(mma_shape s, element_type ab) {
  switch (s) {
    case mma_shape::m16n8k4: return ab == element_type::tf32;
    case mma_shape::m16n8k8: return ab != element_type::f32;
    case mma_shape::m16n8k16: return ab == element_type::f16 || ab == element_type::bf16;
  }
  return false;
}

constexpr extent mma_extent(mma_shape s, operand o) {
  switch (o) {
    case operand::a: return {16, mma_k(s)};
    case operand::b: return {mma_k(s), 8};
    case operand::c: return {16, 8};
  }
  return {};
}

// Every element is held by exactly one lane, so a lane holds a 32nd of the matrix.
constexpr std::uint32_t mma_elements_per_lane(mma_shape s, operand o) {
  const extent e = mma_extent(s, o);
  return e.rows * e.cols / warp_size;
}

// Registers of the operand's vector expression; t is that operand's own type (the multiplicand
// type for a and b, the accumulator type .ctype/.dtype for c).
constexpr std::uint32_t mma_registers_per_lane(mma_shape s, operand o, element_type t) {
  return mma_elements_per_lane(s, o) / elements_per_register(t);
}

// (row, col) of element `index` of `lane`'s fragment of operand o; ab is the multiplicand type.
constexpr coord mma_element(mma_shape s, operand o, element_type ab, std::uint32_t lane,
                            std::uint32_t index) {
  detail::require(mma_supported(s, ab), "mma_element: shape and type not supported");
  detail::require(lane < warp_size && index < mma_elements_per_lane(s, o),
                  "mma_element: lane or element index out of range");
  const std::uint32_t g = detail::group_id(lane), t = detail::thread_in_group(lane);
  const bool tf32 = ab == element_type::tf32;
  switch (o) {
    case operand::a:
      if (s == mma_shape::m16n8k16)
        // 9.7.14.5.8, A .f16/.bf16: row = groupID for ai where 0 <= i < 2 || 4 <= i < 6,
        // groupID + 8 otherwise; col = (threadID_in_group * 2) + (i & 0x1) for i < 4, + 8 for i >= 4
        return {g + 8 * ((index >> 1) & 1), 2 * t + (index & 1) + 8 * (index >> 2)};
      if (s == mma_shape::m16n8k4)
        // 9.7.14.5.6, A .tf32: row = groupID for a0, groupID + 8 for a1; col = threadID_in_group
        return {g + 8 * index, t};
      if (tf32)
        // 9.7.14.5.7, A .tf32: row = groupID for a0 and a2, groupID + 8 for a1 and a3;
        // col = threadID_in_group for a0 and a1, threadID_in_group + 4 for a2 and a3
        return {g + 8 * (index & 1), t + 4 * (index >> 1)};
      // 9.7.14.5.7, A .f16/.bf16: row = groupID for a0 and a1, groupID + 8 for a2 and a3;
      // col = threadID_in_group * 2 + (i & 0x1)
      return {g + 8 * (index >> 1), 2 * t + (index & 1)};
    case operand::b:
      if (s == mma_shape::m16n8k16)
        // 9.7.14.5.8, B .f16/.bf16: row = (threadID_in_group * 2) + (i & 0x1) for bi where i < 2,
        // + 8 for i >= 2; col = groupID
        return {2 * t + (index & 1) + 8 * (index >> 1), g};
      if (s == mma_shape::m16n8k4)
        // 9.7.14.5.6, B .tf32: row = threadID_in_group; col = groupID
        return {t, g};
      if (tf32)
        // 9.7.14.5.7, B .tf32: row = threadID_in_group for b0, threadID_in_group + 4 for b1;
        // col = groupID
        return {t + 4 * index, g};
      // 9.7.14.5.7, B .f16/.bf16: row = (threadID_in_group * 2) + i for bi; col = groupID
      return {2 * t + index, g};
    case operand::c:
      // 9.7.14.5.6 / .7 / .8, C/D (all three shapes, .f16 and .f32 accumulators alike):
      // row = groupID for c0 and c1, groupID + 8 for c2 and c3;
      // col = (threadID_in_group * 2) + (i & 0x1)
      return {g + 8 * (index >> 1), 2 * t + (index & 1)};
  }
  return {};
}

// The one slot holding element (row, col): mma_element solved for lane and index.
constexpr slot mma_holder(mma_shape s, operand o, element_type ab, coord at) {
  detail::require(mma_supported(s, ab), "mma_holder: shape and type not supported");
  const extent e = mma_extent(s, o);
  detail::require(at.row < e.rows && at.col < e.cols, "mma_holder: coordinate out of the matrix");
  const std::uint32_t r = at.row, c = at.col;
  const bool tf32 = ab == element_type::tf32;
  switch (o) {
    case operand::a:
      if (s == mma_shape::m16n8k16)
        return {detail::lane_of(r % 8, (c % 8) / 2), (c & 1) + 2 * (r / 8) + 4 * (c / 8)};
      if (s == mma_shape::m16n8k4) return {detail::lane_of(r % 8, c), r / 8};
      if (tf32) return {detail::lane_of(r % 8, c % 4), (r / 8) + 2 * (c / 4)};
      return {detail::lane_of(r % 8, c / 2), (c & 1) + 2 * (r / 8)};
    case operand::b:
      if (s == mma_shape::m16n8k16) return {detail::lane_of(c, (r % 8) / 2), (r & 1) + 2 * (r / 8)};
      if (s == mma_shape::m16n8k4) return {detail::lane_of(c, r), 0};
      if (tf32) return {detail::lane_of(c, r % 4), r / 4};
      return {detail::lane_of(c, r / 2), r & 1};
    case operand::c:
      return {detail::lane_of(r % 8, c / 2), (c & 1) + 2 * (r / 8)};
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 (9.7.14.5.15).
//
// Addresses: "The eight addresses required for each matrix are provided by eight threads ...
// Each address corresponds to the start of a matrix row. Addresses addr0-addr7 correspond to
// the rows of the first matrix, addresses addr8-addr15 correspond to the rows of the second
// matrix, and so on" (.x1: threads 0-7; .x2: 0-15; .x4: 0-31). So lane l supplies row l % 8 of
// matrix l / 8; lanes past 8 * count supply nothing (for sm_80 their addresses are ignored; the
// ISA asks for valid ones only at sm_75 and below).
//
// Data: "Each component of the vector expression holds a fragment from the corresponding matrix":
// destination register r receives from matrix r. Within a matrix, "Each thread in a warp loads
// fragments of a row, with thread 0 receiving the first fragment in its register r, and so on. A
// group of four threads loads an entire row of the matrix" (Figure 104): lane l receives row
// l / 4, 16-bit columns 2 * (l % 4) and 2 * (l % 4) + 1, the lower column in the low half (the
// four threads' 32-bit pieces tile the 16-byte row in order). ".trans indicates that the matrix
// is loaded in column-major format": the same picture over the transposed matrix, so lane l
// receives column l / 4 of stored rows 2 * (l % 4) and 2 * (l % 4) + 1. The text states the
// .trans case only in words; that it matches the mma B layout when B is stored row-major K x N
// (what .trans is for) is checked in tests/exec/fragments_test.cpp.

inline constexpr std::uint32_t ldmatrix_rows = 8, ldmatrix_cols = 8;

struct ldmatrix_row {
  std::uint32_t matrix = 0, row = 0;
  friend constexpr bool operator==(ldmatrix_row, ldmatrix_row) = default;
};

constexpr bool ldmatrix_count_valid(std::uint32_t count) { return count == 1 || count == 2 || count == 4; }

// Whether lane's address operand is used by an ldmatrix loading `count` (1, 2, 4) matrices.
constexpr bool ldmatrix_supplies_address(std::uint32_t count, std::uint32_t lane) {
  detail::require(ldmatrix_count_valid(count) && lane < warp_size,
                  "ldmatrix_supplies_address: count or lane out of range");
  return lane < ldmatrix_rows * count;
}

// The matrix row whose start address lane supplies.
constexpr ldmatrix_row ldmatrix_address_row(std::uint32_t lane) {
  detail::require(lane < warp_size, "ldmatrix_address_row: lane out of range");
  return {lane / ldmatrix_rows, lane % ldmatrix_rows};
}

// The lane supplying the start address of row `row` of matrix `matrix`.
constexpr std::uint32_t ldmatrix_row_source(std::uint32_t matrix, std::uint32_t row) {
  detail::require(matrix < 4 && row < ldmatrix_rows, "ldmatrix_row_source: matrix or row out of range");
  return ldmatrix_rows * matrix + row;
}

// The element that half `half` (0 low, 1 high) of lane's destination register r receives, as
// (row, col) of stored matrix r: row is the row whose address lane ldmatrix_row_source(r, row)
// supplied, col the 16-bit element offset from that address. Same for every r.
constexpr coord ldmatrix_element(bool trans, std::uint32_t lane, std::uint32_t half) {
  detail::require(lane < warp_size && half < 2, "ldmatrix_element: lane or half out of range");
  const coord plain{detail::group_id(lane), 2 * detail::thread_in_group(lane) + half};
  return trans ? coord{plain.col, plain.row} : plain;
}

// Which lane and half receive element (row, col) of a stored matrix: ldmatrix_element inverted.
constexpr slot ldmatrix_holder(bool trans, coord at) {
  detail::require(at.row < ldmatrix_rows && at.col < ldmatrix_cols, "ldmatrix_holder: coordinate out of the matrix");
  const coord plain = trans ? coord{at.col, at.row} : at;
  return {detail::lane_of(plain.row, plain.col / 2), plain.col % 2};
}

// ---------------------------------------------------------------------------------------------
// stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 [p], r (PTX ISA 7.8, sm_90;
// "Warp-level matrix store instruction: stmatrix"): ldmatrix run backwards. The ISA describes it
// in ldmatrix's words with "store" for "load": the eight row addresses of matrix i come from
// threads 8i..8i+7 (ldmatrix_row_source), "each component of the vector expression holds a
// fragment from the corresponding matrix", "each thread in a warp stores fragments of a row, with
// thread 0 storing the first fragment from its register r ... A group of four threads stores an
// entire row of the matrix", and ".trans indicates that the matrix is stored in column-major
// format". So element (row, col) of stored matrix r comes from the half ldmatrix_holder(trans,
// {row, col}) of register r, and an ldmatrix of what an stmatrix stored (same addresses, same
// .trans) gives every lane its registers back (checked in tests/exec/fragments_test.cpp).
// (The .m16n8 .b8 shape is sm_100 and not modelled.)
constexpr slot stmatrix_source(bool trans, coord at) { return ldmatrix_holder(trans, at); }

// movmatrix.sync.aligned.m8n8.trans.b16 d, a (PTX ISA 7.8, sm_75; "Warp-level matrix transpose:
// movmatrix"): one 8x8 matrix of 16-bit elements in the row fragment layout of ldmatrix (and of
// mma's A and C): "each thread in a warp holds a fragment of a row of the input matrix ... A group
// of four threads holds an entire row" (lane l: row l / 4, columns 2 (l % 4) + {0, 1}, the lower
// column in the low half). d holds the transpose in the same layout; the ISA's Figure 110 draws
// it over the input's coordinates ("a group of four threads holds an entire column of the result
// matrix"): half h of lane l's d is input element (2 (l % 4) + h, l / 4). This returns the lane
// and half of `a` that hold it.
constexpr slot movmatrix_source(std::uint32_t lane, std::uint32_t half) {
  detail::require(lane < warp_size && half < 2, "movmatrix_source: lane or half out of range");
  const coord out = ldmatrix_element(false, lane, half);  // (l / 4, 2 (l % 4) + h) of the result
  return ldmatrix_holder(false, coord{out.col, out.row});
}

// ---------------------------------------------------------------------------------------------
// wmma.{load,mma,store} .m16n16k16 (9.7.14.4), as nvcc emits them for sm_80:
//   wmma.load.a.sync.aligned.{row,col}.m16n16k16{.global,.shared}.f16   8 .b32 (.f16x2) registers
//   wmma.load.b ... .f16                                               8 .b32 (.f16x2) registers
//   wmma.load.c / wmma.store.d ... .f32                                8 .f32 registers
//   wmma.mma.sync.aligned.{row,col}.{row,col}.m16n16k16.f32.f32        d, a, b, c as above
// and, from the same table, .bf16 a/b (4 .b32 registers of two) and .f16 c/d (4 .f16x2).
//
// Semantics decision. The ISA leaves the layout open: "The distribution of fragments loaded by
// the threads in a warp is unspecified and is target architecture dependent, and hence the
// identity of the fragment within the matrix is also unspecified" (9.7.14.4.1). A kernel can
// therefore only rely on what survives every layout: load -> mma -> store computes the product,
// load -> store copies, and uniform element-wise arithmetic on all fragment registers acts on
// every matrix element alike (the ISA's "Manipulating fragment contents"). So we model a wmma
// fragment as a whole-warp object, the full matrix, and fix one layout of our own, used by load,
// mma and store alike; any layout consistent between them gives exactly those guarantees, and a
// kernel whose result depended on the real distribution is outside what the ISA defines. Our
// layout reuses the mma.m16n8k16 layouts (a 16x16 B or C/D is two 16x8 halves side by side), so
// a kernel that (wrongly) mixes wmma fragments with mma.sync still gets a deterministic answer;
// it is not a claim about the hardware.
//
// Register counts come from the ISA table (9.7.14.4.1), and they do not always make a bijection:
// .f16 A and B are "eight .f16x2 registers", 16 halves x 32 lanes = 512 for a 256-element
// matrix, so every element is held twice. We make the layout a surjection: elements 8..15 of a
// lane repeat its elements 0..7 (registers 4..7 repeat registers 0..3). wmma_element maps every
// slot to its element (load writes all copies, store may read any), wmma_holder names the
// canonical copy (index < 8) that mma and store gather from. The other fragments (.bf16 A/B,
// .f32 and .f16 C/D) hold 8 elements a lane: a bijection.
//
// The memory layout qualifier (.row/.col) of wmma.load/wmma.store only says how the matrix sits
// in memory (wmma_memory_offset); the fragment is the mathematical matrix either way, so the
// .alayout/.blayout of wmma.mma add nothing to our semantics (the ISA requires them to match the
// loads; a mismatch is undefined there and computes the natural product here).

inline constexpr std::uint32_t wmma_m = 16, wmma_n = 16, wmma_k = 16;

// The fragment kinds we model: .f16/.bf16 a and b, .f16/.f32 c (= d).
constexpr bool wmma_supported(operand o, element_type t) {
  if (o == operand::c) return t == element_type::f16 || t == element_type::f32;
  return t == element_type::f16 || t == element_type::bf16;
}

// Registers of the fragment's vector expression, from 9.7.14.4.1: .f16 A or B "eight .f16x2
// registers"; .bf16 .m16n16k16 A or B "four .b32 registers, with each register containing two
// elements"; .f16 C or D "four .f16x2 registers"; .f32 C or D "eight .f32 registers".
constexpr std::uint32_t wmma_registers_per_lane(operand o, element_type t) {
  detail::require(wmma_supported(o, t), "wmma_registers_per_lane: fragment kind not supported");
  if (o == operand::c) return t == element_type::f32 ? 8 : 4;
  return t == element_type::f16 ? 8 : 4;
}

constexpr std::uint32_t wmma_elements_per_lane(operand o, element_type t) {
  return wmma_registers_per_lane(o, t) * elements_per_register(t);
}

// How many slots hold each matrix element: 2 for .f16 A and B, 1 otherwise.
constexpr std::uint32_t wmma_copies(operand o, element_type t) {
  return wmma_elements_per_lane(o, t) * warp_size / (wmma_m * wmma_n);
}

// The number of distinct elements a lane holds (the canonical indices are 0 .. this - 1).
inline constexpr std::uint32_t wmma_distinct_per_lane = wmma_m * wmma_n / warp_size;  // 8

constexpr coord wmma_element(operand o, element_type t, std::uint32_t lane, std::uint32_t index) {
  detail::require(wmma_supported(o, t), "wmma_element: fragment kind not supported");
  detail::require(lane < warp_size && index < wmma_elements_per_lane(o, t),
                  "wmma_element: lane or element index out of range");
  const std::uint32_t i = index % wmma_distinct_per_lane;  // the copy for .f16 a/b
  switch (o) {
    case operand::a:  // the whole 16x16 A is one mma.m16n8k16 A fragment
      return mma_element(mma_shape::m16n8k16, operand::a, element_type::f16, lane, i);
    case operand::b: {  // elements 0..3: B columns 0..7, elements 4..7: columns 8..15
      const coord e = mma_element(mma_shape::m16n8k16, operand::b, element_type::f16, lane, i % 4);
      return {e.row, e.col + 8 * (i / 4)};
    }
    case operand::c: {  // elements 0..3: C columns 0..7, elements 4..7: columns 8..15
      const coord e = mma_element(mma_shape::m16n8k16, operand::c, element_type::f16, lane, i % 4);
      return {e.row, e.col + 8 * (i / 4)};
    }
  }
  return {};
}

// The canonical slot of element (row, col): the one mma and store read.
constexpr slot wmma_holder(operand o, element_type t, coord at) {
  detail::require(wmma_supported(o, t), "wmma_holder: fragment kind not supported");
  detail::require(at.row < wmma_m && at.col < wmma_n, "wmma_holder: coordinate out of the matrix");
  if (o == operand::a) return mma_holder(mma_shape::m16n8k16, operand::a, element_type::f16, at);
  const slot s = mma_holder(mma_shape::m16n8k16, o, element_type::f16, {at.row, at.col % 8});
  return {s.lane, s.index + 4 * (at.col / 8)};
}

enum class matrix_layout : std::uint8_t { row, col };

// Element offset of (row, col) from the matrix's base address for wmma.load/wmma.store
// (9.7.14.4.2): row-major keeps a row's elements contiguous and `stride` elements from one row's
// start to the next; column-major the same for columns. The default stride is 16 for every
// m16n16k16 matrix.
constexpr std::uint64_t wmma_memory_offset(matrix_layout layout, coord at, std::uint32_t stride = 16) {
  return layout == matrix_layout::row ? std::uint64_t{at.row} * stride + at.col
                                      : std::uint64_t{at.col} * stride + at.row;
}

// ---------------------------------------------------------------------------------------------
// Self-checks: walk every slot of a layout and every element of its matrix.

struct layout_report {
  bool in_bounds = true;         // every slot maps inside the matrix
  std::uint32_t min_copies = 0;  // fewest slots holding one element
  std::uint32_t max_copies = 0;  // most slots holding one element
  bool holders_agree = true;     // element(holder(x)) == x for every element x
  constexpr bool bijective() const { return in_bounds && holders_agree && min_copies == 1 && max_copies == 1; }
  constexpr bool covers(std::uint32_t copies) const {
    return in_bounds && holders_agree && min_copies == copies && max_copies == copies;
  }
};

namespace detail {

// Matrices here have at most 16 x 16 elements.
template <class Element, class Holder>
constexpr layout_report check_layout(extent e, std::uint32_t lanes, std::uint32_t per_lane,
                                     Element element, Holder holder) {
  layout_report report;
  std::array<std::uint32_t, 256> copies{};
  if (e.rows * e.cols > copies.size()) return {false, 0, 0, false};
  for (std::uint32_t lane = 0; lane < lanes; ++lane)
    for (std::uint32_t i = 0; i < per_lane; ++i) {
      const coord at = element(lane, i);
      if (at.row >= e.rows || at.col >= e.cols) {
        report.in_bounds = false;
        continue;
      }
      ++copies[at.row * e.cols + at.col];
    }
  report.min_copies = ~std::uint32_t{0};
  for (std::uint32_t r = 0; r < e.rows; ++r)
    for (std::uint32_t c = 0; c < e.cols; ++c) {
      const std::uint32_t n = copies[r * e.cols + c];
      report.min_copies = n < report.min_copies ? n : report.min_copies;
      report.max_copies = n > report.max_copies ? n : report.max_copies;
      const slot s = holder(coord{r, c});
      if (s.lane >= lanes || s.index >= per_lane || !(element(s.lane, s.index) == coord{r, c}))
        report.holders_agree = false;
    }
  return report;
}

}  // namespace detail

constexpr layout_report check_mma_layout(mma_shape s, operand o, element_type ab) {
  return detail::check_layout(
      mma_extent(s, o), warp_size, mma_elements_per_lane(s, o),
      [=](std::uint32_t lane, std::uint32_t i) { return mma_element(s, o, ab, lane, i); },
      [=](coord at) { return mma_holder(s, o, ab, at); });
}

// One 8x8 matrix: every lane receives two halves per destination register.
constexpr layout_report check_ldmatrix_layout(bool trans) {
  return detail::check_layout(
      {ldmatrix_rows, ldmatrix_cols}, warp_size, 2,
      [=](std::uint32_t lane, std::uint32_t half) { return ldmatrix_element(trans, lane, half); },
      [=](coord at) { return ldmatrix_holder(trans, at); });
}

// Covers each element wmma_copies(o, t) times.
constexpr layout_report check_wmma_layout(operand o, element_type t) {
  return detail::check_layout(
      {wmma_m, wmma_n}, warp_size, wmma_elements_per_lane(o, t),
      [=](std::uint32_t lane, std::uint32_t i) { return wmma_element(o, t, lane, i); },
      [=](coord at) { return wmma_holder(o, t, at); });
}

}  // namespace gpueq::exec::fragments
