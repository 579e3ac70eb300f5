// Fragment layouts of mma.sync, ldmatrix and wmma (gpueq/exec/fragments.hpp): each layout covers
// its matrix (exactly once where the ISA says so), spot values match the PTX ISA formulas, and
// plain-C++ warps built on the layouts compute D = A*B + C: fragments distributed by hand, fed
// by simulated ldmatrix the way CUTLASS-style kernels do, and through wmma load/mma/store.
#include "gpueq/exec/fragments.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

namespace fr = gpueq::exec::fragments;
using fr::coord;
using fr::element_type;
using fr::mma_shape;
using fr::operand;
using fr::slot;

constexpr element_type f16 = element_type::f16, bf16 = element_type::bf16, tf32 = element_type::tf32,
                       f32 = element_type::f32;

// --- spot values, computed by hand from the ISA formulas quoted in the header ---------------

// 9.7.14.5.8 A: groupID = 5 >> 2 = 1, threadID_in_group = 5 % 4 = 1;
// a0: row = groupID = 1, col = threadID_in_group * 2 + (0 & 1) = 2.
static_assert(fr::mma_element(mma_shape::m16n8k16, operand::a, f16, 5, 0) == coord{1, 2});
// a7: row = groupID + 8 = 9 (i = 7 is not in 0..1 or 4..5), col = 1 * 2 + 1 + 8 = 11.
static_assert(fr::mma_element(mma_shape::m16n8k16, operand::a, f16, 5, 7) == coord{9, 11});
// a2 of lane 30 (groupID 7, threadID_in_group 2): row 15, col 4.
static_assert(fr::mma_element(mma_shape::m16n8k16, operand::a, bf16, 30, 2) == coord{15, 4});
// B b3 of lane 5: row = threadID_in_group * 2 + (3 & 1) + 8 = 11, col = groupID = 1.
static_assert(fr::mma_element(mma_shape::m16n8k16, operand::b, f16, 5, 3) == coord{11, 1});
// C/D c3 of lane 31: row = groupID + 8 = 15, col = 3 * 2 + 1 = 7.
static_assert(fr::mma_element(mma_shape::m16n8k16, operand::c, f16, 31, 3) == coord{15, 7});
// 9.7.14.5.7 A .f16 a2 of lane 6 (groupID 1, thread 2): row = groupID + 8 = 9, col = 2 * 2 + 0 = 4.
static_assert(fr::mma_element(mma_shape::m16n8k8, operand::a, f16, 6, 2) == coord{9, 4});
// 9.7.14.5.7 A .tf32 a2 of lane 6: row = groupID = 1 (a0, a2), col = threadID_in_group + 4 = 6.
static_assert(fr::mma_element(mma_shape::m16n8k8, operand::a, tf32, 6, 2) == coord{1, 6});
// 9.7.14.5.7 B .f16 b1 of lane 6: row = 2 * 2 + 1 = 5, col = 1; B .tf32 b1: row = 2 + 4 = 6.
static_assert(fr::mma_element(mma_shape::m16n8k8, operand::b, f16, 6, 1) == coord{5, 1});
static_assert(fr::mma_element(mma_shape::m16n8k8, operand::b, tf32, 6, 1) == coord{6, 1});
// 9.7.14.5.6 A a1 of lane 7: row = groupID + 8 = 9, col = threadID_in_group = 3; B b0: (3, 1).
static_assert(fr::mma_element(mma_shape::m16n8k4, operand::a, tf32, 7, 1) == coord{9, 3});
static_assert(fr::mma_element(mma_shape::m16n8k4, operand::b, tf32, 7, 0) == coord{3, 1});
static_assert(fr::mma_holder(mma_shape::m16n8k16, operand::a, f16, {9, 11}) == slot{5, 7});

