// SGEMM ladder, step 7 (bank conflicts): the vectorized kernel with the transposed A tile padded
// to a row length of BM + 4 floats. Without padding, the four threads that store one float4 of A
// column-wise hit the same bank (rows 256 bytes apart); with 272-byte rows they spread over two,
// and the float4 reads of the compute loop stay 16-byte aligned.
// Launch: 256 threads, grid (N/64, M/64); M, N multiples of 64, K a multiple of 16,
// A, B, C 16-byte aligned.
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
#define AS_LD (BM + 4)  // padded row length of the transposed A tile

extern "C" __global__ void sgemm_bankfix(int M, int N, int K, float alpha,
                                            const float* __restrict__ A,
                                            const float* __restrict__ B, float beta,
                                            float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK * AS_LD];
    __shared__ __align__(16) float Bs[BK * BN];
    const int t = threadIdx.x;
    const int trow = t / (BN / TN), tcol = t % (BN / TN);
    const float* Ab = A + blockIdx.y * BM * K;
    const float* Bb = B + blockIdx.x * BN;
    const int a_row = t / (BK / 4), a_col = (t % (BK / 4)) * 4;
    const int b_row = t / (BN / 4), b_col = (t % (BN / 4)) * 4;

    float acc[TM][TN] = {};
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 a = *reinterpret_cast<const float4*>(&Ab[a_row * K + k0 + a_col]);
        As[(a_col + 0) * AS_LD + a_row] = a.x;
        As[(a_col + 1) * AS_LD + a_row] = a.y;
        As[(a_col + 2) * AS_LD + a_row] = a.z;
        As[(a_col + 3) * AS_LD + a_row] = a.w;
        *reinterpret_cast<float4*>(&Bs[b_row * BN + b_col]) =
            *reinterpret_cast<const float4*>(&Bb[(k0 + b_row) * N + b_col]);
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < BK; ++kk) {
            const float4 av = *reinterpret_cast<const float4*>(&As[kk * AS_LD + trow * TM]);
            const float4 bv = *reinterpret_cast<const float4*>(&Bs[kk * BN + tcol * TN]);
            const float a_reg[TM] = {av.x, av.y, av.z, av.w};
            const float b_reg[TN] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a_reg[i] * b_reg[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = blockIdx.y * BM + trow * TM + i, c = blockIdx.x * BN + tcol * TN;
        float4* cp = reinterpret_cast<float4*>(&C[r * N + c]);
        const float4 old = *cp;
        *cp = make_float4(alpha * acc[i][0] + beta * old.x, alpha * acc[i][1] + beta * old.y,
                          alpha * acc[i][2] + beta * old.z, alpha * acc[i][3] + beta * old.w);
    }
}
