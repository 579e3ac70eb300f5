// Math-library idioms the lifting pass recognizes: one kernel per function.
extern "C" __global__ void k_expf(const float* x, float* y) { int i = threadIdx.x; y[i] = expf(x[i]); }
extern "C" __global__ void k_fast_expf(const float* x, float* y) { int i = threadIdx.x; y[i] = __expf(x[i]); }
extern "C" __global__ void k_exp2f(const float* x, float* y) { int i = threadIdx.x; y[i] = exp2f(x[i]); }
extern "C" __global__ void k_logf(const float* x, float* y) { int i = threadIdx.x; y[i] = logf(x[i]); }
extern "C" __global__ void k_fast_logf(const float* x, float* y) { int i = threadIdx.x; y[i] = __logf(x[i]); }
extern "C" __global__ void k_rsqrtf(const float* x, float* y) { int i = threadIdx.x; y[i] = rsqrtf(x[i]); }
extern "C" __global__ void k_sqrtf(const float* x, float* y) { int i = threadIdx.x; y[i] = sqrtf(x[i]); }
extern "C" __global__ void k_tanhf(const float* x, float* y) { int i = threadIdx.x; y[i] = tanhf(x[i]); }
extern "C" __global__ void k_div(const float* x, float* y) { int i = threadIdx.x; y[i] = x[i] / y[i + 32]; }
extern "C" __global__ void k_fast_div(const float* x, float* y) { int i = threadIdx.x; y[i] = __fdividef(x[i], y[i + 32]); }
extern "C" __global__ void k_rcp(const float* x, float* y) { int i = threadIdx.x; y[i] = 1.0f / x[i]; }
