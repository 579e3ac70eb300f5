// PTX kernels of the mbarrier tests (tests/exec/mbarrier_test.cpp for the engine's semantics,
// tests/race/mbarrier_race_test.cpp for ordering and the classic ring bugs). Written by hand;
// with `.target sm_90` in place of the harness's header they pass `ptxas -arch=sm_90`
// (try_wait and expect_tx are sm_90 instructions; the engine does not look at the target).
#pragma once

#include <string>
#include <string_view>

namespace mbarrier_kernels {

// A two-stage ring: warp 0 produces, warp 1 consumes, four rounds. Producer lane i in round k
// waits until stage k % 2 is empty (parity ((k / 2) & 1) ^ 1: the first wait on each stage passes
// at once), stores x[32 k + i] to buf[stage][i] and arrives on full[stage]; consumer lane i waits
// on full[stage] with parity (k / 2) & 1, adds buf[stage][i] to its sum and arrives on
// empty[stage]. Then y[i] = x[i] + x[32 + i] + x[64 + i] + x[96 + i].
inline constexpr std::string_view ring = R"(
.visible .entry ring(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 full[2];
  .shared .align 8 .b64 empty[2];
  .shared .align 4 .f32 buf[64];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shr.u32 %r3, %r1, 5;
  mov.u32 %r4, full;
  mov.u32 %r5, empty;
  mov.u32 %r6, buf;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared::cta.b64 [%r4], 32;
  mbarrier.init.shared::cta.b64 [%r4+8], 32;
  mbarrier.init.shared::cta.b64 [%r5], 32;
  mbarrier.init.shared::cta.b64 [%r5+8], 32;
INIT_DONE:
  bar.sync 0;
  mov.u32 %r7, 0;
  mov.f32 %f1, 0f00000000;
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra CONSUMER;
PRODUCER:
  and.b32 %r8, %r7, 1;
  shr.u32 %r9, %r7, 1;
  and.b32 %r9, %r9, 1;
  xor.b32 %r10, %r9, 1;
  shl.b32 %r11, %r8, 3;
  add.s32 %r12, %r5, %r11;
WAIT_EMPTY:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r12], %r10;
  @!%p3 bra WAIT_EMPTY;
  shl.b32 %r13, %r7, 5;
  add.s32 %r13, %r13, %r2;
  mul.wide.u32 %rd3, %r13, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4];
  shl.b32 %r14, %r8, 5;
  add.s32 %r14, %r14, %r2;
  shl.b32 %r14, %r14, 2;
  add.s32 %r15, %r6, %r14;
  st.shared.f32 [%r15], %f2;
  add.s32 %r16, %r4, %r11;
  mbarrier.arrive.shared::cta.b64 %rd5, [%r16];
  add.s32 %r7, %r7, 1;
  setp.lt.u32 %p3, %r7, 4;
  @%p3 bra PRODUCER;
  ret;
CONSUMER:
  and.b32 %r8, %r7, 1;
  shr.u32 %r9, %r7, 1;
  and.b32 %r9, %r9, 1;
  shl.b32 %r11, %r8, 3;
  add.s32 %r16, %r4, %r11;
WAIT_FULL:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r16], %r9;
  @!%p3 bra WAIT_FULL;
  shl.b32 %r14, %r8, 5;
  add.s32 %r14, %r14, %r2;
  shl.b32 %r14, %r14, 2;
  add.s32 %r15, %r6, %r14;
  ld.shared.f32 %f2, [%r15];
  add.f32 %f1, %f1, %f2;
  add.s32 %r12, %r5, %r11;
  mbarrier.arrive.shared::cta.b64 %rd5, [%r12];
  add.s32 %r7, %r7, 1;
  setp.lt.u32 %p3, %r7, 4;
  @%p3 bra CONSUMER;
  mul.wide.u32 %rd6, %r2, 4;
  add.s64 %rd7, %rd1, %rd6;
  st.global.f32 [%rd7], %f1;
  ret;
}
)";

// `ring` with one piece of text replaced (a bug variant).
inline std::string ring_with(std::string_view from, std::string_view to) {
  std::string s(ring);
  auto at = s.find(from);
  if (at == std::string::npos) return {};
  s.replace(at, from.size(), to);
  return s;
}

