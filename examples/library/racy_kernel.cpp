// A kernel written in C++ with the kernel language (gpueq/dsl/kernel.hpp), no nvcc involved: a
// 3-point smoothing done in place in a shared-memory tile. Each thread reads its neighbours and
// then overwrites its own element; the barrier between the reads and the writes is forgotten,
// so a thread may overwrite tile[t] while its neighbour still reads it. gpueq runs the CTA
// symbolically with the race context observing and reports the race at the C++ lines of both
// accesses; with the barrier the kernel is race-free. Exits non-zero unless the race is found
// where it is and the fixed kernel is clean.
#include <gpueq/gpueq.hpp>
#include <gpueq/dsl/kernel.hpp>

#include <cstdio>
#include <string>

namespace kl = gpueq::dsl::kl;
using namespace gpueq;

namespace {

constexpr unsigned n = 128;
unsigned read_line = 0, write_line = 0;

void smooth(kl::kernel& k, bool with_barrier) {
  auto x = k.tensor_f32("x");
  auto y = k.tensor_f32("y");
  auto tile = k.shared_f32("tile", n);
  kl::i32 t = k.tid_x();
  tile[t] = x[t];
  k.sync();
  auto v = k.var(0.0f);
  kl::if_(t > 0 && t < n - 1,
          [&] { v = (tile[t - 1] + tile[t] + tile[t + 1]) / 3.0f; read_line = __LINE__; },
          [&] { v = tile[t]; });
  if (with_barrier) k.sync();  // the barrier the racy version forgets
  tile[t] = v; write_line = __LINE__;
  k.sync();
  y[t] = tile[t];
}

check::check_result check_alone(const kl::kernel& k) {
  // One kernel: reference and candidate are the same.
  check::single_kernel c = check::single_kernel_pair(k.module(), k.name(), k.params(),
                                                     {{"x", {check::dtype::f32, {n}, check::role::input}},
                                                      {"y", {check::dtype::f32, {n}, check::role::output}}},
                                                     {n, 1, 1});
  return check::check_pair(c.spec, c.pair);
}

}  // namespace

int main() {
  kl::kernel racy("smooth_racy");
  smooth(racy, false);
  check::check_result r = check_alone(racy);
  std::printf("racy kernel: %s\n%s\n\n", std::string(check::name(r.v)).c_str(), r.summary.c_str());

  kl::kernel fixed("smooth_fixed");
  smooth(fixed, true);
  check::check_result f = check_alone(fixed);
  std::printf("with the barrier: %s\n", std::string(check::name(f.v)).c_str());

  std::string file = __FILE__;
  auto at = [&](unsigned line) { return file + ":" + std::to_string(line) + ")"; };
  bool named = r.summary.find(at(write_line)) != std::string::npos && r.summary.find(at(read_line)) != std::string::npos;
  if (r.v != check::verdict::race || !named) {
    std::printf("FAILED: expected a race between %s and %s\n", at(write_line).c_str(), at(read_line).c_str());
    return 1;
  }
  return f.v == check::verdict::equivalent ? 0 : 1;
}
