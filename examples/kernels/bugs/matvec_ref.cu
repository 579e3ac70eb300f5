// Matrix-vector product reference: y[j] = sum_k A[j][k] * x[k], one thread per row.
extern "C" __global__ void matvec_ref(const float* __restrict__ A, const float* __restrict__ x,
                                      float* __restrict__ y, int rows, int cols)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= rows) return;
    float acc = 0.0f;
    for (int k = 0; k < cols; ++k)
        acc += A[j * cols + k] * x[k];
    y[j] = acc;
}
