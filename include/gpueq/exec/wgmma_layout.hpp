// The layouts of Hopper's warpgroup MMA (wgmma.mma_async, sm_90a): the 64-bit shared-memory
// matrix descriptor and the element -> shared-address map it describes, and the register
// fragments of A and of the accumulator D over the warpgroup's 128 threads. Pure functions,
// constexpr, no engine state, so that tests can check them on hand-computed cases; the engine's
// semantics (exec/semantics/wgmma.hpp) read operands and write results through them.
//
// Sources: NVIDIA PTX ISA 9.x, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
//   Matrix Descriptor Format      bits 0-13 start address >> 4 (of address & 0x3FFFF), 16-29 the
//                                 leading-dimension byte offset >> 4, 32-45 the stride-dimension
//                                 byte offset >> 4, 49-51 the matrix base offset, 62-63 the
//                                 swizzle mode (0 none, 1 128B, 2 64B, 3 32B);
//   Shared Memory Matrix Layout   K-major (imm-trans 0) and MN-major (imm-trans 1) layouts made of
//                                 swizzle atoms of 8 rows x swizzle-width bytes (none: 8 x 16 B);
//   Strides                       what LBO and SBO are per major-ness and swizzle mode;
//   Register Fragments            A (m64nNk16 .f16/.bf16, m64nNk8 .tf32, m64nNk32 .e4m3/.e5m2)
//                                 and D (.f16/.f32). 8-bit operands in shared memory are K-major
//                                 only (the fp8 form has no imm-trans operands), e = 1 below.
//
// The address map, written in bytes with e the element size and (mn, k) the element's row of
// A (M) or column of B (N) and its index along K, S the swizzle width (32, 64 or 128 bytes):
//   K-major,  no swizzle:  (mn / 8) * SBO + (mn % 8) * 16 + (k*e / 16) * LBO + (k*e) % 16
//   K-major,  swizzled:    (mn / 8) * SBO + (mn % 8) * S  + k*e                   (LBO unused)
//   MN-major, no swizzle:  (mn*e / 16) * SBO + (mn*e) % 16 + (k % 8) * 16 + (k / 8) * LBO
//   MN-major, swizzled:    (mn*e / S) * LBO  + (mn*e) % S  + (k % 8) * S  + (k / 8) * SBO
// (core matrices of 8 rows x 16 bytes; SBO steps 8 rows of the strided dimension, LBO the
// leading one), added to the start address. A swizzled mode then permutes the 16-byte chunks of
// each 128-byte row of the repeating pattern: address bits [4, 4+b) are XORed with the row of the
// pattern, bits [7, 7+b) (b = 3, 2, 1 for 128B, 64B, 32B: the pattern repeats every 1024, 512,
// 256 bytes). The pattern starts on that boundary unless the base offset says otherwise; the ISA
// defines the base offset as (pattern start address >> 7) & 7, so gpueq takes the row of the
// pattern to be ((address >> 7) - base offset) mod 2^b (a semantic reading of ours: the ISA
// gives the formula for the field, not the hardware's use of it).
#pragma once

#include <cstdint>

namespace gpueq::exec::wgmma {

enum class swizzle : std::uint8_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };  // the descriptor's encoding

constexpr std::uint32_t swizzle_bytes(swizzle s) {
  switch (s) {
    case swizzle::none: return 16;
    case swizzle::b128: return 128;
    case swizzle::b64: return 64;
    case swizzle::b32: return 32;
  }
  return 16;
}
constexpr const char* name(swizzle s) {
  switch (s) {
    case swizzle::none: return "none";
    case swizzle::b128: return "128B";
    case swizzle::b64: return "64B";
    case swizzle::b32: return "32B";
  }
  return "?";
}

struct descriptor {
  std::uint32_t start = 0;        // shared address (bytes; the 18 bits the descriptor holds)
  std::uint32_t leading = 0;      // leading-dimension byte offset (LBO)
  std::uint32_t stride = 0;       // stride-dimension byte offset (SBO)
  std::uint32_t base_offset = 0;  // 0..7
  swizzle mode = swizzle::none;
};

// matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4, and back.
constexpr std::uint64_t encode_field(std::uint32_t bytes) { return (bytes & 0x3ffffu) >> 4; }

constexpr descriptor decode(std::uint64_t d) {
  descriptor r;
  r.start = static_cast<std::uint32_t>(d & 0x3fff) << 4;
  r.leading = static_cast<std::uint32_t>(d >> 16 & 0x3fff) << 4;
  r.stride = static_cast<std::uint32_t>(d >> 32 & 0x3fff) << 4;
  r.base_offset = static_cast<std::uint32_t>(d >> 49 & 0x7);
  r.mode = static_cast<swizzle>(d >> 62 & 0x3);
  return r;
}
constexpr std::uint64_t encode(const descriptor& x) {
  return encode_field(x.start) | encode_field(x.leading) << 16 | encode_field(x.stride) << 32 |
         std::uint64_t{x.base_offset & 7} << 49 | std::uint64_t{static_cast<std::uint8_t>(x.mode)} << 62;
}

