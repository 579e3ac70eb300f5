// Embedding lookup (issue 21 item 17): out[r][c] = table[idx[r]][c] for n token ids into a table of
// rows of d floats, with -1 as the padding id whose row is all zeros (PyTorch's padding_idx, the
// way a batch of sequences is padded). The token ids are data, so gpueq needs them as given
// contents (the spec's "contents": random integers in [-1, 31]): the addresses table + idx[r]*d
// and the padding branch are then concrete, and the verdict holds for those ids.
//   embedding_naive           one thread per output element; launch n*d threads (any blocks)
//   embedding_vec4            one thread per four columns, float4 loads and stores (d % 4 == 0);
//                             launch n*d/4 threads
//   embedding_vec4_pad0       bug: the padding test is `id <= 0`, off by one, so token 0 reads as
//                             padding (zeros); a test whose ids happen to skip 0 misses it
//   embedding_vec4_unchecked  bug: no padding test at all, so id -1 reads the 64 floats before the
//                             table: an out-of-bounds read that only the given ids reveal

extern "C" __global__ void embedding_naive(const float* __restrict__ table, const int* __restrict__ idx,
                                           float* __restrict__ out, int n, int d)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * d) return;
    const int r = i / d, c = i % d;
    const int id = idx[r];
    out[i] = id < 0 ? 0.0f : table[id * d + c];
}

extern "C" __global__ void embedding_vec4(const float* __restrict__ table, const int* __restrict__ idx,
                                          float* __restrict__ out, int n, int d)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int per_row = d / 4;
    if (i >= n * per_row) return;
    const int r = i / per_row, c4 = i % per_row;
    const int id = idx[r];
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (id >= 0) v = reinterpret_cast<const float4*>(table + id * d)[c4];
    reinterpret_cast<float4*>(out + r * d)[c4] = v;
}

extern "C" __global__ void embedding_vec4_pad0(const float* __restrict__ table, const int* __restrict__ idx,
                                               float* __restrict__ out, int n, int d)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int per_row = d / 4;
    if (i >= n * per_row) return;
    const int r = i / per_row, c4 = i % per_row;
    const int id = idx[r];
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (id > 0) v = reinterpret_cast<const float4*>(table + id * d)[c4];  // off by one: id 0 is a token
    reinterpret_cast<float4*>(out + r * d)[c4] = v;
}

extern "C" __global__ void embedding_vec4_unchecked(const float* __restrict__ table, const int* __restrict__ idx,
                                                    float* __restrict__ out, int n, int d)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int per_row = d / 4;
    if (i >= n * per_row) return;
    const int r = i / per_row, c4 = i % per_row;
    const int id = idx[r];  // -1 (padding) is not tested for
    reinterpret_cast<float4*>(out + r * d)[c4] = reinterpret_cast<const float4*>(table + id * d)[c4];
}
