// TMA tensor maps (exec/tma.hpp): validation against the driver's requirements, the tile-mode copy
// geometry (coordinates, out-of-bounds, global byte offsets, swizzled shared offsets) and
// tensormap.replace. Expected values are worked out by hand in the comments, or (the 3-D and 5-D
// boxes) by a direct model below that decomposes an element's box index by mixed radix, which
// shares no code with the header. The swizzle tables are the PTX ISA's (section 5.5.7 "Swizzling
// Modes": each row of its tables is one 128-byte shared-memory line, each cell a 16-byte chunk);
// the misaligned-base case uses the CUDA Programming Guide's additive formula
// smem[y][((y + offset) % 8) ^ x] with offset = (address / 128) % 8.
#include <gpueq/exec/tma.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tma = gpueq::exec::tma;

namespace {

using kind = tma::map_error::kind;

// The message of the map_error f throws, after checking its kind; "no error" if none.
std::string error_of(const std::function<void()>& f, kind k = kind::invalid) {
  try {
    f();
  } catch (const tma::map_error& e) {
    CHECK(e.which() == k);
    return e.what();
  }
  return "no error";
}

tma::tensor_map map2d(tma::element_type t, std::uint64_t cols, std::uint64_t rows, std::uint64_t row_stride,
                      std::uint32_t box0, std::uint32_t box1, tma::swizzle s = tma::swizzle::none) {
  tma::tensor_map m;
  m.type = t;
  m.rank = 2;
  m.global_address = 0x10000;
  m.global_dim = {cols, rows, 1, 1, 1};
  m.global_stride = {row_stride, 0, 0, 0};
  m.box_dim = {box0, box1, 1, 1, 1};
  m.swizzle_mode = s;
  return m;
}

tma::copy_plan plan(const tma::tensor_map& m, std::vector<std::int32_t> coords, std::uint32_t shared = 0) {
  return tma::plan_copy(m, coords, shared);
}

// (in bounds, global offset, shared offset) of one element.
struct spot {
  bool in_bounds;
  std::uint64_t global, shared;
};
void check_spot(const tma::element& e, spot s) {
  CHECK(e.in_bounds == s.in_bounds);
  CHECK(e.global_offset == s.global);
  CHECK(e.shared_offset == s.shared);
}

// The independent model of an unswizzled copy: element n's box index by mixed radix over the
// traversed extents ceil(box / stride) (dimension 0: box), its coordinate, bounds and offsets.
struct model_element {
  std::array<std::int64_t, 5> coord{};
  bool in_bounds = true;
  std::uint64_t global = 0, shared = 0;
};
std::vector<model_element> direct_model(std::uint32_t rank, std::uint32_t esize, std::array<std::uint64_t, 5> dims,
                                        std::array<std::uint64_t, 5> byte_strides,  // dimension 0's too
                                        std::array<std::uint32_t, 5> box, std::array<std::uint32_t, 5> estride,
                                        std::array<std::int32_t, 5> c) {
  std::array<std::uint64_t, 5> ext{1, 1, 1, 1, 1};
  std::uint64_t total = 1;
  for (std::uint32_t i = 0; i < rank; ++i) {
    ext[i] = i == 0 ? box[0] : (box[i] + estride[i] - 1) / estride[i];
    total *= ext[i];
  }
  std::vector<model_element> out;
  for (std::uint64_t n = 0; n < total; ++n) {
    model_element e;
    std::uint64_t rest = n;
    for (std::uint32_t i = 0; i < rank; ++i) {
      std::int64_t k = static_cast<std::int64_t>(rest % ext[i]);
      rest /= ext[i];
      std::int64_t step = i == 0 ? 1 : estride[i];
      e.coord[i] = c[i] + k * step;
      if (e.coord[i] < 0 || e.coord[i] >= static_cast<std::int64_t>(dims[i])) e.in_bounds = false;
      e.global += static_cast<std::uint64_t>(e.coord[i]) * byte_strides[i];
    }
    if (!e.in_bounds) e.global = 0;
    e.shared = n * esize;
    out.push_back(e);
  }
  return out;
}

void check_against_model(const tma::copy_plan& p, const std::vector<model_element>& model) {
  REQUIRE(p.elements.size() == model.size());
  for (std::size_t n = 0; n < model.size(); ++n) {
    CAPTURE(n);
    CHECK(p.elements[n].index == n);
    CHECK(p.elements[n].coord == model[n].coord);
    CHECK(p.elements[n].in_bounds == model[n].in_bounds);
    CHECK(p.elements[n].global_offset == model[n].global);
    CHECK(p.elements[n].shared_offset == model[n].shared);
  }
}

// The shared offset of the first element of 16-byte chunk `chunk` of box row `row`, after checking
// that the chunk's other elements follow it (the swizzle moves whole 16-byte chunks).
std::uint64_t chunk_destination(const tma::copy_plan& p, std::uint64_t row, std::uint32_t chunk) {
  std::uint32_t per_chunk = 16 / p.shape.element_bytes;
  std::uint64_t first = row * p.shape.extent[0] + chunk * per_chunk;
  for (std::uint32_t j = 1; j < per_chunk; ++j)
    CHECK(p.elements[first + j].shared_offset == p.elements[first].shared_offset + j * p.shape.element_bytes);
  return p.elements[first].shared_offset;
}

}  // namespace

