// A stand-in for the CUDA driver (libcuda) with the few entry points examples/kernels/hardware.py
// calls, for tests/hardware/harness_test.py: it runs no kernel. Memory is host memory (a copy to
// the "device" and back returns the bytes), and every module load, tensor-map encoding and launch
// is written as one line to the file GPUEQ_FAKE_CUDA_LOG names, so the test can check what the
// harness would have asked a GPU to do. A launch logs each parameter's bytes in hex; the sizes
// come from GPUEQ_FAKE_CUDA_PARAM_BYTES ("8,8,4,4"), since a driver knows them from the module.
// Signatures follow the driver API's documentation (handles as pointers, CUresult as int).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
void log_line(const std::string& s) {
  const char* path = std::getenv("GPUEQ_FAKE_CUDA_LOG");
  if (!path) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", s.c_str());
    std::fclose(f);
  }
}
std::string hex(const void* p, std::size_t n) {
  std::string s;
  char b[3];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", static_cast<const unsigned char*>(p)[i]);
    s += b;
  }
  return s;
}
std::string params(void** p) {
  std::string s;
  const char* sizes = std::getenv("GPUEQ_FAKE_CUDA_PARAM_BYTES");
  for (int i = 0; sizes && *sizes; ++i) {
    char* end = nullptr;
    unsigned long n = std::strtoul(sizes, &end, 10);
    if (end == sizes) break;
    s += " p" + std::to_string(i) + "=" + hex(p[i], n);
    sizes = *end == ',' ? end + 1 : end;
  }
  return s;
}
struct launch_attribute {
  int id;
  char pad[4];
  unsigned value[16];
};
struct launch_config {
  unsigned gx, gy, gz, bx, by, bz, shared;
  void* stream;
  launch_attribute* attrs;
  unsigned count;
};
}  // namespace

extern "C" {
int cuInit(unsigned) { return 0; }
int cuDeviceGet(int* d, int) { *d = 0; return 0; }
int cuDevicePrimaryCtxRetain(void** c, int) { *c = reinterpret_cast<void*>(1); return 0; }
int cuCtxSetCurrent(void*) { return 0; }
int cuDeviceGetName(char* name, int len, int) { std::snprintf(name, len, "fake"); return 0; }
int cuGetErrorString(int, const char** s) { *s = "fake error"; return 0; }
int cuMemAlloc_v2(std::uint64_t* p, std::size_t n) { *p = reinterpret_cast<std::uint64_t>(std::malloc(n)); return 0; }
int cuMemsetD8_v2(std::uint64_t p, unsigned char v, std::size_t n) { std::memset(reinterpret_cast<void*>(p), v, n); return 0; }
int cuMemcpyHtoD_v2(std::uint64_t d, const void* s, std::size_t n) { std::memcpy(reinterpret_cast<void*>(d), s, n); return 0; }
int cuMemcpyDtoH_v2(void* d, std::uint64_t s, std::size_t n) { std::memcpy(d, reinterpret_cast<void*>(s), n); return 0; }
int cuMemFree_v2(std::uint64_t p) { std::free(reinterpret_cast<void*>(p)); return 0; }
int cuModuleLoadDataEx(void** m, const void* image, unsigned, int*, void**) {
  log_line("load " + std::to_string(std::strlen(static_cast<const char*>(image))) + " bytes");
  *m = reinterpret_cast<void*>(2);
  return 0;
}
int cuModuleGetFunction(void** f, void*, const char* name) {
  log_line(std::string("function ") + name);
  *f = reinterpret_cast<void*>(3);
  return 0;
}
int cuModuleUnload(void*) { return 0; }
int cuFuncSetAttribute(void*, int attribute, int value) {
  log_line("attribute " + std::to_string(attribute) + " " + std::to_string(value));
  return 0;
}
int cuCtxSynchronize() { return 0; }
int cuLaunchKernel(void*, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void*, void** p, void**) {
  char b[128];
  std::snprintf(b, sizeof b, "launch grid %u %u %u block %u %u %u shared %u", gx, gy, gz, bx, by, bz, shared);
  log_line(b + params(p));
  return 0;
}
int cuLaunchKernelEx(const launch_config* c, void*, void** p, void**) {
  char b[192];
  std::snprintf(b, sizeof b, "launch_ex grid %u %u %u block %u %u %u shared %u attributes %u", c->gx, c->gy, c->gz,
                c->bx, c->by, c->bz, c->shared, c->count);
  std::string s = b;
  for (unsigned i = 0; i < c->count; ++i)
    s += " [" + std::to_string(c->attrs[i].id) + ": " + std::to_string(c->attrs[i].value[0]) + " " +
         std::to_string(c->attrs[i].value[1]) + " " + std::to_string(c->attrs[i].value[2]) + "]";
  log_line(s + params(p));
  return 0;
}
int cuTensorMapEncodeTiled(void* map, int dtype, unsigned rank, void* address, const std::uint64_t* dims,
                           const std::uint64_t* strides, const unsigned* box, const unsigned* element_strides,
                           int interleave, int swizzle, int l2, int oob) {
  std::string s = "tensor_map dtype " + std::to_string(dtype) + " rank " + std::to_string(rank) + " dims";
  for (unsigned i = 0; i < rank; ++i) s += " " + std::to_string(dims[i]);
  s += " strides";
  for (unsigned i = 0; i + 1 < rank; ++i) s += " " + std::to_string(strides[i]);
  s += " box";
  for (unsigned i = 0; i < rank; ++i) s += " " + std::to_string(box[i]);
  s += " element_strides";
  for (unsigned i = 0; i < rank; ++i) s += " " + std::to_string(element_strides[i]);
  s += " interleave " + std::to_string(interleave) + " swizzle " + std::to_string(swizzle) + " l2 " +
       std::to_string(l2) + " oob " + std::to_string(oob);
  s += (reinterpret_cast<std::uintptr_t>(map) % 64 == 0 ? " aligned" : " MISALIGNED");
  log_line(s);
  // The map's bytes: its global address, so the test can see the map reach the parameter.
  std::memset(map, 0, 128);
  std::memcpy(map, &address, sizeof address);
  return 0;
}
}
