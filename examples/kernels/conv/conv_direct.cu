// Direct 2-D convolution (cross-correlation, stride 1, no padding), the reference:
//   Y[oh][ow][k] = sum_{r, s, c} X[oh + r][ow + s][c] * W[k][r][s][c]
// X is H x W x C (NHWC, one image), W is K x R x S x C, Y is OH x OW x K; half inputs, float
// accumulation and output. One thread per output element. Launch: 256 threads, grid 8 for the
// fixed sizes below.
#include <cuda_fp16.h>

#define H 10
#define WD 10
#define C 16
#define KOUT 32
#define R 3
#define S 3
#define OH (H - R + 1)
#define OW (WD - S + 1)

extern "C" __global__ void conv_direct(const __half* __restrict__ X, const __half* __restrict__ W,
                                       float* __restrict__ Y)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= OH * OW * KOUT) return;
    const int k = idx % KOUT, pix = idx / KOUT, oh = pix / OW, ow = pix % OW;
    float acc = 0.0f;
    for (int r = 0; r < R; ++r)
        for (int s = 0; s < S; ++s)
            for (int c = 0; c < C; ++c)
                acc += __half2float(X[((oh + r) * WD + ow + s) * C + c]) *
                       __half2float(W[((k * R + r) * S + s) * C + c]);
    Y[idx] = acc;
}
