// Tensor cores end to end: the corpus's GEMM kernels that feed mma.sync.m16n8k16 through
// ldmatrix (.x4 and .x4.trans) and that use wmma m16n16k16, run on small-integer half inputs in
// the exact and float32 domains (every product and partial sum is then exact), against a direct
// matrix product in plain C++. The broken variant that loads B without .trans must differ.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace exec_test;

namespace {

constexpr std::uint32_t M = 64, N = 64, K = 32;  // one 64x64 block tile, one K step of 32
constexpr long long alpha = 2, beta = -3;

// C = alpha * A B + beta * C for the hgemm kernels: (M, N, K, alpha, A, B, beta, C).
exec::launch gemm_launch(std::uint32_t threads) {
  exec::launch l;
  l.block = {threads, 1, 1};
  l.tensors = {tensor("A", exec::rkind::f16, {M, K}, true, false), tensor("B", exec::rkind::f16, {K, N}, true, false),
               tensor("C", exec::rkind::f32, {M, N}, true, true)};
  l.scalars = {{"M", false, M}, {"N", false, N}, {"K", false, K}, {"alpha", false, alpha}, {"beta", false, beta}};
  l.params = {{false, 0}, {false, 1}, {false, 2}, {false, 3}, {true, 0}, {true, 1}, {false, 4}, {true, 2}};
  return l;
}

std::vector<rat> reference(const values& v) {
  std::vector<rat> c(M * N);
  for (std::uint32_t i = 0; i < M; ++i)
    for (std::uint32_t j = 0; j < N; ++j) {
      rat acc = 0;
      for (std::uint32_t q = 0; q < K; ++q) acc += v("A", i * K + q) * v("B", q * N + j);
      c[i * N + j] = alpha * acc + beta * v("C", i * N + j);
    }
  return c;
}

std::string tensor_core_corpus(const std::string& rel) { return std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/" + rel; }

// Runs a corpus GEMM in domain D; the number of output elements that differ from the reference.
template <class D>
std::size_t mismatches(const std::string& file, std::string_view entry, std::uint64_t seed) {
  auto k = load_file(tensor_core_corpus(file), entry);
  exec::launch l = gemm_launch(128);
  values v = small_integers(seed);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  auto want = reference(v);
  auto& got = r.out["C"];
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    REQUIRE(got[i].has_value());
    bad += f.at(*got[i], l) != want[i];
  }
  CHECK(r.stats.warp_collectives > 0);
  return bad;
}

}  // namespace

TEST_CASE_TEMPLATE("mma.sync m16n8k16 fed by ldmatrix computes the matrix product", D, exec::exact_domain,
                   exec::float32_domain, exec::symbolic_domain) {
  for (std::uint64_t seed : {1u, 2u}) {
    CAPTURE(seed);
    CHECK(mismatches<D>("sgemm/hgemm_mma.ptx", "hgemm_mma", seed) == 0);
  }
}

TEST_CASE("mma.sync with B loaded by ldmatrix without .trans computes something else") {
  // hgemm_mma_no_trans feeds B's rows where mma expects its columns: most elements differ.
  CHECK(mismatches<exec::exact_domain>("sgemm/hgemm_mma_no_trans.ptx", "hgemm_mma_no_trans", 1) > M * N / 2);
}

TEST_CASE_TEMPLATE("wmma m16n16k16 load/mma/store computes the matrix product", D, exec::exact_domain,
                   exec::float32_domain) {
  CHECK(mismatches<D>("sgemm/hgemm_wmma.ptx", "hgemm_wmma", 3) == 0);
}

TEST_CASE("mma.sync inline: one m16n8k16 tile with fragments loaded by the ISA formulas") {
  // Each lane loads its A, B and C fragment elements straight from global memory at the
  // positions PTX ISA 9.7.14.5.8 gives (groupID = lane / 4, tig = lane % 4):
  //   a0,a1: (g, 2 tig + {0,1})   a2,a3: (g + 8, 2 tig + {0,1})
  //   a4,a5: (g, 2 tig + 8 + {0,1})   a6,a7: (g + 8, 2 tig + 8 + {0,1})
  //   b0,b1: (2 tig + {0,1}, g)   b2,b3: (2 tig + 8 + {0,1}, g)
  //   c0,c1: (g, 2 tig + {0,1})   c2,c3: (g + 8, 2 tig + {0,1})
  // A is 16x16 row-major f16, B is stored transposed (Bt[n][k], 8x16 f16) so a lane's b pair
  // is contiguous, C/D are 16x8 f32.
  constexpr std::string_view tile = R"(
.visible .entry tile(.param .u64 d_param, .param .u64 a_param, .param .u64 bt_param, .param .u64 c_param)
{
  .reg .b32 %r<40>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [d_param];
  ld.param.u64 %rd2, [a_param];
  ld.param.u64 %rd3, [bt_param];
  ld.param.u64 %rd4, [c_param];
  mov.u32 %r1, %laneid;
  shr.u32 %r2, %r1, 2;
  and.b32 %r3, %r1, 3;
  shl.b32 %r4, %r3, 1;
  mad.lo.u32 %r5, %r2, 16, %r4;
  mul.wide.u32 %rd5, %r5, 2;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.b32 %r10, [%rd6];
  ld.global.b32 %r11, [%rd6+256];
  ld.global.b32 %r12, [%rd6+16];
  ld.global.b32 %r13, [%rd6+272];
  add.s64 %rd7, %rd3, %rd5;
  ld.global.b32 %r14, [%rd7];
  ld.global.b32 %r15, [%rd7+16];
  mad.lo.u32 %r6, %r2, 8, %r4;
  mul.wide.u32 %rd8, %r6, 4;
  add.s64 %rd9, %rd4, %rd8;
  ld.global.v2.f32 {%f1, %f2}, [%rd9];
  ld.global.v2.f32 {%f3, %f4}, [%rd9+256];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f1, %f2, %f3, %f4};
  add.s64 %rd10, %rd1, %rd8;
  st.global.v2.f32 [%rd10], {%f5, %f6};
  st.global.v2.f32 [%rd10+256], {%f7, %f8};
  ret;
}
)";
  auto k = load(tile, "tile.ptx");
  exec::launch l = one_cta(32, {tensor("D", exec::rkind::f32, {16, 8}, false, true),
                                tensor("A", exec::rkind::f16, {16, 16}, true, false),
                                tensor("Bt", exec::rkind::f16, {8, 16}, true, false),
                                tensor("C", exec::rkind::f32, {16, 8}, true, false)});
  values v = small_integers(9);
  auto check_domain = [&](auto& f) {
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    for (std::uint32_t i = 0; i < 16; ++i)
      for (std::uint32_t j = 0; j < 8; ++j) {
        rat want = v("C", i * 8 + j);
        for (std::uint32_t q = 0; q < 16; ++q) want += v("A", i * 16 + q) * v("Bt", j * 16 + q);
        CAPTURE(i);
        CAPTURE(j);
        REQUIRE(r.out["D"][i * 8 + j].has_value());
        CHECK(f.at(*r.out["D"][i * 8 + j], l) == want);
      }
  };
  fixture<exec::exact_domain> ex(v);
  check_domain(ex);
  fixture<exec::float32_domain> fl(v);
  check_domain(fl);
  fixture<exec::symbolic_domain> sy(v);
  check_domain(sy);
}