TEST_CASE("a 2-D box without swizzle: coordinates, global offsets and a dense shared layout") {
  // f32, 10 columns x 6 rows, rows 48 bytes apart (40 bytes of data + 8 of padding); a 4 x 3 box at
  // (2, 1) into shared address 0x400. Element (k0, k1) is at column 2 + k0, row 1 + k1:
  // global (2 + k0) * 4 + (1 + k1) * 48, shared (k1 * 4 + k0) * 4.
  auto m = map2d(tma::element_type::f32, 10, 6, 48, 4, 3);
  auto p = plan(m, {2, 1}, 0x400);
  CHECK(p.shape.extent == std::array<std::uint32_t, 5>{4, 3, 1, 1, 1});
  CHECK(p.shape.row_bytes == 16);
  CHECK(p.shape.row_pitch == 16);
  CHECK(p.shape.rows == 3);
  CHECK(p.shape.elements == 12);
  CHECK(p.shape.transaction_bytes == 48);
  CHECK(p.shape.shared_bytes == 48);
  CHECK(p.out_of_bounds == 0);
  const std::array<spot, 12> expected = {{
      {true, 56, 0},   {true, 60, 4},   {true, 64, 8},   {true, 68, 12},   // row 1
      {true, 104, 16}, {true, 108, 20}, {true, 112, 24}, {true, 116, 28},  // row 2
      {true, 152, 32}, {true, 156, 36}, {true, 160, 40}, {true, 164, 44},  // row 3
  }};
  REQUIRE(p.elements.size() == 12);
  for (std::size_t i = 0; i < 12; ++i) {
    CAPTURE(i);
    check_spot(p.elements[i], expected[i]);
    CHECK(p.elements[i].index == i);
    CHECK(p.elements[i].coord == std::array<std::int64_t, 5>{2 + static_cast<std::int64_t>(i % 4),
                                                             1 + static_cast<std::int64_t>(i / 4), 0, 0, 0});
  }
  // The visitor sees the same elements in the same order.
  std::vector<tma::element> seen;
  std::vector<std::int32_t> at{2, 1};
  tma::for_each_element(m, at, 0x400, [&](const tma::element& e) { seen.push_back(e); });
  CHECK(seen == p.elements);
}

TEST_CASE("the swizzle of one address, by hand") {
  // 128B: 0x390 = line 7, chunk 1, byte 0 -> chunk 1 ^ 7 = 6: 7 * 128 + 6 * 16 = 0x3e0.
  CHECK(tma::swizzle_address(tma::swizzle::b128, 0x390) == 0x3e0);
  // 64B: 0x1d0 = line 3, chunk 5 (bits 4..6 = 101): bits 4..5 (01) ^ (3 & 3 = 11) = 10 -> chunk 6:
  // 3 * 128 + 6 * 16 = 0x1e0.
  CHECK(tma::swizzle_address(tma::swizzle::b64, 0x1d0) == 0x1e0);
  // 32B: 0x290 = line 5, chunk 1: bit 4 (1) ^ (5 & 1 = 1) = 0 -> 0x280.
  CHECK(tma::swizzle_address(tma::swizzle::b32, 0x290) == 0x280);
  // Bytes within a chunk and bits above the line's stay.
  CHECK(tma::swizzle_address(tma::swizzle::b128, 0x2000 + 0x390 + 5) == 0x2000 + 0x3e0 + 5);
  CHECK(tma::swizzle_address(tma::swizzle::none, 0x390) == 0x390);
  CHECK(tma::swizzle_span(tma::swizzle::b128) == 128);
  CHECK(tma::swizzle_repeat(tma::swizzle::b128) == 1024);
  CHECK(tma::swizzle_repeat(tma::swizzle::b64) == 512);
  CHECK(tma::swizzle_repeat(tma::swizzle::b32) == 256);
}

TEST_CASE("the 128B swizzle on a 128-byte inner box follows the ISA's table") {
  // PTX ISA 5.5.7, 128-byte swizzle, 16-byte atomicity, starting address 1024-byte aligned: line l
  // holds at position p the chunk p ^ l (an involution, so chunk c of line l lands at c ^ l).
  const int table[8][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}, {2, 3, 0, 1, 6, 7, 4, 5},
                           {3, 2, 1, 0, 7, 6, 5, 4}, {4, 5, 6, 7, 0, 1, 2, 3}, {5, 4, 7, 6, 1, 0, 3, 2},
                           {6, 7, 4, 5, 2, 3, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};
  // bf16: 64 elements = 128 bytes per row, 16 rows (the pattern twice).
  auto m = map2d(tma::element_type::bf16, 64, 16, 128, 64, 16, tma::swizzle::b128);
  for (std::uint32_t base : {0u, 1024u, 7u * 1024u}) {
    CAPTURE(base);
    auto p = plan(m, {0, 0}, base);
    CHECK(p.shape.row_pitch == 128);
    CHECK(p.shape.shared_bytes == 2048);
    CHECK(p.shape.transaction_bytes == 2048);
    for (std::uint32_t row = 0; row < 16; ++row)
      for (std::uint32_t c = 0; c < 8; ++c) {
        CAPTURE(row);
        CAPTURE(c);
        CHECK(chunk_destination(p, row, c) == row * 128 + 16 * table[row % 8][c]);
      }
    // A permutation of the box's bytes.
    std::set<std::uint64_t> offsets;
    for (const auto& e : p.elements) offsets.insert(e.shared_offset);
    CHECK(offsets.size() == 1024);
    CHECK(*offsets.rbegin() == 2046);
  }
}

