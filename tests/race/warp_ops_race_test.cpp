// stmatrix under the race context: its row writes are observed as the address lanes' accesses (as
// ldmatrix's reads are), so two warps storing the same tile without a barrier between them are a
// WAW race naming both stmatrix lines, and with the barrier the kernel is race-free and the
// second store's values are what a reader finds. Kernel: tests/exec/warp_ops_kernels.hpp.
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"
#include "../exec/warp_ops_kernels.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace exec_test;
using namespace warp_ops_kernels;
namespace race = gpueq::race;

namespace {

struct tile_run {
  std::unique_ptr<kernel> k;
  std::string text;
  race::report report;
  outcome<exec::exact_domain> out;
};

tile_run run_tile(std::string text, const values& v) {
  tile_run r;
  REQUIRE(!text.empty());
  r.text = std::move(text);
  r.k = load(r.text, "tile.ptx");
  exec::launch l = one_cta(64, {tensor("out", exec::rkind::f16, {64}, false, true),
                                tensor("a", exec::rkind::f16, {128}, true, false)});
  fixture<exec::exact_domain> f(v);
  race::context ctx;
  r.out = run(*r.k, l, f.d, &ctx);
  r.report = ctx.result();
  return r;
}

std::uint32_t warp_line(const tile_run& r, std::uint32_t instruction) {
  return r.k->module.functions[0].instructions[instruction].line;
}

std::string warp_listing(const tile_run& r) {
  std::string s;
  for (const auto& g : r.report.races)
    s += std::string(race::name(g.example.kind)) + " lines " + std::to_string(warp_line(r, g.example.first.instruction)) +
         " / " + std::to_string(warp_line(r, g.example.second.instruction)) + "; ";
  return s;
}

}  // namespace

TEST_CASE("two warps' stmatrix to one tile, ordered by a barrier: race-free, the second store is read") {
  values v = small_integers(6);
  auto r = run_tile(std::string(stmatrix_two_warps), v);
  REQUIRE_MESSAGE(!r.out.error, r.out.error->message);
  CHECK_MESSAGE(r.report.races.empty(), warp_listing(r));
  CHECK(r.report.race_count == 0);
  // Warp 1's lane l holds a[64 + 2 l], a[64 + 2 l + 1]: its fragment matrix F(x, y) = a[64 + 8 x + y]
  // (row x held by lanes 4x..4x+3). Stored with .trans (column-major), tile row t is column t of F.
  for (std::uint32_t t = 0; t < 8; ++t)
    for (std::uint32_t c = 0; c < 8; ++c) {
      CAPTURE(t);
      CAPTURE(c);
      REQUIRE(r.out.out["out"][8 * t + c].has_value());
      CHECK(*r.out.out["out"][8 * t + c] == v("a", 64 + 8 * c + t));
    }
}

TEST_CASE("two warps' stmatrix to one tile without a barrier between them: a WAW race naming both") {
  auto r = run_tile(with(stmatrix_two_warps, "SECOND:\n  bar.sync 0;\n", "SECOND:\n"), small_integers(6));
  REQUIRE_MESSAGE(!r.out.error, r.out.error->message);
  const std::uint32_t first = line_of(r.text, "stmatrix.sync.aligned.m8n8.x1.shared.b16");
  const std::uint32_t second = line_of(r.text, "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16");
  bool found = false;
  for (const auto& g : r.report.races)
    found = found || (g.example.kind == race::race_kind::waw && warp_line(r, g.example.first.instruction) == first &&
                      warp_line(r, g.example.second.instruction) == second && !g.all_benign);
  CHECK_MESSAGE(found, warp_listing(r));
  // Every one of the 8 rows (16 bytes each, written by lanes 0-7 of each warp) races.
  CHECK(r.report.race_count >= 8);
}
