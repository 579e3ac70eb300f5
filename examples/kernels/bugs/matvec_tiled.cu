// Matrix-vector product with x staged through shared memory in tiles of 32; the last tile is
// partial when cols is not a multiple of 32 and is padded with zeros. Correct.
#define TILE 32

extern "C" __global__ void matvec_tiled(const float* __restrict__ A, const float* __restrict__ x,
                                        float* __restrict__ y, int rows, int cols)
{
    __shared__ float xs[TILE];
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < cols; k0 += TILE) {
        if (threadIdx.x < TILE) {
            const int k = k0 + threadIdx.x;
            xs[threadIdx.x] = k < cols ? x[k] : 0.0f;
        }
        __syncthreads();
        if (j < rows)
            for (int kk = 0; kk < TILE; ++kk)
                if (k0 + kk < cols) acc += A[j * cols + k0 + kk] * xs[kk];
        __syncthreads();
    }
    if (j < rows) y[j] = acc;
}
