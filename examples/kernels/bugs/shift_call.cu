// Issue 21 item 11: a race inside device functions that nvcc keeps as calls (__noinline__). Each
// of 64 threads stores x[t] to s[t] through put() and reads its neighbour's s[(t + 1) % 64]
// through get(). shift_call_synced has a barrier between the two; shift_call_racy forgets it, so
// a neighbour's store (CUDA line 8, in put) and the read (line 9, in get) race.
// Launch: 1 CTA of 64 threads, x and y 64.
#define N 64

__device__ __noinline__ void put(float* s, int i, float v) { s[i] = v; }
__device__ __noinline__ float get(const float* s, int i) { return s[i]; }

extern "C" __global__ void shift_call_synced(const float* x, float* y) {
  __shared__ float s[N];
  int t = threadIdx.x;
  put(s, t, x[t]);
  __syncthreads();
  y[t] = get(s, (t + 1) % N);
}

extern "C" __global__ void shift_call_racy(const float* x, float* y) {
  __shared__ float s[N];
  int t = threadIdx.x;
  put(s, t, x[t]);
  y[t] = get(s, (t + 1) % N);
}
