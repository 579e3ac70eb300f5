// Issue 21 item 11: device-function calls. Each of 32 threads computes a row's weighted sum
// y[t] = sum_k x[t][k] * w[k] (8 columns) and its sum of squares z[t] = sum_k x[t][k]^2, with
// helpers called from the loop over k. dot_rows_call keeps them as real calls (__noinline__:
// `call.uni` with .param arguments and returns, a struct returned by value in a .b8 array);
// dot_rows_inline is the same kernel with the helpers inlined by nvcc; dot_rows_call_wrong's
// helper forgets to square (z sums x, not x^2), which tests that use x = 0 or 1 miss.
// Launch: 1 CTA of 32 threads, x 32x8, w 8, y and z 32.
#define K 8

struct Acc {
  float s, q;
};

__device__ __noinline__ float mac(float acc, float a, float b) { return acc + a * b; }

__device__ __noinline__ Acc step(Acc acc, float v) {
  acc.q += v * v;
  return acc;
}

__device__ __noinline__ Acc step_wrong(Acc acc, float v) {
  acc.q += v;
  return acc;
}

__device__ __noinline__ void put(float* out, int i, float v) { out[i] = v; }

__device__ __forceinline__ float mac_inl(float acc, float a, float b) { return acc + a * b; }

extern "C" __global__ void dot_rows_call(const float* x, const float* w, float* y, float* z) {
  int t = threadIdx.x;
  Acc acc = {0.0f, 0.0f};
#pragma unroll 1
  for (int k = 0; k < K; ++k) {
    float v = x[t * K + k];
    acc.s = mac(acc.s, v, w[k]);
    acc = step(acc, v);
  }
  put(y, t, acc.s);
  put(z, t, acc.q);
}

extern "C" __global__ void dot_rows_call_wrong(const float* x, const float* w, float* y, float* z) {
  int t = threadIdx.x;
  Acc acc = {0.0f, 0.0f};
#pragma unroll 1
  for (int k = 0; k < K; ++k) {
    float v = x[t * K + k];
    acc.s = mac(acc.s, v, w[k]);
    acc = step_wrong(acc, v);
  }
  put(y, t, acc.s);
  put(z, t, acc.q);
}

extern "C" __global__ void dot_rows_inline(const float* x, const float* w, float* y, float* z) {
  int t = threadIdx.x;
  float s = 0.0f, q = 0.0f;
#pragma unroll 1
  for (int k = 0; k < K; ++k) {
    float v = x[t * K + k];
    s = mac_inl(s, v, w[k]);
    q += v * v;
  }
  y[t] = s;
  z[t] = q;
}
