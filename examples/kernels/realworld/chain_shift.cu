// A value chained from thread to thread through global memory without synchronization (issue 21
// item 5): thread i reads y[i], which thread i-1 writes, and writes y[i+1]. Under any schedule in
// which thread i-1 stores first, y[i+1] depends on every earlier thread's value; gpueq must report
// the race in time and memory linear in the number of threads.
extern "C" __global__ void shift_ref(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) y[i + 1] = 0.5f * x[i] + x[i];
}

extern "C" __global__ void shift_chain(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) y[i + 1] = 0.5f * y[i] + x[i];
}
