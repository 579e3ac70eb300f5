// Fuzz target for the .npy reader (check/npy.hpp: `gpueq run`'s inputs, a spec's given contents). The first bytes are what
// the spec declares for the tensor: byte 0 its dtype (mod 12), byte 1 its rank r (mod 4; 0 is a
// scalar), then r bytes its extents; the rest is the file. Any file either reads, with exactly the
// declared dtype and as many values as the declared shape holds, or throws
// support::diagnostic_error naming the file with a reason. What reads writes back (npy::write)
// to a file that reads again to the same values. Any other exception, a crash, undefined
// behaviour or an allocation larger than the file aborts.
#include <gpueq/check/npy.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

constexpr const char* file_name = "fuzz/x.npy";

gpueq::check::npy::array read_text(const std::string& bytes, gpueq::check::dtype type, const std::vector<std::uint64_t>& shape) {
  std::istringstream in(bytes, std::ios::binary);
  return gpueq::check::npy::read(in, bytes.size(), file_name, type, shape, "tensor 'x'");
}

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using gpueq::check::dtype;
  if (size < 2) return 0;
  const auto type = static_cast<dtype>(data[0] % 12);
  const std::size_t rank = data[1] % 4;
  if (size < 2 + rank) return 0;
  std::vector<std::uint64_t> shape(data + 2, data + 2 + rank);
  for (auto& e : shape) e = e ? e : 1;  // extents are positive (the spec reader sees to it)
  std::string bytes(reinterpret_cast<const char*>(data + 2 + rank), size - 2 - rank);

  gpueq::check::npy::array a;
  try {
    a = read_text(bytes, type, shape);
  } catch (const gpueq::support::diagnostic_error& e) {
    if (e.reason().empty() || e.file() != file_name) fail("an error without the file or a reason", e.what());
    return 0;
  } catch (const std::exception& e) {
    fail("npy::read threw something other than a diagnostic_error", e.what());
  }

  std::uint64_t n = 1;
  for (auto d : shape) n *= d;
  if (a.values.size() != n) fail("the values are not as many as the declared shape holds", std::to_string(a.values.size()));
  if (a.descr != gpueq::check::npy::descr_of(type)) fail("a file of another dtype was read", a.descr);

  // Written back and read again: the same values (integers and floats of the dtype round-trip
  // through doubles exactly; values the dtype cannot hold were never read).
  std::ostringstream out(std::ios::binary);
  gpueq::check::npy::write(out, a.descr, shape.empty() ? std::vector<std::uint64_t>{1} : shape, a.values);
  gpueq::check::npy::array b;
  try {
    b = read_text(out.str(), type, shape);
  } catch (const std::exception& e) {
    fail("what npy::write wrote does not read", e.what());
  }
  if (b.values.size() != a.values.size()) fail("the round trip changed the number of values", std::to_string(b.values.size()));
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (!same_value(a.values[i], b.values[i]))
      fail("the round trip changed a value", std::to_string(i) + ": " + std::to_string(a.values[i]) + " became " +
                                                 std::to_string(b.values[i]));
  return 0;
}
