// 2-D axpy reference: Y[r][c] += a * X[r][c] over a rows x cols matrix, one CTA, the threads
// flattened and striding over all elements.
extern "C" __global__ void axpy2d_ref(const float* __restrict__ X, float* __restrict__ Y, float a,
                                      int rows, int cols)
{
    const int nthreads = blockDim.x * blockDim.y;
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = t; i < rows * cols; i += nthreads)
        Y[i] += a * X[i];
}
