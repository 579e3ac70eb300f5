// PTX kernels of the async-proxy tests (tests/exec/tma_exec_test.cpp for values,
// tests/race/async_proxy_race_test.cpp for ordering): TMA tensor loads and stores, bulk copies,
// a bulk reduction, tensor maps built on the device. Written by hand; with
// `.version 8.6 / .target sm_90a` in place of the harness's header every one passes
// `ptxas -arch=sm_90a` (the engine does not look at the target).
#pragma once

#include <string>
#include <string_view>

namespace tma_kernels {

// A 2-D TMA load of a box at tensor coordinates (X0, Y0) through the map parameter, completed on
// an mbarrier: thread 0 initializes it, a bar.sync publishes the init, thread 0 arms it with the
// box's bytes and issues the copy, every thread waits on phase 0 and stores the 32-bit word t of
// the shared tile to y[t]. `tile_decl` declares `tile` (its alignment is what the swizzle sees).
inline std::string load_box(std::string_view tile_decl, int x0, int y0, int box_bytes) {
  return R"(
.visible .entry tma_load(.param .u64 y_param, .param .align 64 .b8 map_param[128])
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<2>;
  .shared .align 4 .b8 pad[4];
  )" + std::string(tile_decl) + R"(
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r2, bar;
  mov.u32 %r3, tile;
  @!%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  bar.sync 0;
  @%p1 bra WAIT;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], )" + std::to_string(box_bytes) + R"(;
  mov.b64 %rd1, map_param;
  cvta.param.u64 %rd2, %rd1;
  prefetch.tensormap [%rd2];
  mov.u32 %r4, )" + std::to_string(x0) + R"(;
  mov.u32 %r5, )" + std::to_string(y0) + R"(;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r4, %r5}], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra WAIT;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r3, %r6;
  ld.shared.f32 %f1, [%r7];
  ld.param.u64 %rd3, [y_param];
  cvta.to.global.u64 %rd4, %rd3;
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd4, %rd5;
  st.global.f32 [%rd6], %f1;
  ret;
}
)";
}

// A TMA store (or, with `reduce`, a bulk tensor reduction .add) of an 8 x 8 f32 tile at tensor
// coordinates (8, 4): thread t writes 10 t + 1 to out[t] (t < 64), fences it for the async proxy
// (unless `fence` is false), a bar.sync orders it before thread 0's issue, and thread 0 commits
// the bulk group and waits for it to be read. `fence_by_issuer`: thread 0 alone fences, after the
// bar.sync (the other idiom the race context must accept).
inline std::string store_box(bool reduce, bool fence, bool fence_by_issuer = false) {
  std::string copy = reduce ? "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd2, {%r4, %r5}], [%r3];"
                            : "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r4, %r5}], [%r3];";
  std::string fence_all = fence && !fence_by_issuer ? "fence.proxy.async.shared::cta;" : "";
  std::string fence_one = fence && fence_by_issuer ? "fence.proxy.async.shared::cta;" : "";
  return R"(
.visible .entry tma_store(.param .align 64 .b8 map_param[128])
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<3>;
  .shared .align 128 .b8 out[256];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, out;
  cvt.rn.f32.u32 %f1, %r1;
  fma.rn.f32 %f2, %f1, 0f41200000, 0f3F800000;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r3, %r6;
  st.shared.f32 [%r7], %f2;
  )" + fence_all + R"(
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  )" + fence_one + R"(
  mov.b64 %rd1, map_param;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r4, 8;
  mov.u32 %r5, 4;
  )" + copy + R"(
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
DONE:
  ret;
}
)";
}