TEST_CASE("the 64B swizzle on a 64-byte inner box: two rows per 128-byte line") {
  // PTX ISA 5.5.7, 64-byte swizzle (512-byte aligned start): line l holds chunk p ^ (l % 4) at p.
  // A 64-byte row is half a line: rows 2l and 2l + 1 are line l's left and right halves, so chunk c
  // of row r lands at chunk c ^ ((r / 2) % 4) of its own 64 bytes. Worked out from the table:
  const int table[8][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}, {1, 0, 3, 2}, {1, 0, 3, 2},
                           {2, 3, 0, 1}, {2, 3, 0, 1}, {3, 2, 1, 0}, {3, 2, 1, 0}};
  // f32: 16 elements = 64 bytes per row, 16 rows.
  auto m = map2d(tma::element_type::f32, 16, 16, 64, 16, 16, tma::swizzle::b64);
  auto p = plan(m, {0, 0}, 512);
  CHECK(p.shape.row_pitch == 64);
  CHECK(p.shape.shared_bytes == 1024);
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t c = 0; c < 4; ++c) {
      CAPTURE(row);
      CAPTURE(c);
      CHECK(chunk_destination(p, row, c) == row * 64 + 16 * table[row % 8][c]);
    }
}

TEST_CASE("the 32B swizzle on a 32-byte inner box: four rows per 128-byte line") {
  // PTX ISA 5.5.7, 32-byte swizzle (256-byte aligned start): line 0 is 0 1 2 3 4 5 6 7, line 1 is
  // 1 0 3 2 5 4 7 6, then it repeats. A 32-byte row is a quarter line: rows 0..3 keep their two
  // chunks, rows 4..7 swap them, rows 8..11 keep, rows 12..15 swap.
  const int table[8][2] = {{0, 1}, {0, 1}, {0, 1}, {0, 1}, {1, 0}, {1, 0}, {1, 0}, {1, 0}};
  // u16: 16 elements = 32 bytes per row, 16 rows.
  auto m = map2d(tma::element_type::u16, 16, 16, 32, 16, 16, tma::swizzle::b32);
  auto p = plan(m, {0, 0}, 256);
  CHECK(p.shape.row_pitch == 32);
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t c = 0; c < 2; ++c) {
      CAPTURE(row);
      CAPTURE(c);
      CHECK(chunk_destination(p, row, c) == row * 32 + 16 * table[row % 8][c]);
    }
}

TEST_CASE("a swizzled destination off the pattern's boundary starts the table at its base offset") {
  // 0x1580 = 5504 = 43 * 128: 128-byte aligned, not 1024; the Programming Guide's offset is
  // (5504 / 128) % 8 = 3 and chunk x of row y lands at ((y + 3) % 8) ^ x.
  auto m = map2d(tma::element_type::bf16, 64, 8, 128, 64, 8, tma::swizzle::b128);
  auto p = plan(m, {0, 0}, 0x1580);
  for (std::uint32_t y = 0; y < 8; ++y)
    for (std::uint32_t x = 0; x < 8; ++x) {
      CAPTURE(y);
      CAPTURE(x);
      CHECK(chunk_destination(p, y, x) == y * 128 + 16 * (((y + 3) % 8) ^ x));
    }
  // 64B at 0x180 = 3 * 128: offset (384 / 128) % 4 = 3. Two rows per line, so row y sits on line
  // y / 2 and its chunk x lands at ((y / 2 + 3) % 4) ^ x.
  auto m64 = map2d(tma::element_type::f32, 16, 8, 64, 16, 8, tma::swizzle::b64);
  auto p64 = plan(m64, {0, 0}, 0x180);
  for (std::uint32_t y = 0; y < 8; ++y)
    for (std::uint32_t x = 0; x < 4; ++x) CHECK(chunk_destination(p64, y, x) == y * 64 + 16 * (((y / 2 + 3) % 4) ^ x));
}

TEST_CASE("a box narrower than the swizzle span takes the full span per row") {
  // f32 box of 8 x 8 (32-byte rows) under the 128B swizzle: each row is 128 bytes apart and its two
  // chunks land at c ^ (row % 8), anywhere in the 128 bytes. Row 5, chunk 1 -> chunk 4: 5 * 128 + 64.
  auto m = map2d(tma::element_type::f32, 8, 8, 32, 8, 8, tma::swizzle::b128);
  auto p = plan(m, {0, 0}, 0);
  CHECK(p.shape.row_bytes == 32);
  CHECK(p.shape.row_pitch == 128);
  CHECK(p.shape.shared_bytes == 1024);
  CHECK(p.shape.transaction_bytes == 256);
  CHECK(chunk_destination(p, 5, 1) == 704);
  CHECK(chunk_destination(p, 0, 1) == 16);
  CHECK(chunk_destination(p, 7, 0) == 7 * 128 + 7 * 16);
  CHECK(chunk_destination(p, 3, 1) == 3 * 128 + 2 * 16);
}

