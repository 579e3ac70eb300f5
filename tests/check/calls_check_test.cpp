// Device-function calls through check (issue 21 item 11): a race between accesses made inside
// callees is reported with the callees' PTX and CUDA lines, as a race in the kernel's own body
// would be. The kernel is the corpus's bugs/shift_call.ptx (nvcc output, ptxas-clean): put() stores
// s[i] (shift_call.cu:8) and get() loads it (shift_call.cu:9); shift_call_racy has no barrier.
#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_json.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace gpueq;

namespace {

std::filesystem::path corpus_path(const char* file) { return std::filesystem::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels" / file; }

// The 1-based line of the first line of `file` at or after the line containing `after` that
// contains `needle`.
std::uint32_t line_after(const std::filesystem::path& file, const std::string& after, const std::string& needle) {
  std::ifstream in(file);
  std::string text;
  bool seen = false;
  for (std::uint32_t n = 1; std::getline(in, text); ++n) {
    seen = seen || text.find(after) != std::string::npos;
    if (seen && text.find(needle) != std::string::npos) return n;
  }
  return 0;
}

}  // namespace

TEST_CASE("a race between accesses inside called device functions names the callees' lines") {
  check::pair_spec s = check::load_spec(corpus_path("bugs/shift_call_synced_vs_racy.pair.json").string());
  check::check_options o;
  o.float32_report = false;
  auto r = check::check_pair(s, check::resolve(s), o);
  CHECK(r.v == check::verdict::race);
  auto ptx = corpus_path("bugs/shift_call.ptx");
  std::uint32_t store = line_after(ptx, ".func _Z3putPfif(", "st.shared.f32"), load = line_after(ptx, "_Z3getPKfi(", "ld.shared.f32");
  REQUIRE(store != 0);
  REQUIRE(load != 0);
  CAPTURE(r.summary);
  CHECK(r.summary.find("write by thread 0 at PTX line " + std::to_string(store) + " (shift_call.cu:8)") != std::string::npos);
  CHECK(r.summary.find("read by thread 63 at PTX line " + std::to_string(load) + " (shift_call.cu:9)") != std::string::npos);
}
