// Issue 21 item 2: every thread stores a * x[tid] to y[0]. The values differ from thread to
// thread, so this is a harmful write-write race, not a benign same-value one.
extern "C" __global__ void race_scale_store(const float* x, float* y, float a) {
  y[0] = a * x[threadIdx.x];
}

// The reference: one thread stores a * x[0].
extern "C" __global__ void scale_store_one(const float* x, float* y, float a) {
  if (threadIdx.x == 0) y[0] = a * x[0];
}
