// y = log(v) + e^v · pow(v, 2.5) in double, v = 2 + x: the reference sci_ref (sci_f64.cu) written
// with pow. nvcc inlines log and exp from libdevice, and compiles pow(double) to special cases
// around a call of __internal_accurate_pow, a .func; gpueq lifts all three (ptx/lift_regions.hpp,
// pow compared with nvcc's own output for pow(x, 2.5)) to log v, e^v and e^(2.5 log v).
extern "C" __global__ void sci_pow(const double* __restrict__ x, double* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double v = 2.0 + x[i];
        y[i] = log(v) + exp(v) * pow(v, 2.5);
    }
}