// Non-tensor bulk copies: thread 0 copies 64 bytes of x (from byte 32) into shared memory
// (complete_tx on an mbarrier), every thread waits, thread t < 16 doubles word t into a second
// buffer, fence, bar.sync, and thread 0 copies that buffer to y with a bulk-group store.
inline constexpr std::string_view bulk = R"(
.visible .entry bulk(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<3>;
  .shared .align 16 .b8 in[64];
  .shared .align 16 .b8 out[64];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r2, bar;
  mov.u32 %r3, in;
  mov.u32 %r8, out;
  ld.param.u64 %rd1, [x_param];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [y_param];
  cvta.to.global.u64 %rd4, %rd3;
  @!%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  bar.sync 0;
  @%p1 bra WAIT;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 64;
  add.u64 %rd5, %rd2, 32;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd5], 64, [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra WAIT;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r3, %r6;
  ld.shared.f32 %f1, [%r7];
  add.f32 %f2, %f1, %f1;
  add.u32 %r9, %r8, %r6;
  st.shared.f32 [%r9], %f2;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 bra DONE;
  cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%r8], 64;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
DONE:
  ret;
}
)";

// A bulk copy out of a 16-byte buffer that two 8-byte stores zeroed and an f32 store then covered
// in part (bytes 4..7 hold x[0]): the copy moves the 8-byte value's other bytes and the f32, so
// y = {0, x[0], 0, 0}.
inline constexpr std::string_view bulk_partly_covered = R"(
.visible .entry bulk_partly_covered(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<2>;
  .shared .align 16 .b8 buf[16];
  mov.u32 %r1, buf;
  ld.param.u64 %rd1, [x_param];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [y_param];
  cvta.to.global.u64 %rd4, %rd3;
  mov.b64 %rd5, 0;
  st.shared.u64 [%r1], %rd5;
  st.shared.u64 [%r1+8], %rd5;
  ld.global.f32 %f1, [%rd2];
  st.shared.f32 [%r1+4], %f1;
  fence.proxy.async.shared::cta;
  cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%r1], 16;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";

// A map built on the device, as Triton's tensor descriptors are: thread 0 zeroes 128 bytes of
// shared memory and sets the fields of a 2-D f32 map over x (16 x 16, box 8 x 4, global address
// from the x parameter) with tensormap.replace; the warp copies it to the global scratch tensor
// with tensormap.cp_fenceproxy (.sync.aligned: a warp collective) and acquires it
// (fence.proxy.tensormap::generic); thread 0 loads the box at (4, 8) with it, and thread t < 32
// stores word t of the tile to y[t].
inline constexpr std::string_view device_map = R"(
.visible .entry device_map(.param .u64 y_param, .param .u64 x_param, .param .u64 scratch_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<2>;
  .shared .align 128 .b8 desc[128];
  .shared .align 128 .b8 tile[128];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r2, bar;
  mov.u32 %r3, tile;
  mov.u32 %r10, desc;
  cvt.u64.u32 %rd10, %r10;
  ld.param.u64 %rd1, [x_param];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [scratch_param];
  cvta.to.global.u64 %rd4, %rd3;
  @%p1 bra SYNC;
  mov.u32 %r11, 0;
ZERO:
  add.u32 %r12, %r10, %r11;
  st.shared.b32 [%r12], 0;
  add.u32 %r11, %r11, 4;
  setp.lt.u32 %p3, %r11, 128;
  @%p3 bra ZERO;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd10], %rd2;
  tensormap.replace.tile.rank.shared::cta.b1024.b32 [%rd10], 1;
  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd10], 0, 8;
  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd10], 1, 4;
  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd10], 0, 16;
  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd10], 1, 16;
  tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%rd10], 0, 64;
  tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd10], 0, 1;
  tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd10], 1, 1;
  tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%rd10], 7;
  tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%rd10], 0;
  tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%rd10], 0;
  tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%rd10], 0;
SYNC:
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd4], [%rd10], 128;
  fence.proxy.tensormap::generic.acquire.gpu [%rd4], 128;
  bar.sync 0;
  @%p1 bra WAIT;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 128;
  mov.u32 %r4, 4;
  mov.u32 %r5, 8;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd4, {%r4, %r5}], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra WAIT;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r3, %r6;
  ld.shared.f32 %f1, [%r7];
  ld.param.u64 %rd5, [y_param];
  cvta.to.global.u64 %rd6, %rd5;
  mul.wide.u32 %rd7, %r1, 4;
  add.u64 %rd8, %rd6, %rd7;
  st.global.f32 [%rd8], %f1;
  ret;
}
)";

}  // namespace tma_kernels
