// Shared memory (static and extern), vector accesses, atomics, barriers and warp collectives.
#include <cuda_fp16.h>
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int counter = 7;
extern __shared__ float dyn[];

__global__ void __launch_bounds__(256) reduce_sum(const float4* in, float* out, int n) {
  __shared__ float partial[256];
  int t = threadIdx.x;
  float4 v = in[blockIdx.x * blockDim.x + t];
  float s = (v.x + v.y + v.z + v.w) * coeffs[t & 3];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
  partial[t] = s;
  __syncthreads();
  int alive = __syncthreads_count(s > 0.0f);
  if (t == 0) {
    float acc = 0;
    for (int i = 0; i < 256; i += 32) acc += partial[i];
    atomicAdd(out, acc + alive);
    atomicAdd(&counter, 1);
  }
}

__global__ void dynamic_smem(float* out, const __half2* h, int n) {
  int t = threadIdx.x;
  dyn[t] = __half2float(h[t].x) * __half2float(h[t].y);
  __syncwarp();
  unsigned b = __ballot_sync(__activemask(), dyn[t] > 0.0f);
  unsigned m = __match_any_sync(0xffffffff, t & 3);
  int r = __reduce_add_sync(0xffffffff, t);
  __threadfence_block();
  out[t] = dyn[(t + 1) % n] + __popc(b) + __clz(m) + r + __brev(t);
}