TEST_CASE("out-of-bounds boxes at negative and past-the-end coordinates") {
  // f32, 8 columns x 5 rows, rows 32 bytes apart; 4 x 4 boxes.
  auto m = map2d(tma::element_type::f32, 8, 5, 32, 4, 4);
  SUBCASE("negative: at (-2, -1)") {
    // Row y = -1 is outside; in rows 0..2 columns -2 and -1 are outside, columns 0 and 1 inside at
    // y * 32 + x * 4. Shared offsets stay dense (index * 4): the fill lands where the data would.
    auto p = plan(m, {-2, -1});
    CHECK(p.out_of_bounds == 10);
    const std::array<spot, 16> expected = {{
        {false, 0, 0},  {false, 0, 4},  {false, 0, 8},  {false, 0, 12},  // y = -1
        {false, 0, 16}, {false, 0, 20}, {true, 0, 24},  {true, 4, 28},   // y = 0
        {false, 0, 32}, {false, 0, 36}, {true, 32, 40}, {true, 36, 44},  // y = 1
        {false, 0, 48}, {false, 0, 52}, {true, 64, 56}, {true, 68, 60},  // y = 2
    }};
    for (std::size_t i = 0; i < 16; ++i) {
      CAPTURE(i);
      check_spot(p.elements[i], expected[i]);
    }
    CHECK(p.elements[0].coord == std::array<std::int64_t, 5>{-2, -1, 0, 0, 0});
    CHECK(p.elements[15].coord == std::array<std::int64_t, 5>{1, 2, 0, 0, 0});
    CHECK(tma::fill_bits(m) == 0);
  }
  SUBCASE("past the end: at (6, 3)") {
    // Columns 6..9 and rows 3..6: inside only columns 6, 7 of rows 3, 4: (6,3) 24 + 96 = 120,
    // (7,3) 124, (6,4) 24 + 128 = 152, (7,4) 156.
    auto p = plan(m, {6, 3});
    CHECK(p.out_of_bounds == 12);
    check_spot(p.elements[0], {true, 120, 0});
    check_spot(p.elements[1], {true, 124, 4});
    check_spot(p.elements[2], {false, 0, 8});
    check_spot(p.elements[3], {false, 0, 12});
    check_spot(p.elements[4], {true, 152, 16});
    check_spot(p.elements[5], {true, 156, 20});
    for (std::size_t i = 6; i < 16; ++i) {  // columns 8, 9 of row 4, then rows 5 and 6
      CAPTURE(i);
      CHECK(!p.elements[i].in_bounds);
      CHECK(p.elements[i].global_offset == 0);
    }
    CHECK(p.elements[15].coord == std::array<std::int64_t, 5>{9, 6, 0, 0, 0});
  }
  SUBCASE("entirely outside, at the extremes of the 32-bit coordinates") {
    constexpr std::int32_t lo = std::numeric_limits<std::int32_t>::min();
    constexpr std::int32_t hi = std::numeric_limits<std::int32_t>::max();
    auto p = plan(m, {lo, hi});
    CHECK(p.out_of_bounds == 16);
    // No 32-bit wrap: the last element is at (lo + 3, hi + 3).
    CHECK(p.elements[15].coord == std::array<std::int64_t, 5>{std::int64_t{lo} + 3, std::int64_t{hi} + 3, 0, 0, 0});
  }
  SUBCASE("the OOB-NaN fill is accepted in a map and refused when a load needs it") {
    m.fill = tma::oob_fill::nan_request_zero_fma;
    CHECK_NOTHROW(tma::validate(m));
    auto p = plan(m, {6, 3});
    CHECK(p.out_of_bounds == 12);
    CHECK(error_of([&] { (void)tma::fill_bits(m); }, kind::unsupported) ==
          "tensor map: the OOB-NaN fill (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) of an "
          "out-of-bounds element is not modelled; use the zero fill or keep the boxes inside the tensor");
  }
}

TEST_CASE("element strides above 1 skip elements; dimension 0's is ignored") {
  // f32, 16 columns x 20 rows, rows 64 bytes apart; box 4 x 6 with element strides {3, 2}: dimension
  // 0's 3 is ignored (4 consecutive columns), rows c1, c1 + 2, c1 + 4 (ceil(6 / 2) = 3 of them).
  auto m = map2d(tma::element_type::f32, 16, 20, 64, 4, 6);
  m.element_stride = {3, 2, 1, 1, 1};
  auto p = plan(m, {4, 5});
  CHECK(p.shape.extent == std::array<std::uint32_t, 5>{4, 3, 1, 1, 1});
  CHECK(p.shape.transaction_bytes == 48);
  // (4 + k0) * 4 + (5 + 2 k1) * 64: first 336, (k0 0, k1 1) 464, last (3, 2) 28 + 576 = 604.
  check_spot(p.elements[0], {true, 336, 0});
  check_spot(p.elements[4], {true, 464, 16});
  check_spot(p.elements[11], {true, 604, 44});
  CHECK(p.elements[11].coord == std::array<std::int64_t, 5>{7, 9, 0, 0, 0});
  // ceil(7 / 3) = 3 rows: 25, 28, 31 of 30 rows; the last row is outside.
  auto m2 = map2d(tma::element_type::f32, 8, 30, 32, 4, 7);
  m2.element_stride = {1, 3, 1, 1, 1};
  auto p2 = plan(m2, {0, 25});
  CHECK(p2.shape.extent[1] == 3);
  CHECK(p2.out_of_bounds == 4);
  CHECK(p2.elements[8].coord[1] == 31);
  CHECK(!p2.elements[8].in_bounds);
  check_spot(p2.elements[4], {true, 28 * 32, 16});
}

