// wgmma (Hopper warpgroup MMA): the matrix-descriptor address map on hand-computed cases for each
// swizzle mode, the fragment layouts, the corpus's wgmma GEMMs (examples/kernels/hopper/
// wgmma_gemm.ptx) against a matrix product in plain C++, an m64n8k16 tile written here (A from a
// descriptor or from registers, scale-d, imm-scale-a, an f16 accumulator) and an m64n8k8 .tf32
// one, and the errors of the asynchronous model: an accumulator read or written before the
// wgmma.wait_group that retires its MMA, a shared operand overwritten before that wait, a missing
// wgmma.fence, a block of incomplete warpgroups.
// Expected values come from the ISA's formulas written out here (never from gpueq). The inline
// PTX is accepted by `ptxas -arch=sm_90a` (with .target sm_90a).
#include "harness.hpp"

#include <gpueq/exec/wgmma_layout.hpp>

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

using namespace exec_test;
namespace wg = gpueq::exec::wgmma;

TEST_CASE("wgmma matrix descriptors decode as the ISA lays them out") {
  // Triton's sm_90a matmul (examples/kernels/triton/matmul_ptr_sm90a_w4.ptx): A's descriptor
  // 0x8000002001000000 | (address >> 4) and B's 0x4000004001000000 | (address >> 4).
  auto a = wg::decode(0x8000002001000000ull | 0x0123);
  CHECK(a.start == 0x1230);
  CHECK(a.leading == 4096);  // 0x100 << 4
  CHECK(a.stride == 512);    // 0x20 << 4
  CHECK(a.base_offset == 0);
  CHECK(a.mode == wg::swizzle::b64);
  auto b = wg::decode(0x4000004001000000ull);
  CHECK(b.start == 0);
  CHECK(b.leading == 4096);
  CHECK(b.stride == 1024);
  CHECK(b.mode == wg::swizzle::b128);
  auto c = wg::decode(0xC000000000000000ull | 7ull << 49 | 0x3fff);
  CHECK(c.mode == wg::swizzle::b32);
  CHECK(c.base_offset == 7);
  CHECK(c.start == 0x3fff0);
  CHECK(wg::encode(c) == (0xC000000000000000ull | 7ull << 49 | 0x3fff));
}