// Fragment sizes: A m16n8k16 four .f16x2 registers (a0..a7), B two (b0..b3), C/D four .f32.
static_assert(fr::mma_elements_per_lane(mma_shape::m16n8k16, operand::a) == 8);
static_assert(fr::mma_registers_per_lane(mma_shape::m16n8k16, operand::a, f16) == 4);
static_assert(fr::mma_registers_per_lane(mma_shape::m16n8k16, operand::b, bf16) == 2);
static_assert(fr::mma_registers_per_lane(mma_shape::m16n8k16, operand::c, f32) == 4);
static_assert(fr::mma_registers_per_lane(mma_shape::m16n8k16, operand::c, f16) == 2);
static_assert(fr::mma_registers_per_lane(mma_shape::m16n8k8, operand::a, f16) == 2);
static_assert(fr::mma_registers_per_lane(mma_shape::m16n8k8, operand::a, tf32) == 4);
static_assert(fr::mma_registers_per_lane(mma_shape::m16n8k4, operand::b, tf32) == 1);

// ldmatrix: thread 0 receives the first fragment (row 0, columns 0 and 1), a group of four
// threads a whole row; .trans the same over the transpose.
static_assert(fr::ldmatrix_element(false, 0, 1) == coord{0, 1});
static_assert(fr::ldmatrix_element(false, 7, 0) == coord{1, 6});
static_assert(fr::ldmatrix_element(true, 7, 0) == coord{6, 1});
static_assert(fr::ldmatrix_address_row(13) == fr::ldmatrix_row{1, 5});
static_assert(fr::ldmatrix_row_source(3, 7) == 31);
static_assert(fr::ldmatrix_supplies_address(2, 15) && !fr::ldmatrix_supplies_address(2, 16));

// wmma register counts (9.7.14.4.1) and our layout.
static_assert(fr::wmma_registers_per_lane(operand::a, f16) == 8);
static_assert(fr::wmma_registers_per_lane(operand::b, f16) == 8);
static_assert(fr::wmma_registers_per_lane(operand::a, bf16) == 4);
static_assert(fr::wmma_registers_per_lane(operand::c, f32) == 8);
static_assert(fr::wmma_registers_per_lane(operand::c, f16) == 4);
static_assert(fr::wmma_copies(operand::a, f16) == 2 && fr::wmma_copies(operand::c, f32) == 1);
static_assert(fr::wmma_element(operand::a, f16, 5, 15) == fr::wmma_element(operand::a, f16, 5, 7));
static_assert(fr::wmma_element(operand::c, f32, 31, 7) == coord{15, 15});

// Coverage, at compile time for a few (the test cases below walk all of them).
static_assert(fr::check_mma_layout(mma_shape::m16n8k16, operand::a, f16).bijective());
static_assert(fr::check_ldmatrix_layout(true).bijective());
static_assert(fr::check_wmma_layout(operand::a, f16).covers(2));

// --- a warp of registers ----------------------------------------------------------------------

struct mma_kind {
  mma_shape shape;
  element_type ab;
};
constexpr std::array<mma_kind, 6> mma_kinds{{{mma_shape::m16n8k16, f16},
                                             {mma_shape::m16n8k16, bf16},
                                             {mma_shape::m16n8k8, f16},
                                             {mma_shape::m16n8k8, bf16},
                                             {mma_shape::m16n8k8, tf32},
                                             {mma_shape::m16n8k4, tf32}}};

using matrix = std::vector<std::vector<std::int32_t>>;
using registers = std::vector<std::uint32_t>;  // one lane's fragment registers
using warp_registers = std::array<registers, fr::warp_size>;

// Element `index` of a fragment whose registers hold elements_per_register(t) elements each; a
// 16-bit element holds a small integer as its two's-complement bit pattern (this checks where
// data goes, not float encodings).
std::int32_t get(const registers& r, element_type t, std::uint32_t index) {
  if (fr::elements_per_register(t) == 2) {
    const auto bits = static_cast<std::uint16_t>(r.at(index / 2) >> (16 * (index % 2)));
    return static_cast<std::int16_t>(bits);
  }
  return static_cast<std::int32_t>(r.at(index));
}

