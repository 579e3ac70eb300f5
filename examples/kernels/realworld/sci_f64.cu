// Double-precision math from libdevice (issue 21 item 15): y = log(v) + e^v · v^2.5 with
// v = 2 + x, written three ways (sci_f64_pow.cu: a fourth, with pow). nvcc inlines libdevice's
// log and exp for double (range reduction on the exponent bits, branches for subnormals, zero,
// infinities and overflow);
// gpueq lifts each whole sequence to the real function (ptx/lift_regions.hpp), so
//   sci_ref:   log(v) + exp(v + 2.5·log(v))
//   sci_split: log(v) + exp(v) · exp(2.5·log(v))     (the same function: e^(a+b) = e^a·e^b)
//   sci_wrong: log(v) + exp(v) · exp(3.5·log(v))     (v^3.5 instead of v^2.5)
// v = 2 + x keeps log's argument positive on the float32 run's random inputs (x in [-1, 1]; that
// run computes log and exp in double). One thread per element.
extern "C" __global__ void sci_ref(const double* __restrict__ x, double* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double v = 2.0 + x[i];
        y[i] = log(v) + exp(v + 2.5 * log(v));
    }
}

extern "C" __global__ void sci_split(const double* __restrict__ x, double* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double v = 2.0 + x[i];
        y[i] = log(v) + exp(v) * exp(2.5 * log(v));
    }
}

extern "C" __global__ void sci_wrong(const double* __restrict__ x, double* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double v = 2.0 + x[i];
        y[i] = log(v) + exp(v) * exp(3.5 * log(v));
    }
}
