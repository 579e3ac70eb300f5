// PTX kernels of the warp-specialization tests (issue 20 item 6): elect.sync, stmatrix, movmatrix,
// setmaxnreg and griddepcontrol (tests/exec/warp_ops_test.cpp for the engine's semantics,
// tests/race/warp_ops_race_test.cpp for stmatrix under the race context). Written by hand; with
// `.version 8.0` / `.target sm_90a` in place of the harness's header they pass
// `ptxas -arch=sm_90a` (setmaxnreg is an sm_90a instruction; the engine does not look at the
// target), except where a comment says ptxas rejects the variant.
#pragma once

#include <string>
#include <string_view>

namespace warp_ops_kernels {

// Replaces the first occurrence of `from` in `text` by `to`; empty when `from` does not occur (a
// test then fails on the empty kernel instead of running the unchanged one).
inline std::string with(std::string_view text, std::string_view from, std::string_view to) {
  std::string s(text);
  std::size_t at = s.find(from);
  if (at == std::string::npos) return {};
  return s.replace(at, from.size(), to);
}

// 64 threads. Threads 32 and 33 (lanes 0 and 1 of warp 1) exit first. Every other thread takes
// part in an elect.sync over the full mask and stores the leader's lane id (lead) and its own
// predicate as 0/1 (pred); then the lanes of the mask 0xf0f0f0f0 (lane % 8 >= 4) elect among
// themselves with the lane id going to the sink, and store their predicate (sub); the other lanes
// store 99 there.
inline constexpr std::string_view elect_leaders = R"(
.visible .entry elect_leaders(.param .u64 lead_param, .param .u64 pred_param, .param .u64 sub_param)
{
  .reg .pred %p<5>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [lead_param];
  ld.param.u64 %rd2, [pred_param];
  ld.param.u64 %rd3, [sub_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  sub.u32 %r3, %r1, 32;
  setp.lt.u32 %p1, %r3, 2;
  @%p1 exit;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  elect.sync %r4|%p2, 0xffffffff;
  selp.u32 %r5, 1, 0, %p2;
  st.global.u32 [%rd5], %r4;
  st.global.u32 [%rd6], %r5;
  mov.u32 %r6, 0xf0f0f0f0;
  shr.u32 %r7, %r6, %r2;
  and.b32 %r7, %r7, 1;
  setp.eq.u32 %p3, %r7, 0;
  mov.u32 %r8, 99;
  @%p3 bra DONE;
  elect.sync _|%p4, %r6;
  selp.u32 %r8, 1, 0, %p4;
DONE:
  st.global.u32 [%rd7], %r8;
  ret;
}
)";

// One warp. Register m (m < 4) of lane l holds the halves a[64 m + 2 l] (low) and
// a[64 m + 2 l + 1] (high). Lane l supplies the address of row l % 8 of matrix l / 8, at tile row
// q = 5 l mod 32 (16 bytes a row; 5 is odd, so the rows are a permutation). The stmatrix line and
// the number of address lanes (32 here) are replaced for .x1/.x2 and .trans; each address lane
// then copies the tile row it supplied to out[8 q .. 8 q + 7].
inline constexpr std::string_view stmatrix_layout = R"(
.visible .entry stmatrix_layout(.param .u64 out_param, .param .u64 a_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [out_param];
  ld.param.u64 %rd2, [a_param];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.b32 %r10, [%rd4];
  ld.global.b32 %r11, [%rd4+128];
  ld.global.b32 %r12, [%rd4+256];
  ld.global.b32 %r13, [%rd4+384];
  mul.lo.u32 %r2, %r1, 5;
  and.b32 %r2, %r2, 31;
  shl.b32 %r3, %r2, 4;
  mov.u32 %r4, tile;
  add.s32 %r5, %r4, %r3;
  stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r5], {%r10, %r11, %r12, %r13};
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra DONE;
  ld.shared.v4.b32 {%r14, %r15, %r16, %r17}, [%r5];
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd1, %rd5;
  st.global.v4.b32 [%rd6], {%r14, %r15, %r16, %r17};
DONE:
  ret;
}
)";
inline constexpr std::string_view stmatrix_x4_line =
    "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r5], {%r10, %r11, %r12, %r13};";
inline constexpr std::string_view stmatrix_rows_line = "setp.ge.u32 %p1, %r1, 32;";

// stmatrix_layout storing `count` (1, 2, 4) matrices, with .trans or not, through a generic
// address when `generic` (cvta.shared of the tile row, no state space on the stmatrix).
inline std::string stmatrix_variant(unsigned count, bool trans, bool generic = false) {
  static constexpr std::string_view regs[] = {"", "{%r10}", "{%r10, %r11}", "", "{%r10, %r11, %r12, %r13}"};
  std::string line = "stmatrix.sync.aligned.m8n8.x" + std::to_string(count) + (trans ? ".trans" : "") +
                     (generic ? "" : ".shared") + ".b16 [" + (generic ? "%rd7" : "%r5") + "], " +
                     std::string(regs[count]) + ";";
  if (generic) line = "cvt.u64.u32 %rd7, %r5;\n  cvta.shared.u64 %rd7, %rd7;\n  " + line;
  std::string s = with(stmatrix_layout, stmatrix_x4_line, line);
  return with(s, stmatrix_rows_line, "setp.ge.u32 %p1, %r1, " + std::to_string(8 * count) + ";");
}