TEST_CASE("wgmma element addresses, by hand, for every swizzle mode and both majors") {
  const std::uint32_t half = 2;
  SUBCASE("no swizzle, K-major: core matrices of 8 rows x 16 bytes, LBO along K, SBO along M") {
    wg::descriptor d{0x100, 128, 1024, 0, wg::swizzle::none};
    // (m 9, k 10): 1024 (second 8-row group) + 16 (row 1) + 128 (second k core matrix) + 4 (k 10 % 8 = 2 halves)
    CHECK(wg::element_address(d, false, half, 9, 10) == 0x100 + 1024 + 16 + 128 + 4);
    CHECK(wg::element_address(d, false, half, 0, 0) == 0x100);
    CHECK(wg::element_address(d, false, half, 7, 7) == 0x100 + 7 * 16 + 14);
    // tf32 (4 bytes): k 5 is in the second 16-byte column, 4 bytes into it
    CHECK(wg::element_address(d, false, 4, 1, 5) == 0x100 + 16 + 128 + 4);
  }
  SUBCASE("no swizzle, MN-major: 16 bytes along N, k rows at 16 bytes, LBO between k groups, SBO along N") {
    wg::descriptor d{0, 128, 1024, 0, wg::swizzle::none};
    // (n 10, k 9): n bytes 20 = second 16-byte unit (SBO 1024) + 4; k 9: row 1 (16) of the second k group (128)
    CHECK(wg::element_address(d, true, half, 10, 9) == 1024 + 4 + 16 + 128);
    CHECK(wg::element_address(d, true, half, 7, 7) == 14 + 7 * 16);
  }
  SUBCASE("128-byte swizzle, K-major: rows of 128 bytes, chunk XOR row % 8") {
    wg::descriptor d{1024, 16, 1024, 0, wg::swizzle::b128};
    // (m 3, k 20): 1024 + 3 * 128 + 40 = 1448 = 0b101'1010'1000: chunk 2 of row 3 -> chunk 1, byte 8
    CHECK(wg::element_address(d, false, half, 3, 20) == 1024 + 3 * 128 + 1 * 16 + 8);
    // (m 11, k 0): second atom (SBO), row 3: chunk 0 -> chunk 3
    CHECK(wg::element_address(d, false, half, 11, 0) == 1024 + 1024 + 3 * 128 + 3 * 16);
    // the start advanced by 32 bytes (the next k16 step) keeps the row: (m 5, k 0) is chunk 2 of row 5 -> 7
    wg::descriptor e{1024 + 32, 16, 1024, 0, wg::swizzle::b128};
    CHECK(wg::element_address(e, false, half, 5, 0) == 1024 + 5 * 128 + 7 * 16);
  }
  SUBCASE("64-byte swizzle, K-major: rows of 64 bytes, bits 4-5 XOR bits 7-8") {
    wg::descriptor d{512, 16, 512, 0, wg::swizzle::b64};
    // (m 5, k 12): 512 + 320 + 24 = 856 = 0b11'0101'1000; bits 7-8 = 2: chunk 1 (bits 4-5) -> 3: 888
    CHECK(wg::element_address(d, false, half, 5, 12) == 888);
    // (m 1, k 0): 576, bits 7-8 = 0 (row 1 of the pattern shares the 128-byte line of row 0): unchanged
    CHECK(wg::element_address(d, false, half, 1, 0) == 576);
  }
  SUBCASE("32-byte swizzle, K-major: rows of 32 bytes, bit 4 XOR bit 7") {
    wg::descriptor d{256, 16, 256, 0, wg::swizzle::b32};
    // (m 6, k 9): 256 + 192 + 18 = 466 = 0b1'1101'0010, bit 7 = 1: bit 4 flips: 450
    CHECK(wg::element_address(d, false, half, 6, 9) == 450);
    CHECK(wg::element_address(d, false, half, 2, 0) == 256 + 64);  // bit 7 of 320 is 0
  }
  SUBCASE("128-byte swizzle, MN-major: k rows of 128 bytes, LBO between 64-column atoms, SBO between k groups") {
    wg::descriptor d{2048, 8192, 1024, 0, wg::swizzle::b128};
    // (n 70, k 11): n bytes 140 -> second atom (8192) + 12; k 11 -> row 3 (384) of the second k group (1024):
    // 2048 + 8192 + 1024 + 384 + 12 = 11660, row 3 of the pattern: chunk 0 -> 3
    CHECK(wg::element_address(d, true, half, 70, 11) == 11660 + 48);
  }
  SUBCASE("the base offset shifts the pattern's rows") {
    // a 128B pattern that starts at 384 (base offset (384 >> 7) & 7 = 3): its row 0 is unswizzled
    wg::descriptor d{384, 16, 1024, 3, wg::swizzle::b128};
    CHECK(wg::element_address(d, false, half, 0, 8) == 384 + 16);
    CHECK(wg::element_address(d, false, half, 1, 0) == 512 + 16);  // row 1: chunk 0 -> 1
    d.base_offset = 0;  // read as if the pattern started at 0: 384 is row 3
    CHECK(wg::element_address(d, false, half, 0, 8) == 384 + (1 ^ 3) * 16);
  }
}

TEST_CASE("wgmma fragment layouts follow the ISA's figures") {
  // D: thread 37 = warp 1, lane 5 (groupID 1, threadID_in_group 1); d6: row 16 + 1 + 8, col 8 + 2
  CHECK(wg::accumulator_element(37, 6) == wg::coord{25, 10});
  CHECK(wg::accumulator_element(0, 0) == wg::coord{0, 0});
  CHECK(wg::accumulator_element(127, 31) == wg::coord{63, 63});
  // A .f16: thread 70 = warp 2, lane 6 (groupID 1, threadID_in_group 2); a5: row 32 + 1, col 4 + 1 + 8
  CHECK(wg::a_element(false, 70, 5) == wg::coord{33, 13});
  // A .tf32: thread 3 (groupID 0, threadID_in_group 3); a3: row 8, col 3 + 4
  CHECK(wg::a_element(true, 3, 3) == wg::coord{8, 7});
}

