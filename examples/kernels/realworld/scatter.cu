// Scatters through an index tensor (issue 21 item 17), the way MoE layers send tokens back to
// their positions after the experts ran (y[dst[r]] = x[r]) and embedding backward adds gradients
// into the table rows of the token ids (y[dst[r]] += x[r], index_add). dst is data: the spec gives
// its contents (a permutation, or random integers that collide), so the store addresses are
// concrete, and the verdict holds for those indices.
//   scatter_rows        y[dst[r]][c] = x[r][c], one thread per element; launch n*d threads
//   scatter_rows_vec4   the same with float4 loads and stores, one thread per four columns
//                       (d % 4 == 0); launch n*d/4 threads. With a permutation the rows written are
//                       distinct; with colliding indices two threads store different values to one
//                       element: a data race (which row wins depends on the schedule)
//   index_add_serial    y[dst[r]][c] += x[r][c] for r = 0, 1, ..., n-1, one thread per column
//                       (launch d threads): the reference
//   index_add_atomic    atomicAdd(&y[dst[r]][c], x[r][c]), one thread per element (launch n*d
//                       threads): colliding indices are what the atomics are for

extern "C" __global__ void scatter_rows(const float* __restrict__ x, const int* __restrict__ dst,
                                        float* __restrict__ y, int n, int d)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * d) return;
    const int r = i / d, c = i % d;
    y[dst[r] * d + c] = x[i];
}

extern "C" __global__ void scatter_rows_vec4(const float* __restrict__ x, const int* __restrict__ dst,
                                             float* __restrict__ y, int n, int d)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int per_row = d / 4;
    if (i >= n * per_row) return;
    const int r = i / per_row, c4 = i % per_row;
    reinterpret_cast<float4*>(y + dst[r] * d)[c4] = reinterpret_cast<const float4*>(x + r * d)[c4];
}

extern "C" __global__ void index_add_serial(const float* __restrict__ x, const int* __restrict__ dst,
                                            float* __restrict__ y, int n, int d)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= d) return;
#pragma unroll 1
    for (int r = 0; r < n; ++r) y[dst[r] * d + c] += x[r * d + c];
}

extern "C" __global__ void index_add_atomic(const float* __restrict__ x, const int* __restrict__ dst,
                                            float* __restrict__ y, int n, int d)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * d) return;
    const int r = i / d, c = i % d;
    atomicAdd(&y[dst[r] * d + c], x[i]);
}
