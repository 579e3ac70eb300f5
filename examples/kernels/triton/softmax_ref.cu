// Reference for the Triton row softmax (softmax.py): y[r][c] = exp(x[r][c]) / sum_j exp(x[r][j])
// over rows of n floats (no max shift: over the reals it cancels). One thread per row.
// Launch: grid (rows), 1 thread.
extern "C" __global__ void softmax_ref(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const float* row = x + blockIdx.x * n;
    float* out = y + blockIdx.x * n;
    float den = 0.0f;
#pragma unroll 1
    for (int j = 0; j < n; ++j) den += expf(row[j]);
#pragma unroll 1
    for (int j = 0; j < n; ++j) out[j] = expf(row[j]) / den;
}