// The swizzle of a shared address (identity without swizzle).
constexpr std::uint64_t swizzled(std::uint64_t address, swizzle s, std::uint32_t base_offset) {
  std::uint32_t bits = s == swizzle::b128 ? 3 : s == swizzle::b64 ? 2 : s == swizzle::b32 ? 1 : 0;
  if (bits == 0) return address;
  std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  std::uint64_t row = ((address >> 7) - base_offset) & mask;
  return address ^ (row << 4);
}

// The shared address of element (mn, k) of an operand of e-byte elements; mn_major: the
// instruction's imm-trans is 1 (M-major A, N-major B).
constexpr std::uint64_t element_address(const descriptor& d, bool mn_major, std::uint32_t e, std::uint32_t mn,
                                        std::uint32_t k) {
  const std::uint64_t S = swizzle_bytes(d.mode);
  const std::uint64_t mnb = std::uint64_t{mn} * e, kb = std::uint64_t{k} * e;
  std::uint64_t off = 0;
  if (!mn_major) {
    if (d.mode == swizzle::none) off = (mn / 8) * std::uint64_t{d.stride} + (mn % 8) * 16 + (kb / 16) * d.leading + kb % 16;
    else off = (mn / 8) * std::uint64_t{d.stride} + (mn % 8) * S + kb;
  } else {
    if (d.mode == swizzle::none) off = (mnb / 16) * d.stride + mnb % 16 + (k % 8) * 16 + (k / 8) * std::uint64_t{d.leading};
    else off = (mnb / S) * d.leading + mnb % S + (k % 8) * S + (k / 8) * std::uint64_t{d.stride};
  }
  return swizzled(d.start + off, d.mode, d.base_offset);
}

// Register fragments. A warpgroup is four consecutive warps; warp w (0..3 within the group)
// holds rows 16w..16w+15 of A (when A is in registers) and of D, in the layout of one
// mma.m16n8k16 (f16/bf16 A) or mma.m16n8k8 (tf32 A) tile per warp, D repeated per 8 columns:
struct coord {
  std::uint32_t row = 0, col = 0;
  friend constexpr bool operator==(coord, coord) = default;
};

// D element i (0..N/2-1) of thread t (0..127) of the warpgroup: row = 16 w + groupID + 8 ((i >> 1)
// & 1), col = 8 (i >> 2) + 2 threadID_in_group + (i & 1), groupID = lane >> 2, threadID_in_group =
// lane % 4. .f32: register i holds element i; .f16: register i / 2 holds elements i (low half)
// and i + 1 (high half) for even i.
constexpr coord accumulator_element(std::uint32_t t, std::uint32_t i) {
  const std::uint32_t w = t / 32 % 4, lane = t % 32;
  return {16 * w + lane / 4 + 8 * (i >> 1 & 1), 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)};
}

// A element i of thread t: .f16/.bf16 (k16, i in 0..7: four registers of two halves) row = 16 w +
// groupID + 8 ((i >> 1) & 1), col = 2 threadID_in_group + (i & 1) + 8 (i >> 2); .tf32 (k8, i in
// 0..3: four registers) row = 16 w + groupID + 8 (i & 1), col = threadID_in_group + 4 (i >> 1).
constexpr coord a_element(bool tf32, std::uint32_t t, std::uint32_t i) {
  const std::uint32_t w = t / 32 % 4, lane = t % 32, g = lane / 4, q = lane % 4;
  if (tf32) return {16 * w + g + 8 * (i & 1), q + 4 * (i >> 1)};
  return {16 * w + g + 8 * (i >> 1 & 1), 2 * q + (i & 1) + 8 * (i >> 2)};
}

// A element i of thread t for 8-bit A (m64nNk32 .e4m3/.e5m2, i in 0..15: four registers of four
// bytes, element i in byte i % 4 of register i / 4), the ISA's "Register Fragments" for k32 (the
// layout of mma.m16n8k32 per warp): row = 16 w + groupID + 8 ((i >> 2) & 1), col = 4
// threadID_in_group + (i & 3) + 16 (i >> 3).
constexpr coord a_element_8bit(std::uint32_t t, std::uint32_t i) {
  const std::uint32_t w = t / 32 % 4, lane = t % 32, g = lane / 4, q = lane % 4;
  return {16 * w + g + 8 * (i >> 2 & 1), 4 * q + (i & 3) + 16 * (i >> 3)};
}

}  // namespace gpueq::exec::wgmma
