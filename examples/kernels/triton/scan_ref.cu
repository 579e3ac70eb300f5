// Reference for the Triton row scan (scan.py): y[r][c] = x[r][0] + ... + x[r][c], one thread per
// row, left to right. Launch: grid (rows), 1 thread.
extern "C" __global__ void scan_ref(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const float* row = x + blockIdx.x * n;
    float* out = y + blockIdx.x * n;
    float sum = 0.0f;
#pragma unroll 1
    for (int j = 0; j < n; ++j) {
        sum += row[j];
        out[j] = sum;
    }
}
