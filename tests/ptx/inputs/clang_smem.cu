// Compiled by clang (not nvcc) without CUDA headers: a shared array demoted into the kernel body.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
extern "C" __global__ void reverse_twice(const float* x, float* y) {
  __shared__ float s[64];
  int i = __nvvm_read_ptx_sreg_tid_x();
  s[i] = x[i] * 2.0f;
  __syncthreads();
  y[i] = s[63 - i];
}
