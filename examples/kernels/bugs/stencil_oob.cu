// BROKEN on purpose: the three-point stencil through a shared tile of 128 values, where every
// thread reads its right neighbour tile[t + 1] before checking whether it exists. Thread 127
// reads tile[128], one element past the array: the GPU tolerates it (the address lies inside
// the CTA's shared window, here in `scratch`) and the value is discarded, so every output is
// right and no test notices. gpueq must report the out-of-bounds shared read.
// Launch: one CTA of 128 threads over n = 128 values.
#define N 128

extern "C" __global__ void stencil_oob(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float tile[N];
    __shared__ float scratch[N];
    const int t = threadIdx.x;
    tile[t] = t < n ? x[t] : 0.0f;
    scratch[t] = 0.0f;
    __syncthreads();
    const volatile float* vt = tile;  // keep the unconditional read in the PTX
    const float left = t > 0 ? vt[t - 1] : 0.0f;
    const float right = vt[t + 1];    // out of bounds for t == N - 1
    if (t < n)
        y[t] = left + vt[t] + (t + 1 < n ? right : 0.0f);
    if (t == 0) y[0] += scratch[N - 1];
}
