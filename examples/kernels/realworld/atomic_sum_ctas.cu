// Issue 21 item 4: atomics from different CTAs commute. Every thread of every CTA adds its x into
// y[0]; the reference adds them in one thread. y is inout: both give y[0] + x[0] + ... + x[n-1].
extern "C" __global__ void atomic_sum_ctas(const float* x, float* y) {
  atomicAdd(&y[0], x[blockIdx.x * blockDim.x + threadIdx.x]);
}

extern "C" __global__ void serial_sum(const float* x, float* y, int n) {
  if (threadIdx.x != 0) return;
  float s = y[0];
  for (int i = 0; i < n; ++i) s += x[i];
  y[0] = s;
}

// The counter-case: CTA 0 stores to y[0] while the other CTAs add to it atomically. A plain
// write against an atomic of another CTA is still a race (the result depends on the order).
extern "C" __global__ void atomic_vs_store_ctas(const float* x, float* y) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) y[0] = x[0];
  } else {
    atomicAdd(&y[0], x[blockIdx.x * blockDim.x + threadIdx.x]);
  }
}