TEST_CASE("a 3-D box") {
  // f16, 16 x 4 x 3, strides 32 (16 * 2) and 128 (32 * 4) bytes; box 8 x 2 x 2 at (8, 2, 1).
  tma::tensor_map m;
  m.type = tma::element_type::f16;
  m.rank = 3;
  m.global_address = 0x2000;
  m.global_dim = {16, 4, 3, 1, 1};
  m.global_stride = {32, 128, 0, 0};
  m.box_dim = {8, 2, 2, 1, 1};
  auto p = plan(m, {8, 2, 1});
  CHECK(p.shape.rows == 4);
  CHECK(p.shape.transaction_bytes == 64);
  // First (8, 2, 1): 16 + 64 + 128 = 208. Index 9 = (1, 1, 0) -> (9, 3, 1): 18 + 96 + 128 = 242,
  // shared 16 + 2. Last (7, 1, 1) -> (15, 3, 2): 30 + 96 + 256 = 382, shared 62.
  check_spot(p.elements[0], {true, 208, 0});
  check_spot(p.elements[9], {true, 242, 18});
  check_spot(p.elements[31], {true, 382, 62});
  check_against_model(p, direct_model(3, 2, {16, 4, 3, 1, 1}, {2, 32, 128, 0, 0}, {8, 2, 2, 1, 1}, {1, 1, 1, 1, 1},
                                      {8, 2, 1, 0, 0}));
  // At (8, 3, 2): rows y = 4 and z = 3 are outside; only (k1, k2) = (0, 0) is inside.
  auto q = plan(m, {8, 3, 2});
  CHECK(q.out_of_bounds == 24);
  check_against_model(q, direct_model(3, 2, {16, 4, 3, 1, 1}, {2, 32, 128, 0, 0}, {8, 2, 2, 1, 1}, {1, 1, 1, 1, 1},
                                      {8, 3, 2, 0, 0}));
}

TEST_CASE("a 3-D box under the 128B swizzle continues the pattern across dimension 2") {
  // bf16 64 x 4 x 4, box 64 x 4 x 4: box row r = k1 + 4 k2 is line r; row 5 = (k1 1, k2 1).
  tma::tensor_map m;
  m.type = tma::element_type::bf16;
  m.rank = 3;
  m.global_dim = {64, 4, 4, 1, 1};
  m.global_stride = {128, 512, 0, 0};
  m.box_dim = {64, 4, 4, 1, 1};
  m.swizzle_mode = tma::swizzle::b128;
  auto p = plan(m, {0, 0, 0}, 2048);
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t c = 0; c < 8; ++c) CHECK(chunk_destination(p, row, c) == row * 128 + 16 * ((row % 8) ^ c));
  // Row 5 chunk 2 -> 2 ^ 5 = 7; its first element is (16, 1, 1): global 32 + 128 + 512.
  const auto& e = p.elements[5 * 64 + 16];
  CHECK(e.coord == std::array<std::int64_t, 5>{16, 1, 1, 0, 0});
  CHECK(e.global_offset == 672);
  CHECK(e.shared_offset == 5 * 128 + 7 * 16);
}

TEST_CASE("a 5-D box with an element stride in the outermost dimension") {
  // u8, 32 x 3 x 2 x 2 x 3, strides 32, 96, 192, 384; box 16 x 2 x 2 x 1 x 3 with element stride 2
  // in dimension 4 (ceil(3 / 2) = 2 there): 16 x 8 rows = 128 elements.
  tma::tensor_map m;
  m.type = tma::element_type::u8;
  m.rank = 5;
  m.global_address = 0x4000;
  m.global_dim = {32, 3, 2, 2, 3};
  m.global_stride = {32, 96, 192, 384};
  m.box_dim = {16, 2, 2, 1, 3};
  m.element_stride = {1, 1, 1, 1, 2};
  auto p = plan(m, {16, 1, 0, 1, 0});
  CHECK(p.shape.extent == std::array<std::uint32_t, 5>{16, 2, 2, 1, 2});
  CHECK(p.shape.elements == 128);
  CHECK(p.out_of_bounds == 0);
  // Last: (15, 1, 1, 0, 1) -> (31, 2, 1, 1, 2): 31 + 64 + 96 + 192 + 768 = 1151.
  // Index 83 = row 5 = (k1 1, k2 0, k3 0, k4 1), k0 3 -> (19, 2, 0, 1, 2): 19 + 64 + 192 + 768 = 1043.
  check_spot(p.elements[127], {true, 1151, 127});
  check_spot(p.elements[83], {true, 1043, 83});
  CHECK(p.elements[83].coord == std::array<std::int64_t, 5>{19, 2, 0, 1, 2});
  check_against_model(p, direct_model(5, 1, {32, 3, 2, 2, 3}, {1, 32, 96, 192, 384}, {16, 2, 2, 1, 3},
                                      {1, 1, 1, 1, 2}, {16, 1, 0, 1, 0}));
  // From v = 1 the second step is v = 3, outside: half the box.
  auto q = plan(m, {16, 1, 0, 1, 1});
  CHECK(q.out_of_bounds == 64);
  check_against_model(q, direct_model(5, 1, {32, 3, 2, 2, 3}, {1, 32, 96, 192, 384}, {16, 2, 2, 1, 3},
                                      {1, 1, 1, 1, 2}, {16, 1, 0, 1, 1}));
}

