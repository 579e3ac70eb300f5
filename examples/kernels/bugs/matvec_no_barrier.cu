// BROKEN on purpose: the tiled matrix-vector product without the barrier at the end of each
// tile. A fast thread can load the next tile into xs while slower threads still read the current
// one: a write-after-read data race on xs. Usually passes tests (warps tend to run in step).
#define TILE 32

extern "C" __global__ void matvec_no_barrier(const float* __restrict__ A,
                                             const float* __restrict__ x, float* __restrict__ y,
                                             int rows, int cols)
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
        // missing: __syncthreads();
    }
    if (j < rows) y[j] = acc;
}