void put(registers& r, element_type t, std::uint32_t index, std::int32_t v) {
  if (fr::elements_per_register(t) == 2) {
    const std::uint32_t shift = 16 * (index % 2);
    const std::uint32_t bits = static_cast<std::uint16_t>(static_cast<std::int16_t>(v));
    r.at(index / 2) = (r.at(index / 2) & ~(0xffffu << shift)) | (bits << shift);
    return;
  }
  r.at(index) = static_cast<std::uint32_t>(v);
}

matrix random_matrix(std::mt19937& rng, std::uint32_t rows, std::uint32_t cols) {
  std::uniform_int_distribution<std::int32_t> d(-8, 8);
  matrix m(rows, std::vector<std::int32_t>(cols));
  for (auto& row : m)
    for (auto& x : row) x = d(rng);
  return m;
}

matrix multiply_add(const matrix& a, const matrix& b, const matrix& c) {
  matrix d = c;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b[0].size(); ++j)
      for (std::size_t k = 0; k < b.size(); ++k) d[i][j] += a[i][k] * b[k][j];
  return d;
}

matrix columns(const matrix& m, std::size_t from, std::size_t count) {
  matrix out(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) out[i].assign(m[i].begin() + static_cast<std::ptrdiff_t>(from),
                                                          m[i].begin() + static_cast<std::ptrdiff_t>(from + count));
  return out;
}

warp_registers empty_registers(std::uint32_t count) {
  warp_registers w;
  for (auto& r : w) r.assign(count, 0);
  return w;
}

// Distribute a matrix into the lanes' mma fragments.
warp_registers distribute(const matrix& m, mma_kind k, operand o, element_type t) {
  warp_registers w = empty_registers(fr::mma_registers_per_lane(k.shape, o, t));
  for (std::uint32_t lane = 0; lane < fr::warp_size; ++lane)
    for (std::uint32_t i = 0; i < fr::mma_elements_per_lane(k.shape, o); ++i) {
      const coord at = fr::mma_element(k.shape, o, k.ab, lane, i);
      put(w[lane], t, i, m[at.row][at.col]);
    }
  return w;
}

// mma.sync as the engine runs it: gather A, B, C from the holders, multiply, scatter D.
warp_registers run_mma(mma_kind k, const warp_registers& a, const warp_registers& b, const warp_registers& c) {
  auto gather = [&](const warp_registers& w, operand o, element_type t) {
    const fr::extent e = fr::mma_extent(k.shape, o);
    matrix m(e.rows, std::vector<std::int32_t>(e.cols));
    for (std::uint32_t r = 0; r < e.rows; ++r)
      for (std::uint32_t col = 0; col < e.cols; ++col) {
        const slot s = fr::mma_holder(k.shape, o, k.ab, {r, col});
        m[r][col] = get(w[s.lane], t, s.index);
      }
    return m;
  };
  return distribute(multiply_add(gather(a, operand::a, k.ab), gather(b, operand::b, k.ab), gather(c, operand::c, f32)),
                    k, operand::c, f32);
}

// Each lane's D fragment against the directly computed product.
void check_d(const warp_registers& d, mma_kind k, const matrix& expected) {
  for (std::uint32_t lane = 0; lane < fr::warp_size; ++lane)
    for (std::uint32_t i = 0; i < fr::mma_elements_per_lane(k.shape, operand::c); ++i) {
      const coord at = fr::mma_element(k.shape, operand::c, k.ab, lane, i);
      CHECK(get(d[lane], f32, i) == expected[at.row][at.col]);
    }
}

// --- ldmatrix over a shared-memory array of 16-bit elements -----------------------------------

// address[lane]: the element offset lane supplies; lanes that supply none are never read.
warp_registers run_ldmatrix(const std::vector<std::uint16_t>& smem, const std::array<std::size_t, 32>& address,
                            std::uint32_t count, bool trans) {
  warp_registers w = empty_registers(count);
  for (std::uint32_t lane = 0; lane < fr::warp_size; ++lane)
    for (std::uint32_t r = 0; r < count; ++r)
      for (std::uint32_t half = 0; half < 2; ++half) {
        const coord at = fr::ldmatrix_element(trans, lane, half);
        const std::uint32_t source = fr::ldmatrix_row_source(r, at.row);
        REQUIRE(fr::ldmatrix_supplies_address(count, source));
        put(w[lane], f16, 2 * r + half, static_cast<std::int16_t>(smem.at(address[source] + at.col)));
      }
  return w;
}