// One warp: lane l loads the halves 2 l and 2 l + 1 of a row-major 8x8 f16 matrix a (its row
// fragment), transposes the matrix with movmatrix and stores its result at the same place of t.
inline constexpr std::string_view movmatrix_transpose = R"(
.visible .entry movmatrix_transpose(.param .u64 t_param, .param .u64 a_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [t_param];
  ld.param.u64 %rd2, [a_param];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.b32 %r2, [%rd4];
  movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;
  add.s64 %rd5, %rd1, %rd3;
  st.global.b32 [%rd5], %r3;
  ret;
}
)";

// 256 threads, two warpgroups: the producer group (warps 0-3) lowers its registers to 40, the
// consumer group (warps 4-7) raises them to 232 (the kernel's .maxnreg is 168); then every
// thread stores 1 (producer) or 2 (consumer) to out[tid]. griddepcontrol.wait first and
// griddepcontrol.launch_dependents last, as a PDL kernel has them.
inline constexpr std::string_view warp_specialized = R"(
.visible .entry warp_specialized(.param .u64 out_param)
.maxnreg 168
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  griddepcontrol.wait;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 7;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra CONSUMER;
  setmaxnreg.dec.sync.aligned.u32 40;
  mov.u32 %r3, 1;
  bra.uni STORE;
CONSUMER:
  setmaxnreg.inc.sync.aligned.u32 232;
  mov.u32 %r3, 2;
STORE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  griddepcontrol.launch_dependents;
  ret;
}
)";

// 128 threads, one warpgroup: setmaxnreg.dec to 40, a bar.sync, setmaxnreg.inc to 232, then
// every thread stores its tid. The tests' variants drop the bar.sync (no synchronization between
// the two setmaxnreg), make the second one an .inc to 32 (lower than the 40 the group holds), give
// the first a count outside the rules, or let one thread exit before it.
inline constexpr std::string_view register_phases = R"(
.visible .entry register_phases(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  setmaxnreg.dec.sync.aligned.u32 40;
  bar.sync 0;
  setmaxnreg.inc.sync.aligned.u32 232;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

// 128 threads, one warpgroup in which warp 3 jumps over the setmaxnreg (`skip`), or warps 2 and 3
// execute a different one (`split`).
inline constexpr std::string_view register_skip = R"(
.visible .entry register_skip(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  setp.eq.u32 %p1, %r2, 3;
  @%p1 bra STORE;
  setmaxnreg.dec.sync.aligned.u32 40;
STORE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";
inline constexpr std::string_view register_split = R"(
.visible .entry register_split(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 6;
  setp.eq.u32 %p1, %r2, 1;
  @%p1 bra UPPER;
  setmaxnreg.dec.sync.aligned.u32 40;
  bra.uni STORE;
UPPER:
  setmaxnreg.dec.sync.aligned.u32 40;
STORE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

// 64 threads, two warps writing the same 8x8 tile of halves with stmatrix .x1: warp w stores the
// matrix whose lane-l register holds a[64 w + 2 l], a[64 w + 2 l + 1] (warp 0 plain, warp 1
// .trans), with a bar.sync between the two stores; after a second bar.sync threads 0-7 copy tile
// row t to out[8 t .. 8 t + 7]. The racy variant drops the first bar.sync.
inline constexpr std::string_view stmatrix_two_warps = R"(
.visible .entry stmatrix_two_warps(.param .u64 out_param, .param .u64 a_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 tile[128];
  ld.param.u64 %rd1, [out_param];
  ld.param.u64 %rd2, [a_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  shr.u32 %r3, %r1, 5;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.b32 %r10, [%rd4];
  and.b32 %r4, %r2, 7;
  shl.b32 %r5, %r4, 4;
  mov.u32 %r6, tile;
  add.s32 %r7, %r6, %r5;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra SECOND;
  stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r7], {%r10};
SECOND:
  bar.sync 0;
  @!%p1 bra COPY;
  stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r7], {%r10};
COPY:
  bar.sync 0;
  setp.ge.u32 %p2, %r1, 8;
  @%p2 bra DONE;
  shl.b32 %r8, %r1, 4;
  add.s32 %r9, %r6, %r8;
  ld.shared.v4.b32 {%r14, %r15, %r16, %r17}, [%r9];
  cvt.u64.u32 %rd5, %r8;
  add.s64 %rd6, %rd1, %rd5;
  st.global.v4.b32 [%rd6], {%r14, %r15, %r16, %r17};
DONE:
  ret;
}
)";

}  // namespace warp_ops_kernels
