// Issue 21 item 12: a kernel that takes its arguments as a struct by value (CUTLASS-style Params:
// `.param .align 8 .b8 saxpy_struct_param_0[24]`, read with ld.param at byte offsets), against
// the same computation with plain parameters: y[i] = a * x[i] + y[i] for i < n, a grid-stride
// loop over 2 CTAs of 64 threads.
struct Params {
  const float* x;
  float* y;
  int n;
  float a;
};

extern "C" __global__ void saxpy_struct(Params p) {
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += gridDim.x * blockDim.x) p.y[i] = p.a * p.x[i] + p.y[i];
}

extern "C" __global__ void saxpy_plain(const float* x, float* y, int n, float a) {
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}