TEST_CASE("every validation error names the field, its value and the rule") {
  auto ok = map2d(tma::element_type::f32, 64, 64, 256, 32, 8, tma::swizzle::b128);
  CHECK_NOTHROW(tma::validate(ok));
  auto err = [&](const std::function<void(tma::tensor_map&)>& change, kind k = kind::invalid) {
    tma::tensor_map m = ok;
    change(m);
    return error_of([&] { tma::validate(m); }, k);
  };
  using T = tma::tensor_map;
  CHECK(err([](T& m) { m.rank = 0; }) == "tensor map: rank 0 is outside 1..5");
  CHECK(err([](T& m) { m.rank = 6; }) == "tensor map: rank 6 is outside 1..5");
  CHECK(err([](T& m) { m.type = tma::element_type::b4x16; }, kind::unsupported) ==
        "tensor map: the packed sub-byte element type b4x16 is not modelled");
  CHECK(err([](T& m) { m.interleave_layout = tma::interleave::b16; }, kind::unsupported) ==
        "tensor map: interleaved layouts are not modelled (interleave 16B)");
  CHECK(err([](T& m) { m.interleave_layout = tma::interleave::b32; }, kind::unsupported) ==
        "tensor map: interleaved layouts are not modelled (interleave 32B)");
  CHECK(err([](T& m) { m.swizzle_mode = tma::swizzle::b96; }, kind::unsupported) ==
        "tensor map: the 96B swizzle is not modelled");
  CHECK(err([](T& m) { m.atomicity = tma::swizzle_atomicity::b32; }, kind::unsupported) ==
        "tensor map: swizzle atomicity 32B is not modelled (16B atomicity only)");
  CHECK(err([](T& m) { m.global_address = 0x10008; }) ==
        "tensor map: the global address 0x10008 is not 16-byte aligned");
  CHECK(err([](T& m) { m.global_dim[1] = 0; }) == "tensor map: globalDim[1] = 0 is outside 1..2^32");
  CHECK(err([](T& m) { m.global_dim[0] = (std::uint64_t{1} << 32) + 1; }) ==
        "tensor map: globalDim[0] = 4294967297 is outside 1..2^32");
  CHECK(err([](T& m) { m.global_stride[0] = 72; }) ==
        "tensor map: globalStrides[0] = 72 bytes (dimension 1) is not a multiple of 16");
  CHECK(err([](T& m) { m.global_stride[0] = std::uint64_t{1} << 40; }) ==
        "tensor map: globalStrides[0] = 1099511627776 bytes (dimension 1) is not below 2^40");
  CHECK(err([](T& m) { m.box_dim[1] = 0; }) == "tensor map: boxDim[1] = 0 is outside 1..256");
  CHECK(err([](T& m) { m.box_dim[1] = 257; }) == "tensor map: boxDim[1] = 257 is outside 1..256");
  CHECK(err([](T& m) { m.box_dim[0] = 5; }) ==
        "tensor map: the inner box dimension, boxDim[0] = 5 f32 elements = 20 bytes, is not a multiple of 16 bytes");
  CHECK(err([](T& m) { m.element_stride[1] = 0; }) == "tensor map: elementStrides[1] = 0 is outside 1..8");
  CHECK(err([](T& m) { m.element_stride[0] = 9; }) == "tensor map: elementStrides[0] = 9 is outside 1..8");
  CHECK(err([](T& m) { m.box_dim[0] = 64; }) ==
        "tensor map: the inner box dimension, 256 bytes, exceeds the 128B swizzle span");
  CHECK(err([](T& m) {
          m.box_dim[0] = 16;
          m.swizzle_mode = tma::swizzle::b32;
        }) == "tensor map: the inner box dimension, 64 bytes, exceeds the 32B swizzle span");
  CHECK(err([](T& m) {
          m.type = tma::element_type::u32;
          m.fill = tma::oob_fill::nan_request_zero_fma;
        }) == "tensor map: the OOB-NaN fill needs a floating-point element type, not u32");
  // Copies: one coordinate per dimension, a 128-byte aligned shared address.
  std::vector<std::int32_t> three{0, 0, 0}, two{0, 0};
  CHECK(error_of([&] { (void)tma::plan_copy(ok, three, 0); }) == "tensor copy: 3 coordinates for a rank-2 tensor map");
  CHECK(error_of([&] { (void)tma::plan_copy(ok, two, 0x440); }) ==
        "tensor copy: the shared address 0x440 is not 128-byte aligned");
  // A copy validates its map first.
  tma::tensor_map bad = ok;
  bad.box_dim[1] = 300;
  CHECK(error_of([&] { (void)tma::plan_copy(bad, two, 0); }) == "tensor map: boxDim[1] = 300 is outside 1..256");
}

