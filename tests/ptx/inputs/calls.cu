// Device functions, a local array, printf (call.uni with parameter blocks), loops and a pragma.
#include <cstdio>
__device__ __noinline__ float poly(float x, int n) {
  float acc = 0, p = 1;
#pragma unroll 1
  for (int i = 0; i < n; ++i) { acc += p; p *= x; }
  return acc;
}
__global__ void calls(float* out, const int* idx, int n) {
  float local[8];
  for (int i = 0; i < 8; ++i) local[i] = poly(out[i], n);
  int t = threadIdx.x;
  if (t == 0) printf("n=%d\n", n);
  out[t] = local[idx[t] & 7] + (float)(t % 3) - (float)(t / 5);
}