// A row-major rows x cols tile at `base` with `stride` elements between row starts.
void store_tile(std::vector<std::uint16_t>& smem, std::size_t base, std::size_t stride, const matrix& m) {
  for (std::size_t r = 0; r < m.size(); ++r)
    for (std::size_t c = 0; c < m[r].size(); ++c)
      smem.at(base + r * stride + c) = static_cast<std::uint16_t>(static_cast<std::int16_t>(m[r][c]));
}

// Registers {first, first + 1, ...} of each lane, as an operand's vector expression.
warp_registers pick(const warp_registers& w, std::uint32_t first, std::uint32_t count) {
  warp_registers out = empty_registers(count);
  for (std::uint32_t lane = 0; lane < fr::warp_size; ++lane)
    for (std::uint32_t i = 0; i < count; ++i) out[lane][i] = w[lane].at(first + i);
  return out;
}

constexpr std::array<std::size_t, 32> lane_addresses(auto f) {
  std::array<std::size_t, 32> a{};
  for (std::uint32_t lane = 0; lane < 32; ++lane) a[lane] = f(lane);
  return a;
}

constexpr std::size_t unused_address = ~std::size_t{0};  // .at() throws if ever read

}  // namespace

TEST_CASE("fragments: every mma layout is a bijection onto its matrix") {
  for (const mma_kind k : mma_kinds)
    for (const operand o : {operand::a, operand::b, operand::c}) {
      CAPTURE(static_cast<int>(k.shape));
      CAPTURE(static_cast<int>(k.ab));
      CAPTURE(static_cast<int>(o));
      CHECK(fr::mma_supported(k.shape, k.ab));
      const fr::layout_report r = fr::check_mma_layout(k.shape, o, k.ab);
      CHECK(r.in_bounds);
      CHECK(r.holders_agree);
      CHECK(r.bijective());
    }
  CHECK_FALSE(fr::mma_supported(mma_shape::m16n8k16, tf32));
  CHECK_FALSE(fr::mma_supported(mma_shape::m16n8k4, f16));
}

TEST_CASE("fragments: m16n8k16 bf16 shares the f16 layout; C/D is one layout for every shape") {
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    for (std::uint32_t i = 0; i < 8; ++i)
      CHECK(fr::mma_element(mma_shape::m16n8k16, operand::a, bf16, lane, i) ==
            fr::mma_element(mma_shape::m16n8k16, operand::a, f16, lane, i));
    for (std::uint32_t i = 0; i < 4; ++i) {
      CHECK(fr::mma_element(mma_shape::m16n8k16, operand::b, bf16, lane, i) ==
            fr::mma_element(mma_shape::m16n8k16, operand::b, f16, lane, i));
      const coord c = fr::mma_element(mma_shape::m16n8k16, operand::c, f16, lane, i);
      CHECK(fr::mma_element(mma_shape::m16n8k8, operand::c, tf32, lane, i) == c);
      CHECK(fr::mma_element(mma_shape::m16n8k4, operand::c, tf32, lane, i) == c);
    }
    // The m16n8k8 .f16 A fragment is the left half (k < 8) of the m16n8k16 one: a0..a3 alike.
    for (std::uint32_t i = 0; i < 4; ++i)
      CHECK(fr::mma_element(mma_shape::m16n8k8, operand::a, f16, lane, i) ==
            fr::mma_element(mma_shape::m16n8k16, operand::a, f16, lane, i));
  }
}

