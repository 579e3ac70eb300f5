// Issue 21 item 4: footprints are per byte. CTA b writes the f16 y[b]; with two CTAs, they write
// the two halves of one 4-byte word, which is no race. The reference writes both in one CTA.
#include <cuda_fp16.h>

extern "C" __global__ void half_pair_ctas(const float* x, __half* y) {
  if (threadIdx.x == 0) y[blockIdx.x] = __float2half(x[blockIdx.x]);
}

extern "C" __global__ void half_pair_one(const float* x, __half* y) {
  y[threadIdx.x] = __float2half(x[threadIdx.x]);
}