namespace {

// The 1-based line of the last `needle` in kernel `entry` of a PTX file.
std::uint32_t wg_last_line_in(const std::string& path, std::string_view needle, std::string_view entry) {
  const auto found = entry_lines_of(path, entry, needle);
  REQUIRE(!found.empty());
  return found.back();
}

exec::launch wg_gemm64(std::uint32_t threads) {
  return one_cta(threads, {tensor("A", exec::rkind::f16, {64, 64}, true, false),
                           tensor("B", exec::rkind::f16, {64, 64}, true, false),
                           tensor("C", exec::rkind::f32, {64, 64}, false, true)});
}

template <class D>
std::size_t wg_gemm_mismatches(std::string_view entry, std::uint64_t seed) {
  auto k = load_file(corpus_path("hopper/wgmma_gemm.ptx"), entry);
  exec::launch l = wg_gemm64(128);
  values v = small_integers(seed);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < 64; ++i)
    for (std::uint32_t j = 0; j < 64; ++j) {
      rat want = 0;
      for (std::uint32_t q = 0; q < 64; ++q) want += v("A", i * 64 + q) * v("B", q * 64 + j);
      auto& got = r.out["C"][i * 64 + j];
      REQUIRE(got.has_value());
      bad += f.at(*got, l) != want;
    }
  return bad;
}

}  // namespace

TEST_CASE_TEMPLATE("the corpus wgmma GEMM computes A B (no swizzle and 128-byte swizzle)", D, exec::exact_domain,
                   exec::float32_domain, exec::symbolic_domain) {
  for (std::string_view entry : {"gemm_wgmma_plain", "gemm_wgmma_sw128"}) {
    CAPTURE(entry);
    CHECK(wg_gemm_mismatches<D>(entry, 1) == 0);
  }
}

TEST_CASE("the corpus wgmma GEMM that stores an accumulator before wgmma.wait_group is an error") {
  auto k = load_file(corpus_path("hopper/wgmma_gemm.ptx"), "gemm_wgmma_early_read");
  fixture<exec::exact_domain> f(small_integers(1));
  auto e = expect_error(*k, wg_gemm64(128), f.d);
  CHECK(e.kind == exec::error_kind::uninitialized);
  CAPTURE(e.message);
  CHECK(contains(e.message, "st.global"));
  CHECK(contains(e.message, "register %f129 belongs to the wgmma.mma_async at "));
  // the register's owner is the last of the four chained MMAs
  CHECK(contains(e.message, "wgmma_gemm.ptx:" + std::to_string(wg_last_line_in(corpus_path("hopper/wgmma_gemm.ptx"),
                                                                                "wgmma.mma_async", "gemm_wgmma_early_read"))));
  CHECK(contains(e.message, "still in flight"));
}

namespace {

// One m64n8k16 tile: thread t copies A's 16 bytes t (row t / 2, k halves 8 (t % 2) ..) into the
// no-swizzle K-major layout (LBO 128, SBO 256) and, for t < 16, row t of B (8 halves) to 16 t
// (N-major: LBO 128 between k groups, SBO unused for n < 8); then D = A B (+ C) and each thread
// stores its four accumulators d0..d3 to Y[4 t + i].
constexpr std::string_view wg_tile = R"(
.visible .entry tile(.param .u64 y_param, .param .u64 a_param, .param .u64 b_param, .param .u64 af_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<40>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<20>;
  .reg .b16 %h<5>;
  .shared .align 128 .b8 sA[2048];
  .shared .align 128 .b8 sB[256];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [a_param];
  ld.param.u64 %rd3, [b_param];
  ld.param.u64 %rd15, [af_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd5];
  shr.u32 %r6, %r1, 1;
  and.b32 %r7, %r1, 1;
  shr.u32 %r8, %r6, 3;
  and.b32 %r9, %r6, 7;
  shl.b32 %r10, %r8, 8;
  shl.b32 %r11, %r7, 7;
  shl.b32 %r12, %r9, 4;
  add.s32 %r13, %r10, %r11;
  add.s32 %r13, %r13, %r12;
  mov.u32 %r14, sA;
  add.s32 %r15, %r14, %r13;
  st.shared.v4.b32 [%r15], {%r2, %r3, %r4, %r5};
  setp.lt.u32 %p1, %r1, 16;
  @!%p1 bra SKIP_B;
  add.s64 %rd6, %rd3, %rd4;
  ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd6];
  mov.u32 %r16, sB;
  shl.b32 %r17, %r1, 4;
  add.s32 %r18, %r16, %r17;
  st.shared.v4.b32 [%r18], {%r2, %r3, %r4, %r5};
SKIP_B:
  bar.sync 0;
  mul.wide.u32 %rd16, %r1, 16;
  add.s64 %rd17, %rd15, %rd16;
  ld.global.v4.b32 {%r20, %r21, %r22, %r23}, [%rd17];
  mov.u32 %r14, sA;
  cvt.u64.u32 %rd7, %r14;
  shr.u64 %rd7, %rd7, 4;
  and.b64 %rd7, %rd7, 16383;
  or.b64 %rd8, %rd7, 68720001024;
  mov.u32 %r16, sB;
  cvt.u64.u32 %rd9, %r16;
  shr.u64 %rd9, %rd9, 4;
  and.b64 %rd9, %rd9, 16383;
  or.b64 %rd10, %rd9, 524288;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f3F800000;
  mov.f32 %f4, 0f3F800000;
  setp.ne.u32 %p2, %r1, 1000;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd8, %rd10, %p2, 1, 1, 0, 1;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  mul.wide.u32 %rd11, %r1, 16;
  add.s64 %rd12, %rd1, %rd11;
  st.global.v4.f32 [%rd12], {%f1, %f2, %f3, %f4};
  ret;
}
)";
// (%rd8: SBO 256 = 16 << 32 | LBO 128 = 8 << 16; %rd10: LBO 128 = 8 << 16.)

