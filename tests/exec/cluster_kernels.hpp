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

// Remote mbarrier arrival (distributed shared memory): thread 0 of rank 0 initializes its mbarrier
// `bar` for 32 arrivals; a cluster barrier orders the init before everything else. Each thread i of
// rank 1 stores 100 + i into rank 0's s[i] through mapa and arrives (release, cluster scope) on
// rank 0's bar through mapa. Rank 0's threads wait on phase 0 of their own bar and read s[i]:
// y[i] = 100 + i. A final cluster barrier keeps rank 0's shared memory alive for rank 1.
inline constexpr const char* remote_arrive = R"(
.visible .entry remote_arrive(.param .u64 y)
{
  .reg .pred %p<5>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b8 bar[8];
  .shared .align 4 .b8 s[128];
  ld.param.u64 %rd1, [y];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, bar;
  mov.u32 %r4, s;
  shl.b32 %r5, %r1, 2;
  add.s32 %r6, %r4, %r5;
  setp.eq.s32 %p1, %r2, 0;
  setp.eq.s32 %p2, %r1, 0;
  and.pred %p3, %p1, %p2;
  @%p3 mbarrier.init.shared::cta.b64 [%r3], 32;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  @%p1 bra WAIT;
  add.s32 %r7, %r1, 100;
  mapa.shared::cluster.u32 %r8, %r6, 0;
  st.shared::cluster.u32 [%r8], %r7;
  mapa.shared::cluster.u32 %r9, %r3, 0;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r9];
  bra DONE;
WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p4, [%r3], 0;
  @!%p4 bra WAIT;
  ld.shared.u32 %r10, [%r6];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
DONE:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}
)";

// The exchange kernel with `from` replaced by `to` (once).
inline std::string exchange_with(const std::string& from, const std::string& to, const char* kernel = exchange) {
  std::string s = kernel;
  auto at = s.find(from);
  if (at == std::string::npos) return {};
  return s.replace(at, from.size(), to);
}

// A multicast bulk copy in a 2-CTA cluster of 32 threads each: each CTA's thread 0 initializes its
// own mbarrier `bar` (count 1), fences the init for the cluster, and after a cluster barrier arms
// it with the 128 bytes it will receive; rank 0's thread 0 then copies x[0..32) into `buf` of both
// CTAs (ctaMask 3), completing the bytes on each CTA's `bar`. Every thread waits on its own CTA's
// phase 0 and stores buf[tid] * (rank + 1) to y[rank * 32 + tid], so y[32 r + i] = (r + 1) x[i];
// a second cluster barrier keeps both CTAs' shared memory alive until every read is done.
inline constexpr const char* multicast = R"(
.visible .entry multicast(.param .u64 y, .param .u64 x)
{
  .reg .pred %p<5>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  .shared .align 128 .b8 buf[128];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [y];
  ld.param.u64 %rd2, [x];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, bar;
  mov.u32 %r4, buf;
  setp.ne.u32 %p1, %r1, 0;
  @!%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
  @!%p1 fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 128;
  setp.ne.u32 %p2, %r2, 0;
  or.pred %p3, %p1, %p2;
  @%p3 bra WAIT;
  mov.u16 %rs1, 3;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r4], [%rd2], 128, [%r3], %rs1;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r3], 0;
  @!%p4 bra WAIT;
  shl.b32 %r5, %r1, 2;
  add.s32 %r6, %r4, %r5;
  ld.shared.f32 %f1, [%r6];
  add.s32 %r7, %r2, 1;
  cvt.rn.f32.u32 %f2, %r7;
  mul.f32 %f3, %f1, %f2;
  shl.b32 %r8, %r2, 5;
  add.s32 %r9, %r8, %r1;
  mul.wide.u32 %rd3, %r9, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.f32 [%rd4], %f3;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

}  // namespace cluster_kernels
