// Cluster kernels shared by the execution tests (tests/exec/cluster_test.cpp) and the race tests
// (tests/race/cluster_race_test.cpp). The PTX passes `ptxas -arch=sm_90a`.
#pragma once

#include <string>

namespace cluster_kernels {

// Each CTA of a 2-CTA cluster stores its slice of x into its shared array s, the cluster barrier
// orders the stores before the reads, and every thread reads the same element of the other CTA's s
// through a .shared::cluster address from mapa (32-bit, as the PTX ISA spells it) and through a
// generic one (64-bit, as nvcc emits for cluster.map_shared_rank), and which rank getctarank says
// the addresses belong to: y[c*64 + i] = s_c[i] + 2 s_{1-c}[i] + 4 s_{1-c}[i] (generic),
// r[(c*64 + i) * 2 + {0,1}] = getctarank of the other CTA's address, of its own.
// After a second cluster barrier (nobody may exit while its shared memory may still be read).
inline constexpr const char* exchange = R"(
.visible .entry exchange(.param .u64 y, .param .u64 x, .param .u64 r)
{
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b8 s[256];
  ld.param.u64 %rd1, [y];
  ld.param.u64 %rd2, [x];
  ld.param.u64 %rd3, [r];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  shl.b32 %r3, %r2, 6;
  add.s32 %r3, %r3, %r1;
  mul.wide.u32 %rd4, %r3, 4;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  mov.u32 %r4, s;
  shl.b32 %r5, %r1, 2;
  add.s32 %r6, %r4, %r5;
  st.shared.f32 [%r6], %f1;
  bar.sync 0;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  mov.u32 %r7, %cluster_ctarank;
  xor.b32 %r8, %r7, 1;
  mapa.shared::cluster.u32 %r9, %r6, %r8;
  ld.shared::cluster.f32 %f2, [%r9];
  cvt.u64.u32 %rd6, %r6;
  cvta.shared.u64 %rd7, %rd6;
  mapa.u64 %rd8, %rd7, %r8;
  ld.f32 %f3, [%rd8];
  ld.shared.f32 %f4, [%r6];
  fma.rn.f32 %f5, %f2, 0f40000000, %f4;
  fma.rn.f32 %f6, %f3, 0f40800000, %f5;
  add.s64 %rd9, %rd1, %rd4;
  st.global.f32 [%rd9], %f6;
  getctarank.shared::cluster.u32 %r10, %r9;
  getctarank.u64 %r11, %rd7;
  mul.wide.u32 %rd10, %r3, 8;
  add.s64 %rd11, %rd3, %rd10;
  st.global.u32 [%rd11], %r10;
  st.global.u32 [%rd11+4], %r11;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

// The exchange kernel with `from` replaced by `to` (once).
inline std::string exchange_with(const std::string& from, const std::string& to) {
  std::string s = exchange;
  auto at = s.find(from);
  if (at == std::string::npos) return {};
  return s.replace(at, from.size(), to);
}

}  // namespace cluster_kernels