exec::launch wg_tile_launch(bool af = true) {
  exec::launch l = one_cta(128, {out_f32("Y", 512), tensor("A", exec::rkind::f16, {64, 16}, true, false),
                                 tensor("B", exec::rkind::f16, {16, 8}, true, false)});
  l.tensors.push_back(tensor("Af", exec::rkind::f16, {128 * 8}, true, false));
  l.params.push_back({true, 3});
  (void)af;
  return l;
}

// The ISA's fragment formulas, written out independently of exec/wgmma_layout.hpp.
struct wg_rc {
  std::uint32_t row, col;
};
wg_rc wg_d_at(std::uint32_t t, std::uint32_t i) {
  std::uint32_t warp = t / 32, lane = t % 32, group = lane >> 2, in_group = lane % 4;
  return {16 * warp + group + ((i == 2 || i == 3) ? 8u : 0u), in_group * 2 + (i & 1)};
}
wg_rc wg_a_at(std::uint32_t t, std::uint32_t i) {
  std::uint32_t warp = t / 32, lane = t % 32, group = lane >> 2, in_group = lane % 4;
  std::uint32_t row = group + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8u : 0u);
  std::uint32_t col = in_group * 2 + (i & 1) + (i >= 4 ? 8u : 0u);
  return {16 * warp + row, col};
}

std::string wg_replaced(std::string s, std::string_view from, std::string_view to) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// The tile's result under A = `a(row, k)`, with scale-d and imm-scale-a.
template <class F>
std::vector<rat> wg_tile_want(const values& v, F a, bool scale_d, int scale_a) {
  std::vector<rat> want(512);
  for (std::uint32_t t = 0; t < 128; ++t)
    for (std::uint32_t i = 0; i < 4; ++i) {
      wg_rc at = wg_d_at(t, i);
      rat acc = scale_d ? rat(1) : rat(0);
      for (std::uint32_t q = 0; q < 16; ++q) acc += scale_a * a(at.row, q) * v("B", q * 8 + at.col);
      want[4 * t + i] = acc;
    }
  return want;
}