TEST_CASE("fragments: out-of-range arguments throw") {
  CHECK_THROWS_AS((void)fr::mma_element(mma_shape::m16n8k16, operand::a, f16, 32, 0), std::out_of_range);
  CHECK_THROWS_AS((void)fr::mma_element(mma_shape::m16n8k16, operand::b, f16, 0, 4), std::out_of_range);
  CHECK_THROWS_AS((void)fr::mma_element(mma_shape::m16n8k16, operand::a, tf32, 0, 0), std::out_of_range);
  CHECK_THROWS_AS((void)fr::mma_holder(mma_shape::m16n8k8, operand::b, f16, {8, 0}), std::out_of_range);
  CHECK_THROWS_AS((void)fr::ldmatrix_element(false, 0, 2), std::out_of_range);
  CHECK_THROWS_AS((void)fr::ldmatrix_supplies_address(3, 0), std::out_of_range);
  CHECK_THROWS_AS((void)fr::wmma_element(operand::a, f32, 0, 0), std::out_of_range);
  CHECK_THROWS_AS((void)fr::wmma_element(operand::c, f32, 0, 8), std::out_of_range);
}

TEST_CASE("fragments: ldmatrix layouts are bijections and lanes 8m..8m+7 address matrix m") {
  CHECK(fr::check_ldmatrix_layout(false).bijective());
  CHECK(fr::check_ldmatrix_layout(true).bijective());
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    const fr::ldmatrix_row r = fr::ldmatrix_address_row(lane);
    CHECK(r.matrix == lane / 8);
    CHECK(fr::ldmatrix_row_source(r.matrix, r.row) == lane);
    for (std::uint32_t half = 0; half < 2; ++half) {
      const coord plain = fr::ldmatrix_element(false, lane, half);
      CHECK(plain == coord{lane / 4, 2 * (lane % 4) + half});
      CHECK(fr::ldmatrix_element(true, lane, half) == coord{plain.col, plain.row});
    }
  }
  for (std::uint32_t count : {1u, 2u, 4u})
    for (std::uint32_t lane = 0; lane < 32; ++lane)
      CHECK(fr::ldmatrix_supplies_address(count, lane) == (lane / 8 < count));
}

TEST_CASE("fragments: stmatrix is ldmatrix backwards, movmatrix a transpose in the row layout") {
  // Spot values by hand. stmatrix without .trans: stored (3, 5) comes from lane 4 * 3 + 5 / 2 = 14,
  // the high half (5 % 2). With .trans, stored (3, 5) is column-major: the row layout's (5, 3),
  // lane 4 * 5 + 3 / 2 = 21, high half.
  CHECK(fr::stmatrix_source(false, coord{3, 5}) == slot{14, 1});
  CHECK(fr::stmatrix_source(true, coord{3, 5}) == slot{21, 1});
  // movmatrix: lane 9 holds (9 / 4, 2 (9 % 4) + h) = (2, 2 + h) of the result, which is input
  // (2 + h, 2): lane 4 (2 + h) + 1, low half: lane 9 for h = 0, lane 13 for h = 1.
  CHECK(fr::movmatrix_source(9, 0) == slot{9, 0});
  CHECK(fr::movmatrix_source(9, 1) == slot{13, 0});
  for (bool trans : {false, true}) {
    // A store then a load (same addresses, same .trans) gives every lane its registers back.
    for (std::uint32_t lane = 0; lane < 32; ++lane)
      for (std::uint32_t half = 0; half < 2; ++half) {
        const coord stored = fr::ldmatrix_element(trans, lane, half);
        CHECK(fr::stmatrix_source(trans, stored) == slot{lane, half});
      }
  }
  // movmatrix twice is the identity; once, it is what ldmatrix.trans gives for the matrix that
  // ldmatrix without .trans would have given.
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    for (std::uint32_t half = 0; half < 2; ++half) {
      const slot once = fr::movmatrix_source(lane, half);
      CHECK(fr::movmatrix_source(once.lane, once.index) == slot{lane, half});
      CHECK(fr::ldmatrix_holder(false, fr::ldmatrix_element(true, lane, half)) == once);
    }
}

