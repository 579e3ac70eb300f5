// Fuzz target for the PTX parser: any byte string either parses or throws a diagnostic_error with
// a line; whatever parses must print and parse back to the same IR. Anything else aborts.
#include <gpueq/ptx.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gpueq::ptx::module m;
  try {
    m = gpueq::ptx::parse(text, "fuzz.ptx");
  } catch (const gpueq::support::diagnostic_error& e) {
    if (e.line() == 0 || e.column() == 0 || e.reason().empty()) {
      std::fprintf(stderr, "diagnostic without a position: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  std::string printed = gpueq::ptx::print(m);
  try {
    gpueq::ptx::module again = gpueq::ptx::parse(printed, "printed.ptx");
    std::string diff = gpueq::ptx::difference(m, again);
    if (!diff.empty()) {
      std::fprintf(stderr, "round trip changed the IR: %s\n", diff.c_str());
      std::abort();
    }
  } catch (const gpueq::support::diagnostic_error& e) {
    std::fprintf(stderr, "printed PTX does not parse: %s\n", e.what());
    std::abort();
  }
  return 0;
}