template <class D>
void wg_check_tile(const std::string& ptx, const std::vector<rat>& want, const values& v) {
  auto k = load(ptx, "tile.ptx");
  fixture<D> f(v);
  exec::launch l = wg_tile_launch();
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < 512; ++i) {
    REQUIRE(r.out["Y"][i].has_value());
    bad += f.at(*r.out["Y"][i], l) != want[i];
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("one wgmma m64n8k16 tile: descriptors, registers, scale-d, imm-scale-a", D, exec::exact_domain,
                   exec::float32_domain, exec::symbolic_domain) {
  values v = small_integers(3);
  auto a_mem = [&](std::uint32_t row, std::uint32_t k) { return v("A", row * 16 + k); };
  std::string base(wg_tile);
  SUBCASE("A and B from descriptors, C = 1 accumulated") { wg_check_tile<D>(base, wg_tile_want(v, a_mem, true, 1), v); }
  SUBCASE("scale-d false ignores C; imm-scale-a -1 negates A") {
    std::string p = wg_replaced(base, "setp.ne.u32 %p2, %r1, 1000;", "setp.eq.u32 %p2, %r1, 1000;");
    p = wg_replaced(p, "%p2, 1, 1, 0, 1;", "%p2, -1, 1, 0, 1;");
    wg_check_tile<D>(p, wg_tile_want(v, a_mem, false, -1), v);
  }
  SUBCASE("an .f16 accumulator: two f16x2 registers, d0 d1 in the first") {
    std::string p = wg_replaced(base, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4},",
                                "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r30, %r31},");
    p = wg_replaced(p, "  wgmma.fence.sync.aligned;\n",
                    "  mov.b32 %r30, 0x3C003C00;\n  mov.b32 %r31, 0x3C003C00;\n  wgmma.fence.sync.aligned;\n");
    p = wg_replaced(p, "  mul.wide.u32 %rd11, %r1, 16;\n",
                    "  mov.b32 {%h1, %h2}, %r30;\n  mov.b32 {%h3, %h4}, %r31;\n  cvt.f32.f16 %f1, %h1;\n"
                    "  cvt.f32.f16 %f2, %h2;\n  cvt.f32.f16 %f3, %h3;\n  cvt.f32.f16 %f4, %h4;\n"
                    "  mul.wide.u32 %rd11, %r1, 16;\n");
    wg_check_tile<D>(p, wg_tile_want(v, a_mem, true, 1), v);  // 1.0 halves as C; sums stay exact in f16
  }
  SUBCASE("A from registers: thread t's four registers hold Af[8 t .. 8 t + 7] as a0..a7") {
    std::string p = wg_replaced(base, "{%f1, %f2, %f3, %f4}, %rd8, %rd10, %p2, 1, 1, 0, 1;",
                             "{%f1, %f2, %f3, %f4}, {%r20, %r21, %r22, %r23}, %rd10, %p2, 1, 1, 1;");
    std::vector<rat> amat(64 * 16);
    for (std::uint32_t t = 0; t < 128; ++t)
      for (std::uint32_t i = 0; i < 8; ++i) {
        wg_rc at = wg_a_at(t, i);
        amat[at.row * 16 + at.col] = v("Af", 8 * t + i);
      }
    wg_check_tile<D>(p, wg_tile_want(v, [&](std::uint32_t r, std::uint32_t k) { return amat[r * 16 + k]; }, true, 1), v);
  }
}

namespace {

// The tf32 tile (m64n8k8): the f16 tile's program with B stored K-major (thread t < 16 stores
// chunk (n t / 2, k 4 (t % 2)..) at n * 16 + (t % 2) * 128: no swizzle, LBO 128) and the .tf32
// instruction; its launch; and how many of the 512 outputs differ from D = A Bt^T + 1, computed
// here from the inputs.
std::string wg_tf32_tile() {
  std::string p = wg_replaced(std::string(wg_tile), "  mov.u32 %r16, sB;\n  shl.b32 %r17, %r1, 4;\n",
                              "  mov.u32 %r16, sB;\n  shr.u32 %r17, %r1, 1;\n  shl.b32 %r17, %r17, 4;\n"
                              "  and.b32 %r19, %r1, 1;\n  shl.b32 %r19, %r19, 7;\n  add.s32 %r17, %r17, %r19;\n");
  return wg_replaced(p, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd8, %rd10, %p2, 1, 1, 0, 1;",
                     "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd8, %rd10, %p2, 1, 1;");
}
exec::launch wg_tf32_launch() {
  return one_cta(128, {out_f32("Y", 512), tensor("A", exec::rkind::f32, {64, 8}, true, false),
                       tensor("Bt", exec::rkind::f32, {8, 8}, true, false),
                       tensor("Af", exec::rkind::f16, {128 * 8}, true, false)});
}
template <class D>
std::size_t wg_tf32_wrong(outcome<D>& r, fixture<D>& f, const values& v, const exec::launch& l) {
  std::size_t bad = 0;
  for (std::uint32_t t = 0; t < 128; ++t)
    for (std::uint32_t i = 0; i < 4; ++i) {
      wg_rc at = wg_d_at(t, i);
      rat want = 1;
      for (std::uint32_t q = 0; q < 8; ++q) want += v("A", at.row * 8 + q) * v("Bt", at.col * 8 + q);
      REQUIRE(r.out["Y"][4 * t + i].has_value());
      bad += f.at(*r.out["Y"][4 * t + i], l) != want;
    }
  return bad;
}

}  // namespace