TEST_CASE("fragments: wmma layouts cover their 16x16 matrix, f16 a/b twice") {
  CHECK(fr::check_wmma_layout(operand::a, f16).covers(2));
  CHECK(fr::check_wmma_layout(operand::b, f16).covers(2));
  CHECK(fr::check_wmma_layout(operand::a, bf16).bijective());
  CHECK(fr::check_wmma_layout(operand::b, bf16).bijective());
  CHECK(fr::check_wmma_layout(operand::c, f32).bijective());
  CHECK(fr::check_wmma_layout(operand::c, f16).bijective());
  for (const operand o : {operand::a, operand::b, operand::c})
    for (const element_type t : {f16, bf16, f32})
      if (fr::wmma_supported(o, t)) {
        CHECK(fr::wmma_elements_per_lane(o, t) * 32 == 256 * fr::wmma_copies(o, t));
        for (std::uint32_t r = 0; r < 16; ++r)
          for (std::uint32_t c = 0; c < 16; ++c) CHECK(fr::wmma_holder(o, t, {r, c}).index < 8);
      }
  CHECK(fr::wmma_memory_offset(fr::matrix_layout::row, {2, 3}, 24) == 51);
  CHECK(fr::wmma_memory_offset(fr::matrix_layout::col, {2, 3}) == 50);
}

TEST_CASE("fragments: hand-distributed mma fragments compute D = A*B + C") {
  std::mt19937 rng(1234);
  for (const mma_kind k : mma_kinds) {
    CAPTURE(static_cast<int>(k.shape));
    CAPTURE(static_cast<int>(k.ab));
    const std::uint32_t kk = fr::mma_k(k.shape);
    const matrix a = random_matrix(rng, 16, kk), b = random_matrix(rng, kk, 8), c = random_matrix(rng, 16, 8);
    const warp_registers d = run_mma(k, distribute(a, k, operand::a, k.ab), distribute(b, k, operand::b, k.ab),
                                     distribute(c, k, operand::c, f32));
    check_d(d, k, multiply_add(a, b, c));
  }
}

