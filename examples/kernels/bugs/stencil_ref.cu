// Three-point stencil reference, zero outside the array: y[i] = x[i-1] + x[i] + x[i+1].
extern "C" __global__ void stencil_ref(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (i > 0) v += x[i - 1];
    if (i + 1 < n) v += x[i + 1];
    y[i] = v;
}