TEST_CASE_TEMPLATE("one wgmma m64n8k8 .tf32 tile: 4-byte elements, both operands K-major", D, exec::exact_domain,
                   exec::float32_domain, exec::symbolic_domain) {
  // A (64 x 8 floats) lands where the f16 tile puts its chunks (a 16-byte chunk is 4 tf32 along
  // k); B is given as Bt (8 n x 8 k, row-major) and thread t < 16 stores chunk (n t / 2, k 4 (t % 2)..)
  // at n * 16 + (t % 2) * 128 (K-major, no swizzle, LBO 128).
  std::string p = wg_tf32_tile();
  auto k = load(p, "tile_tf32.ptx");
  exec::launch l = wg_tf32_launch();
  values v = small_integers(5);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(wg_tf32_wrong(r, f, v, l) == 0);
}

// The tf32 tile with one middle byte of each thread's first A element (a 4-byte stored value)
// overwritten between commit and wait: the element's first and last bytes still hold the value
// the MMA read, its second does not.
TEST_CASE("wgmma: a tf32 operand overwritten in one middle byte before the wait is an error") {
  std::string p = wg_tf32_tile();
  p = wg_replaced(p, "  wgmma.wait_group.sync.aligned 0;\n",
                  "  mov.b32 %r24, 255;\n  st.shared.u8 [%r15+1], %r24;\n  wgmma.wait_group.sync.aligned 0;\n");
  auto k = load(p, "tile_tf32.ptx");
  exec::launch l = wg_tf32_launch();
  fixture<exec::exact_domain> f(small_integers(3));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::barrier);
  CAPTURE(e.message);
  CHECK(contains(e.message, "tile_tf32.ptx:" + std::to_string(line_of(p, "wgmma.wait_group"))));
  CHECK(contains(e.message, "shared sA["));
  CHECK(contains(e.message, "an operand of the wgmma.mma_async at tile_tf32.ptx:" +
                                std::to_string(line_of(p, "wgmma.mma_async")) + ", is overwritten"));
}