TEST_CASE("fragments: ldmatrix feeds mma.m16n8k16 the way CUTLASS-style kernels do") {
  std::mt19937 rng(99);
  const mma_kind k{mma_shape::m16n8k16, f16};
  // Shared memory: A 16x16 row-major (stride 24, padded), B 16x16 row-major K x N (stride 24),
  // and B transposed, N x K row-major (stride 16), for the non-.trans load of B.
  constexpr std::size_t a_base = 0, b_base = 16 * 24, bt_base = 2 * 16 * 24, stride = 24;
  const matrix a = random_matrix(rng, 16, 16), b = random_matrix(rng, 16, 16), c0 = random_matrix(rng, 16, 8),
               c1 = random_matrix(rng, 16, 8);
  matrix bt(16, std::vector<std::int32_t>(16));
  for (std::size_t i = 0; i < 16; ++i)
    for (std::size_t j = 0; j < 16; ++j) bt[j][i] = b[i][j];
  std::vector<std::uint16_t> smem(bt_base + 16 * 16, 0);
  store_tile(smem, a_base, stride, a);
  store_tile(smem, b_base, stride, b);
  store_tile(smem, bt_base, 16, bt);

  // A: ldmatrix.x4, lane l gives row l % 16, column (l / 16) * 8: matrices 0..3 are the
  // quadrants (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15),
  // which are a0a1, a2a3, a4a5, a6a7.
  const warp_registers a_frag = run_ldmatrix(
      smem, lane_addresses([](std::uint32_t l) { return a_base + (l % 16) * stride + (l / 16) * 8; }), 4, false);
  const matrix expected0 = multiply_add(a, columns(b, 0, 8), c0), expected1 = multiply_add(a, columns(b, 8, 8), c1);
  const warp_registers c0_frag = distribute(c0, k, operand::c, f32), c1_frag = distribute(c1, k, operand::c, f32);

  SUBCASE("B by ldmatrix.x2.trans from the row-major K x N tile") {
    for (std::size_t n0 : {std::size_t{0}, std::size_t{8}}) {
      const warp_registers b_frag = run_ldmatrix(smem, lane_addresses([&](std::uint32_t l) {
                                                   return l < 16 ? b_base + l * stride + n0 : unused_address;
                                                 }),
                                                 2, true);
      check_d(run_mma(k, a_frag, b_frag, n0 == 0 ? c0_frag : c1_frag), k, n0 == 0 ? expected0 : expected1);
    }
  }
  SUBCASE("two B fragments by one ldmatrix.x4.trans (lane l: row k = l % 16, column (l / 16) * 8)") {
    const warp_registers b_frag = run_ldmatrix(
        smem, lane_addresses([](std::uint32_t l) { return b_base + (l % 16) * stride + (l / 16) * 8; }), 4, true);
    check_d(run_mma(k, a_frag, pick(b_frag, 0, 2), c0_frag), k, expected0);
    check_d(run_mma(k, a_frag, pick(b_frag, 2, 2), c1_frag), k, expected1);
  }
  SUBCASE("B by ldmatrix.x2 without .trans from the N x K tile (B column-major)") {
    const warp_registers b_frag = run_ldmatrix(smem, lane_addresses([](std::uint32_t l) {
                                                 return l < 16 ? bt_base + (l % 8) * 16 + (l / 8) * 8 : unused_address;
                                               }),
                                               2, false);
    check_d(run_mma(k, a_frag, b_frag, c0_frag), k, expected0);
  }
  SUBCASE("without .trans on the K x N tile the product is wrong (hgemm_mma_no_trans)") {
    const warp_registers b_frag = run_ldmatrix(
        smem, lane_addresses([](std::uint32_t l) { return l < 16 ? b_base + l * stride : unused_address; }), 2, false);
    const warp_registers d = run_mma(k, a_frag, b_frag, c0_frag);
    bool differs = false;
    for (std::uint32_t lane = 0; lane < 32; ++lane)
      for (std::uint32_t i = 0; i < 4; ++i) {
        const coord at = fr::mma_element(k.shape, operand::c, f16, lane, i);
        differs = differs || get(d[lane], f32, i) != expected0[at.row][at.col];
      }
    CHECK(differs);
  }
}

namespace {

// wmma over a memory of 32-bit words holding small integers (16-bit elements keep theirs too).
struct wmma_matrix_in_memory {
  std::vector<std::int32_t> words;
  fr::matrix_layout layout;
  std::uint32_t stride;
};

wmma_matrix_in_memory lay_out(const matrix& m, fr::matrix_layout layout, std::uint32_t stride) {
  wmma_matrix_in_memory out{std::vector<std::int32_t>(16 * stride, -99), layout, stride};
  for (std::uint32_t r = 0; r < 16; ++r)
    for (std::uint32_t c = 0; c < 16; ++c) out.words.at(fr::wmma_memory_offset(layout, {r, c}, stride)) = m[r][c];
  return out;
}

warp_registers wmma_load(operand o, element_type t, const wmma_matrix_in_memory& mem) {
  warp_registers w = empty_registers(fr::wmma_registers_per_lane(o, t));
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    for (std::uint32_t i = 0; i < fr::wmma_elements_per_lane(o, t); ++i)
      put(w[lane], t, i, mem.words.at(fr::wmma_memory_offset(mem.layout, fr::wmma_element(o, t, lane, i), mem.stride)));
  return w;
}

matrix wmma_gather(operand o, element_type t, const warp_registers& w) {
  matrix m(16, std::vector<std::int32_t>(16));
  for (std::uint32_t r = 0; r < 16; ++r)
    for (std::uint32_t c = 0; c < 16; ++c) {
      const slot s = fr::wmma_holder(o, t, {r, c});
      m[r][c] = get(w[s.lane], t, s.index);
    }
  return m;
}

warp_registers wmma_mma(element_type ab, const warp_registers& a, const warp_registers& b, const warp_registers& c) {
  const matrix d = multiply_add(wmma_gather(operand::a, ab, a), wmma_gather(operand::b, ab, b),
                                wmma_gather(operand::c, f32, c));
  warp_registers w = empty_registers(8);
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    for (std::uint32_t i = 0; i < 8; ++i) {
      const coord at = fr::wmma_element(operand::c, f32, lane, i);
      put(w[lane], f32, i, d[at.row][at.col]);
    }
  return w;
}

// wmma.store.d: every slot writes its element (copies would write the same value).
std::vector<std::int32_t> wmma_store(const warp_registers& d, fr::matrix_layout layout, std::uint32_t stride) {
  std::vector<std::int32_t> words(16 * stride, -99);
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    for (std::uint32_t i = 0; i < 8; ++i)
      words.at(fr::wmma_memory_offset(layout, fr::wmma_element(operand::c, f32, lane, i), stride)) = get(d[lane], f32, i);
  return words;
}

}  // namespace

