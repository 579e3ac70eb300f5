// Reference for the Triton SwiGLU (swiglu.py): y[i] = gate[i] / (1 + exp(-gate[i])) * up[i],
// half in and out, computed in float. One thread per element.
// Launch: grid (ceil(n / 128)), 128 threads.
#include <cuda_fp16.h>

extern "C" __global__ void swiglu_ref(const __half* __restrict__ gate, const __half* __restrict__ up,
                                      __half* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float g = __half2float(gate[i]);
    y[i] = __float2half(g / (1.0f + expf(-g)) * __half2float(up[i]));
}
