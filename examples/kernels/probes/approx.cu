// Hardware probe (not a corpus pair): PTX's approximate instructions on 4096 arguments each, so
// examples/kernels/hardware.py can measure how far gpueq's float32 engine (the C library,
// README "Semantics") is from a GPU's special-function unit. Each output holds one instruction;
// the arguments are x in [-1, 1] scaled into the instruction's useful range.
// Launch: 16 CTAs of 256 threads; x and the nine outputs of 4096 floats.

#define APPROX(name, ptx)                                                                 \
    __device__ __forceinline__ float name(float a)                                        \
    {                                                                                     \
        float r;                                                                          \
        asm(ptx " %0, %1;" : "=f"(r) : "f"(a));                                           \
        return r;                                                                         \
    }
APPROX(ex2_approx, "ex2.approx.ftz.f32")
APPROX(lg2_approx, "lg2.approx.ftz.f32")
APPROX(rcp_approx, "rcp.approx.ftz.f32")
APPROX(rsqrt_approx, "rsqrt.approx.ftz.f32")
APPROX(sqrt_approx, "sqrt.approx.ftz.f32")
APPROX(sin_approx, "sin.approx.ftz.f32")
APPROX(cos_approx, "cos.approx.ftz.f32")
APPROX(tanh_approx, "tanh.approx.f32")

__device__ __forceinline__ float div_approx(float a, float b)
{
    float r;
    asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

extern "C" __global__ void approx(const float* x, float* y_ex2, float* y_lg2, float* y_rcp, float* y_rsqrt,
                                  float* y_sqrt, float* y_sin, float* y_cos, float* y_tanh, float* y_div)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float a = x[i], m = fabsf(a);
    y_ex2[i] = ex2_approx(a * 16.0f);
    y_lg2[i] = lg2_approx(m * 64.0f + 0.015625f);
    y_rcp[i] = rcp_approx(a);
    y_rsqrt[i] = rsqrt_approx(m + 0.0078125f);
    y_sqrt[i] = sqrt_approx(m * 4.0f);
    y_sin[i] = sin_approx(a * 3.0f);
    y_cos[i] = cos_approx(a * 3.0f);
    y_tanh[i] = tanh_approx(a * 4.0f);
    y_div[i] = div_approx(a, m + 0.5f);
}