// 64 threads: thread 0 initializes one mbarrier for 64 arrivals; after a barrier every thread
// stores its id to s[tid], arrives (keeping the state), records pending_count of that state in
// p[tid], waits on the state with test_wait, and copies s[(tid + 1) % 64] to y[tid].
inline constexpr std::string_view state_wait = R"(
.visible .entry state_wait(.param .u64 y_param, .param .u64 p_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .u32 s[64];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [p_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra READY;
  mbarrier.init.shared.b64 [%r2], 64;
READY:
  bar.sync 0;
  mov.u32 %r3, s;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r1;
  mbarrier.arrive.shared.b64 %rd3, [%r2];
  mbarrier.pending_count.b64 %r6, %rd3;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  st.global.u32 [%rd5], %r6;
WAIT:
  mbarrier.test_wait.shared.b64 %p2, [%r2], %rd3;
  @!%p2 bra WAIT;
  add.s32 %r7, %r1, 1;
  and.b32 %r7, %r7, 63;
  shl.b32 %r8, %r7, 2;
  add.s32 %r9, %r3, %r8;
  ld.shared.u32 %r10, [%r9];
  add.s64 %rd6, %rd1, %rd4;
  st.global.u32 [%rd6], %r10;
  ret;
}
)";

// One thread arrives with expect_tx of 128 bytes and completes them; 32 threads wait for the
// phase. transaction(n) completes only n bytes: with fewer than 128 the phase never completes.
inline constexpr std::string_view transaction_kernel = R"(
.visible .entry transaction(.param .u64 y_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 tma_bar;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tma_bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra READY;
  mbarrier.init.shared::cta.b64 [%r2], 1;
READY:
  bar.sync 0;
  @%p1 bra WAIT;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], 128;
  mbarrier.complete_tx.shared::cta.b64 [%r2], 128;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra WAIT;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";
inline std::string transaction(unsigned completed) {
  std::string s(transaction_kernel);
  const std::string from = "complete_tx.shared::cta.b64 [%r2], 128;";
  s.replace(s.find(from), from.size(), "complete_tx.shared::cta.b64 [%r2], " + std::to_string(completed) + ";");
  return s;
}

// cp.async tracked by an mbarrier (cp.async.mbarrier.arrive): 64 threads each copy x[t] to buf[t]
// with cp.async and hand the copy to the mbarrier `bar` (count 64), wait on its phase 0 and store
// buf[63 - t] to y[t], so y[t] = x[63 - t]. The variants (by the ARRIVE and WAIT lines):
// - `noinc`: `cp.async.mbarrier.arrive.noinc` is one of the 64 arrivals;
// - `inc`: without .noinc the pending count goes up before the asynchronous arrive and down after
//   it, so each thread also arrives itself (mbarrier.arrive);
// - `inc_no_arrive`: without .noinc and without the thread's own arrive nobody completes phase 0;
// - `bar_sync`: .noinc, but the readers wait with bar.sync, which does not wait for the copies.
enum class tracked_variant { noinc, inc, inc_no_arrive, bar_sync };
inline std::string cp_async_tracked(tracked_variant v) {
  const bool noinc = v == tracked_variant::noinc || v == tracked_variant::bar_sync;
  std::string arrive = noinc ? "  cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r2];\n"
                             : "  cp.async.mbarrier.arrive.shared.b64 [%r2];\n";
  if (v == tracked_variant::inc) arrive += "  mbarrier.arrive.shared::cta.b64 %rd6, [%r2];\n";
  std::string wait = v == tracked_variant::bar_sync ? "  bar.sync 0;\n"
                                                    : "WAIT:\n"
                                                      "  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;\n"
                                                      "  @!%p2 bra WAIT;\n";
  return R"(
.visible .entry tracked(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .f32 buf[64];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  mov.u32 %r3, buf;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared::cta.b64 [%r2], 64;
INIT_DONE:
  bar.sync 0;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  cp.async.ca.shared.global [%r5], [%rd4], 4;
)" + arrive + wait + R"(  sub.u32 %r6, 63, %r1;
  shl.b32 %r7, %r6, 2;
  add.s32 %r8, %r3, %r7;
  ld.shared.f32 %f1, [%r8];
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f1;
  ret;
}
)";
}

}  // namespace mbarrier_kernels
