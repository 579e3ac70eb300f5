// Issue 21 item 3: CUDA's `if (...) flag = 1;` from many threads. Every thread that stores writes
// the same value, so the race is benign: reported, and tolerated by --allow-benign.
extern "C" __global__ void flag_same_value(const float* x, float* y) {
  y[threadIdx.x] = x[threadIdx.x];
  if (threadIdx.x % 2 == 0) y[blockDim.x] = 1.0f;
}

// The reference: one thread sets the flag.
extern "C" __global__ void flag_one_writer(const float* x, float* y) {
  y[threadIdx.x] = x[threadIdx.x];
  if (threadIdx.x == 0) y[blockDim.x] = 1.0f;
}