TEST_CASE("the limits themselves are accepted, and slots past the rank are ignored") {
  tma::tensor_map m;
  m.type = tma::element_type::u8;
  m.rank = 3;
  m.global_dim = {std::uint64_t{1} << 32, 1, 2, 0, 0};  // slots 3, 4 unused
  m.global_stride = {(std::uint64_t{1} << 40) - 16, 16, 7, 7};
  m.box_dim = {256, 256, 1, 0, 999};
  m.element_stride = {8, 8, 1, 0, 0};
  CHECK_NOTHROW(tma::validate(m));
  // Each swizzle with an inner dimension of exactly its span.
  for (auto [s, box0] : {std::pair{tma::swizzle::b32, 32u}, std::pair{tma::swizzle::b64, 64u},
                            std::pair{tma::swizzle::b128, 128u}}) {
    m.swizzle_mode = s;
    m.box_dim[0] = box0;
    CHECK_NOTHROW(tma::validate(m));
  }
  // Every float type takes the OOB-NaN fill.
  m.fill = tma::oob_fill::nan_request_zero_fma;
  for (auto t : {tma::element_type::f16, tma::element_type::bf16, tma::element_type::f32, tma::element_type::f32_ftz,
                 tma::element_type::f64, tma::element_type::tf32, tma::element_type::tf32_ftz}) {
    m.type = t;
    m.box_dim[0] = 16;
    m.swizzle_mode = tma::swizzle::none;
    CHECK_NOTHROW(tma::validate(m));
  }
}

TEST_CASE("element types: PTX names, sizes, and the tensormap.replace numbering") {
  CHECK(tma::parse_element_type("bf16") == tma::element_type::bf16);
  CHECK(tma::parse_element_type("f32.ftz") == tma::element_type::f32_ftz);
  CHECK(!tma::parse_element_type("f8"));
  // Table "Tensormap new_val validity": 0 u8, 3 s32, 7 f32, 10 bf16, 12 tf32.ftz.
  CHECK(static_cast<int>(tma::element_type::u8) == 0);
  CHECK(static_cast<int>(tma::element_type::s32) == 3);
  CHECK(static_cast<int>(tma::element_type::f32) == 7);
  CHECK(static_cast<int>(tma::element_type::bf16) == 10);
  CHECK(static_cast<int>(tma::element_type::tf32_ftz) == 12);
  CHECK(tma::element_size(tma::element_type::u8) == 1);
  CHECK(tma::element_size(tma::element_type::bf16) == 2);
  CHECK(tma::element_size(tma::element_type::tf32) == 4);
  CHECK(tma::element_size(tma::element_type::s64) == 8);
  CHECK(tma::element_size(tma::element_type::f64) == 8);
  CHECK(!tma::is_floating(tma::element_type::s32));
  CHECK(tma::is_floating(tma::element_type::tf32));
}

TEST_CASE("tensormap.replace builds a map field by field, as Triton's descriptors do") {
  // The sequence a Triton sm_90a kernel writes for a bf16 4096 x 8192 (columns x rows) tensor with
  // 64 x 128 boxes and the 128B swizzle (values as in its PTX: rank 0x1, elemtype 0xa, ...).
  tma::tensor_map m;
  tma::replace(m, "global_address", std::nullopt, 0x7f0000001000);
  tma::replace(m, "rank", std::nullopt, 1);
  tma::replace(m, "box_dim", 0, 64);
  tma::replace(m, "box_dim", 1, 128);
  tma::replace(m, "global_dim", 0, 4096);
  tma::replace(m, "global_dim", 1, 8192);
  tma::replace(m, "global_stride", 0, 8192);
  tma::replace(m, "element_stride", 0, 1);
  tma::replace(m, "element_stride", 1, 1);
  tma::replace(m, "elemtype", std::nullopt, 10);
  tma::replace(m, "interleave_layout", std::nullopt, 0);
  tma::replace(m, "swizzle_mode", std::nullopt, 3);
  tma::replace(m, "swizzle_atomicity", std::nullopt, 0);
  tma::replace(m, "fill_mode", std::nullopt, 1);
  tma::tensor_map expected;
  expected.type = tma::element_type::bf16;
  expected.rank = 2;
  expected.global_address = 0x7f0000001000;
  expected.global_dim = {4096, 8192, 1, 1, 1};
  expected.global_stride = {8192, 0, 0, 0};
  expected.box_dim = {64, 128, 1, 1, 1};
  expected.swizzle_mode = tma::swizzle::b128;
  expected.fill = tma::oob_fill::nan_request_zero_fma;
  CHECK(m == expected);
  CHECK_NOTHROW(tma::validate(m));
  // By enumerator too; a later replace overrides.
  tma::replace(m, tma::field::box_dim, 1, 64);
  CHECK(m.box_dim[1] == 64);
  tma::replace(m, tma::field::global_stride, 3, 16);  // a slot past the rank: kept, not used
  CHECK(m.global_stride[3] == 16);
  CHECK_NOTHROW(tma::validate(m));
  // An intermediate map may be invalid; only a use checks it as a whole.
  tma::replace(m, "swizzle_mode", std::nullopt, 1);  // 32B swizzle under a 128-byte inner box
  CHECK(error_of([&] { tma::validate(m); }) ==
        "tensor map: the inner box dimension, 128 bytes, exceeds the 32B swizzle span");
  // Values the ISA allows and gpueq does not model are stored, then refused by validate.
  tma::replace(m, "swizzle_mode", std::nullopt, 4);
  CHECK(m.swizzle_mode == tma::swizzle::b96);
  CHECK(error_of([&] { tma::validate(m); }, kind::unsupported) == "tensor map: the 96B swizzle is not modelled");
  // Field names round-trip.
  for (std::uint32_t i = 0; i < tma::field_count; ++i)
    CHECK(tma::parse_field(tma::name(static_cast<tma::field>(i))) == static_cast<tma::field>(i));
}

