// Issue 21 items 10, 13 and 14: y[i] = a * (x[i] + x[i ^ 1]) over bf16 x, summed in f32, where
// i < n. The candidate takes the neighbour's value with the bf16 warp shuffle of cuda_bf16.hpp
// (inline asm that reads WARP_SZ and unpacks into block-scoped `low`/`high` registers), converts
// with inline asm of its own that declares a register `lo` inside its `{ }` block (twice, in two
// blocks), and does the bounds check in an inline-asm block with a predicate `p` declared there,
// as the toolkit's cuda::barrier does. Every bf16 becomes an
// f32 through `mov.b32 %f, {0, %rs}` (the bf16 bits as the high half), which __bfloat162float
// also compiles to for sm_80. The reference is plain CUDA: two loads, no shuffle, no inline asm.
#include <cuda_bf16.h>

__device__ float bf16_to_float_asm(__nv_bfloat16 b) {
  float f;
  asm("{ .reg .b16 lo;\n\t"
      "mov.b16 lo, 0;\n\t"
      "mov.b32 %0, {lo, %1}; }"
      : "=f"(f)
      : "h"(__bfloat16_as_ushort(b)));
  return f;
}

__device__ bool below(unsigned i, unsigned n) {
  unsigned r;
  asm("{ .reg .pred p;\n\t"
      "setp.lt.u32 p, %1, %2;\n\t"
      "selp.u32 %0, 1, 0, p; }"
      : "=r"(r)
      : "r"(i), "r"(n));
  return r != 0;
}

extern "C" __global__ void bf16_pair_sum_asm(const __nv_bfloat16* x, float* y, float a, unsigned n) {
  unsigned i = threadIdx.x;
  __nv_bfloat16 v = x[i];
  __nv_bfloat16 w = __shfl_xor_sync(0xffffffffu, v, 1);
  float s = bf16_to_float_asm(v) + bf16_to_float_asm(w);
  if (below(i, n)) y[i] = a * s;
}

// The neighbour two lanes away instead of one: a wrong lane mask.
extern "C" __global__ void bf16_pair_sum_asm_wrong_lane(const __nv_bfloat16* x, float* y, float a, unsigned n) {
  unsigned i = threadIdx.x;
  __nv_bfloat16 v = x[i];
  __nv_bfloat16 w = __shfl_xor_sync(0xffffffffu, v, 2);
  float s = bf16_to_float_asm(v) + bf16_to_float_asm(w);
  if (below(i, n)) y[i] = a * s;
}

extern "C" __global__ void bf16_pair_sum_ref(const __nv_bfloat16* x, float* y, float a, unsigned n) {
  unsigned i = threadIdx.x;
  if (i < n) y[i] = a * (__bfloat162float(x[i]) + __bfloat162float(x[i ^ 1]));
}
