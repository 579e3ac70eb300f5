// Fused linear layer + ReLU, optimized: the CTA stages x through shared memory in tiles of 32
// and each thread accumulates its row from the tile. Correct (clipping included).
#define TILE 32

extern "C" __global__ void dense_relu_tiled(const float* __restrict__ W,
                                            const float* __restrict__ x,
                                            const float* __restrict__ b, float* __restrict__ y,
                                            int rows, int cols)
{
    __shared__ float xs[TILE];
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = j < rows ? b[j] : 0.0f;
    for (int k0 = 0; k0 < cols; k0 += TILE) {
        if (threadIdx.x < TILE)
            xs[threadIdx.x] = k0 + threadIdx.x < cols ? x[k0 + threadIdx.x] : 0.0f;
        __syncthreads();
        if (j < rows)
            for (int kk = 0; kk < TILE && k0 + kk < cols; ++kk)
                acc += W[j * cols + k0 + kk] * xs[kk];
        __syncthreads();
    }
    if (j < rows) y[j] = fmaxf(acc, 0.0f);
}
