// Reference for the warp-specialized pipelines: the row is processed in chunks of 64 values and
// y[b + c] = x[b + c] * x[b + 63 - c] for chunk base b (each value times its mirror within the
// chunk), one thread per output, straight from global memory.
#define CHUNK 64

extern "C" __global__ void mirror_ref(const float* __restrict__ x, float* __restrict__ y, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const int b = i / CHUNK * CHUNK, c = i % CHUNK;
        y[i] = x[i] * x[b + CHUNK - 1 - c];
    }
}