// Byte 1 of each thread's first A element is stored apart (with the bits it had: the element is
// a small integer's float, whose byte 1 is 0) before the barrier, so the element spans two stored
// values. Storing that byte again in place between commit and wait keeps its slot: with other
// bits (255) it is an overwrite of the operand, with the same bits (0) it is not.
TEST_CASE("wgmma: a byte of an operand stored apart and stored again in place before the wait") {
  std::string p = wg_tf32_tile();
  p = wg_replaced(p, "SKIP_B:\n  bar.sync 0;\n", "SKIP_B:\n  mov.b32 %r25, 0;\n  st.shared.u8 [%r15+1], %r25;\n  bar.sync 0;\n");
  exec::launch l = wg_tf32_launch();
  values v = small_integers(3);
  fixture<exec::exact_domain> f(v);
  SUBCASE("other bits: an error at the wait") {
    p = wg_replaced(p, "  wgmma.wait_group.sync.aligned 0;\n",
                    "  mov.b32 %r24, 255;\n  st.shared.u8 [%r15+1], %r24;\n  wgmma.wait_group.sync.aligned 0;\n");
    auto k = load(p, "tile_tf32.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CAPTURE(e.message);
    CHECK(contains(e.message, "tile_tf32.ptx:" + std::to_string(line_of(p, "wgmma.wait_group"))));
    CHECK(contains(e.message, "an operand of the wgmma.mma_async at tile_tf32.ptx:" +
                                  std::to_string(line_of(p, "wgmma.mma_async")) + ", is overwritten"));
  }
  SUBCASE("the same bits: the product, computed by hand") {
    p = wg_replaced(p, "  wgmma.wait_group.sync.aligned 0;\n",
                    "  mov.b32 %r24, 0;\n  st.shared.u8 [%r15+1], %r24;\n  wgmma.wait_group.sync.aligned 0;\n");
    auto k = load(p, "tile_tf32.ptx");
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(wg_tf32_wrong(r, f, v, l) == 0);
  }
}

TEST_CASE("wgmma: an accumulator read or written before the retiring wgmma.wait_group is an error") {
  std::string base(wg_tile);
  fixture<exec::exact_domain> f(small_integers(3));
  SUBCASE("read between commit and wait") {
    std::string p = wg_replaced(base, "  wgmma.wait_group.sync.aligned 0;\n",
                             "  add.f32 %f9, %f3, %f3;\n  wgmma.wait_group.sync.aligned 0;\n");
    auto k = load(p, "tile.ptx");
    auto e = expect_error(*k, wg_tile_launch(), f.d);
    CHECK(e.kind == exec::error_kind::uninitialized);
    CAPTURE(e.message);
    CHECK(contains(e.message, "tile.ptx:" + std::to_string(line_of(p, "add.f32 %f9"))));
    CHECK(contains(e.message, "register %f3 belongs to the wgmma.mma_async at tile.ptx:" +
                                  std::to_string(line_of(p, "wgmma.mma_async"))));
  }
  SUBCASE("read after wait_group 1, which leaves the only group pending") {
    std::string p = wg_replaced(base, "wgmma.wait_group.sync.aligned 0;", "wgmma.wait_group.sync.aligned 1;");
    auto k = load(p, "tile.ptx");
    auto e = expect_error(*k, wg_tile_launch(), f.d);
    CHECK(e.kind == exec::error_kind::uninitialized);
    CAPTURE(e.message);
    CHECK(contains(e.message, "st.global.v4.f32"));
    CHECK(contains(e.message, "still in flight"));
  }
  SUBCASE("written between commit and wait") {
    std::string p = wg_replaced(base, "  wgmma.wait_group.sync.aligned 0;\n",
                             "  mov.f32 %f2, 0f00000000;\n  wgmma.wait_group.sync.aligned 0;\n");
    auto k = load(p, "tile.ptx");
    auto e = expect_error(*k, wg_tile_launch(), f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CAPTURE(e.message);
    CHECK(contains(e.message, "tile.ptx:" + std::to_string(line_of(p, "wgmma.wait_group"))));
    CHECK(contains(e.message, "register %f2, an accumulator of the wgmma.mma_async at tile.ptx:" +
                                  std::to_string(line_of(p, "wgmma.mma_async"))));
  }
  SUBCASE("an A operand in shared memory overwritten (by its own writer) before the wait") {
    std::string p = wg_replaced(base, "  wgmma.wait_group.sync.aligned 0;\n",
                                "  mov.b32 %r24, 0x7BFF7BFF;\n  st.shared.v4.b32 [%r15], {%r24, %r24, %r24, %r24};\n"
                                "  wgmma.wait_group.sync.aligned 0;\n");
    auto k = load(p, "tile.ptx");
    auto e = expect_error(*k, wg_tile_launch(), f.d);  // (65504, the largest half: no input is it)
    CHECK(e.kind == exec::error_kind::barrier);
    CAPTURE(e.message);
    CHECK(contains(e.message, "tile.ptx:" + std::to_string(line_of(p, "wgmma.wait_group"))));
    CHECK(contains(e.message, "shared sA["));
    CHECK(contains(e.message, "an operand of the wgmma.mma_async at tile.ptx:" +
                                  std::to_string(line_of(p, "wgmma.mma_async")) + ", is overwritten"));
  }
  SUBCASE("no wgmma.fence before the first wgmma.mma_async") {
    std::string p = wg_replaced(base, "  wgmma.fence.sync.aligned;\n", "");
    auto k = load(p, "tile.ptx");
    auto e = expect_error(*k, wg_tile_launch(), f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CAPTURE(e.message);
    CHECK(contains(e.message, "wgmma.fence"));
  }
  SUBCASE("a block of 96 threads has no whole warpgroup") {
    auto k = load(base, "tile.ptx");
    exec::launch l = wg_tile_launch();
    l.block = {96, 1, 1};
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CAPTURE(e.message);
    CHECK(contains(e.message, "whole warpgroups"));
  }
}