TEST_CASE("fragments: wmma load -> mma -> store computes A*B + C, load -> store copies") {
  std::mt19937 rng(7);
  const matrix a = random_matrix(rng, 16, 16), b = random_matrix(rng, 16, 16), c = random_matrix(rng, 16, 16);
  using fr::matrix_layout;
  for (const element_type ab : {f16, bf16})
    for (const matrix_layout al : {matrix_layout::row, matrix_layout::col})
      for (const matrix_layout bl : {matrix_layout::row, matrix_layout::col}) {
        CAPTURE(static_cast<int>(ab));
        CAPTURE(static_cast<int>(al));
        CAPTURE(static_cast<int>(bl));
        const warp_registers a_frag = wmma_load(operand::a, ab, lay_out(a, al, 24));
        const warp_registers b_frag = wmma_load(operand::b, ab, lay_out(b, bl, 16));
        const warp_registers c_frag = wmma_load(operand::c, f32, lay_out(c, matrix_layout::row, 20));
        // Both copies of a .f16 element agree after a load.
        for (std::uint32_t lane = 0; lane < 32; ++lane)
          for (std::uint32_t i = 8; i < fr::wmma_elements_per_lane(operand::a, ab); ++i)
            CHECK(get(a_frag[lane], ab, i) == get(a_frag[lane], ab, i - 8));
        const std::vector<std::int32_t> stored = wmma_store(wmma_mma(ab, a_frag, b_frag, c_frag), matrix_layout::col, 16);
        CHECK(stored == lay_out(multiply_add(a, b, c), matrix_layout::col, 16).words);
      }
  for (const matrix_layout l : {matrix_layout::row, matrix_layout::col}) {
    const wmma_matrix_in_memory mem = lay_out(c, l, 20);
    CHECK(wmma_store(wmma_load(operand::c, f32, mem), l, 20) == mem.words);
  }
}

TEST_CASE("fragments: uniform arithmetic on every wmma register scales the matrix") {
  // The ISA lets a kernel scale all fragment registers uniformly; both .f16 copies scale alike.
  std::mt19937 rng(8);
  const matrix a = random_matrix(rng, 16, 16), b = random_matrix(rng, 16, 16), zero(16, std::vector<std::int32_t>(16));
  warp_registers a_frag = wmma_load(operand::a, f16, lay_out(a, fr::matrix_layout::row, 16));
  for (auto& lane : a_frag)
    for (std::uint32_t i = 0; i < 16; ++i) put(lane, f16, i, 3 * get(lane, f16, i));
  const warp_registers d = wmma_mma(f16, a_frag, wmma_load(operand::b, f16, lay_out(b, fr::matrix_layout::row, 16)),
                                    wmma_load(operand::c, f32, lay_out(zero, fr::matrix_layout::row, 16)));
  matrix expected = multiply_add(a, b, zero);
  for (auto& row : expected)
    for (auto& x : row) x *= 3;
  CHECK(wmma_store(d, fr::matrix_layout::row, 16) == lay_out(expected, fr::matrix_layout::row, 16).words);
}
