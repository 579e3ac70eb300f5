// BROKEN on purpose: the tiled matrix-vector product with an off-by-one guard when loading the
// partial last tile (k < cols - 1), so x[cols - 1] is replaced by zero. Tests whose last input
// element happens to be 0 (zero-padded inputs) pass; gpueq must say "different".
#define TILE 32

extern "C" __global__ void matvec_tile_edge(const float* __restrict__ A,
                                            const float* __restrict__ x, float* __restrict__ y,
                                            int rows, int cols)
{
    __shared__ float xs[TILE];
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < cols; k0 += TILE) {
        if (threadIdx.x < TILE) {
            const int k = k0 + threadIdx.x;
            xs[threadIdx.x] = k < cols - 1 ? x[k] : 0.0f;  // off by one: should be k < cols
        }
        __syncthreads();
        if (j < rows)
            for (int kk = 0; kk < TILE; ++kk)
                if (k0 + kk < cols) acc += A[j * cols + k0 + kk] * xs[kk];
        __syncthreads();
    }
    if (j < rows) y[j] = acc;
}