TEST_CASE("tensormap.replace refuses what the instruction or the field cannot hold") {
  tma::tensor_map m;
  const tma::tensor_map before = m;
  auto err = [&](std::string_view f, std::optional<std::uint32_t> ord, std::uint64_t v) {
    return error_of([&] { tma::replace(m, f, ord, v); });
  };
  CHECK(err("box_size", std::nullopt, 1) == "tensormap.replace: unknown field 'box_size'");
  CHECK(err("box_dim", std::nullopt, 1) == "tensormap.replace.box_dim: needs an ordinal");
  CHECK(err("rank", 0, 1) == "tensormap.replace.rank: takes no ordinal");
  CHECK(err("box_dim", 5, 1) == "tensormap.replace.box_dim: ordinal 5 is outside 0..4");
  CHECK(err("global_stride", 4, 16) == "tensormap.replace.global_stride: ordinal 4 is outside 0..3");
  CHECK(err("global_dim", 0, std::uint64_t{1} << 32) ==
        "tensormap.replace.global_dim: new_val 4294967296 does not fit its .b32 operand");
  CHECK(err("global_dim", 0, 0) == "tensormap.replace.global_dim: new_val 0 is outside 1..4294967295");
  CHECK(err("global_address", std::nullopt, 0x1004) ==
        "tensormap.replace.global_address: the address 0x1004 is not 16-byte aligned");
  CHECK(err("rank", std::nullopt, 5) ==
        "tensormap.replace.rank: new_val 5 is outside 0..4 (the field is zero-based: rank 6 of 1..5)");
  CHECK(err("box_dim", 0, 0) == "tensormap.replace.box_dim: new_val 0 is outside 1..256");
  CHECK(err("box_dim", 0, 257) == "tensormap.replace.box_dim: new_val 257 is outside 1..256");
  CHECK(err("global_stride", 0, 40) == "tensormap.replace.global_stride: the stride 40 is not a multiple of 16");
  CHECK(err("global_stride", 0, std::uint64_t{1} << 40) ==
        "tensormap.replace.global_stride: the stride 1099511627776 is not below 2^40");
  CHECK(err("element_stride", 0, 9) == "tensormap.replace.element_stride: new_val 9 is outside 1..8");
  CHECK(err("elemtype", std::nullopt, 16) == "tensormap.replace.elemtype: new_val 16 is outside 0..15");
  CHECK(err("interleave_layout", std::nullopt, 3) == "tensormap.replace.interleave_layout: new_val 3 is outside 0..2");
  CHECK(err("swizzle_mode", std::nullopt, 5) == "tensormap.replace.swizzle_mode: new_val 5 is outside 0..4");
  CHECK(err("swizzle_atomicity", std::nullopt, 4) == "tensormap.replace.swizzle_atomicity: new_val 4 is outside 0..3");
  CHECK(err("fill_mode", std::nullopt, 2) == "tensormap.replace.fill_mode: new_val 2 is outside 0..1");
  CHECK(m == before);  // a refused replace changes nothing
}

TEST_CASE("stores and reductions read the same geometry the other way") {
  // cp.async.bulk.tensor.global.shared::cta and cp.reduce.async.bulk.tensor use the load's plan:
  // in-bounds elements move between their shared and global offsets, out-of-bounds ones are
  // skipped. The plan of the same copy is the same whatever the direction; here, a store of a 64B
  // swizzled box hanging over the right edge pairs each in-bounds global offset with exactly one
  // shared offset, all distinct.
  auto m = map2d(tma::element_type::f32, 20, 8, 80, 16, 8, tma::swizzle::b64);
  auto p = plan(m, {8, 0}, 0);
  CHECK(p.out_of_bounds == 4 * 8);  // columns 20..23 of each of the 8 rows
  std::set<std::uint64_t> global, shared;
  for (const auto& e : p.elements) {
    CHECK(shared.insert(e.shared_offset).second);
    if (e.in_bounds) CHECK(global.insert(e.global_offset).second);
  }
  CHECK(global.size() == 12 * 8);
  // Column 19 of row 7: global 19 * 4 + 7 * 80 = 636; box column 11 = chunk 2, byte 12; row 7 is
  // on line 3, chunk 2 ^ 3 = 1: shared 7 * 64 + 16 + 12 = 476.
  const auto& e = p.elements[7 * 16 + 11];
  check_spot(e, {true, 636, 476});
}
