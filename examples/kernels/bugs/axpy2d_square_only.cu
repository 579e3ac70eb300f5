// BROKEN for non-square blocks: the 2-D axpy with a 2-D thread block whose row loop strides by
// blockDim.x where blockDim.y is meant. Right for 16x16 blocks (what the tests used); with a
// 32x8 block only rows 0..7 are updated. gpueq: equivalent with [16, 16], different with [32, 8].
extern "C" __global__ void axpy2d_square_only(const float* __restrict__ X, float* __restrict__ Y,
                                              float a, int rows, int cols)
{
    for (int r = threadIdx.y; r < rows; r += blockDim.x)  // should be blockDim.y
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            Y[r * cols + c] += a * X[r * cols + c];
}
