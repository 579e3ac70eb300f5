// The async proxy in the engine (exec/semantics/bulk_copy.hpp): TMA tensor loads (out-of-bounds
// fill, the 64- and 128-byte swizzles, a `.align 1024` tile), TMA stores and bulk tensor
// reductions through a CUtensorMap parameter, non-tensor bulk copies, and a map built on the
// device with tensormap.replace and tensormap.cp_fenceproxy. Expected values come from the
// tensor's layout and the PTX ISA's swizzle tables (5.5.7: chunk c of 128-byte line l is stored
// at chunk c ^ (l % 8) under the 128B swizzle, c ^ (l % 4) under 64B), worked out here by hand
// per element, never read back from gpueq. Kernels: tests/exec/tma_kernels.hpp.
#include "harness.hpp"
#include "tma_kernels.hpp"

#include <doctest/doctest.h>

#include <cstdint>

using namespace exec_test;
namespace tma = exec::tma;

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

namespace {

// A row-major rows x cols f32 tensor's 2-D map: dimension 0 the columns.
tma::tensor_map map2d(std::uint64_t rows, std::uint64_t cols, std::uint32_t box_cols, std::uint32_t box_rows,
                      tma::swizzle sw = tma::swizzle::none) {
  tma::tensor_map m;
  m.type = tma::element_type::f32;
  m.rank = 2;
  m.global_dim = {cols, rows, 1, 1, 1};
  m.global_stride = {cols * 4, 0, 0, 0};
  m.box_dim = {box_cols, box_rows, 1, 1, 1};
  m.swizzle_mode = sw;
  return m;
}

// One CTA of `threads`; tensors in order; the parameters named by `params`: a tensor's index, or
// -1 - i for tensor map i of `maps` (each over the tensor of the given index).
exec::launch launch_with(std::uint32_t threads, std::vector<exec::tensor_binding> tensors, std::vector<int> params,
                         std::vector<std::pair<std::uint32_t, tma::tensor_map>> maps) {
  exec::launch l;
  l.block = {threads, 1, 1};
  l.tensors = std::move(tensors);
  for (int p : params) {
    if (p >= 0) {
      l.params.push_back({true, static_cast<std::uint32_t>(p)});
    } else {
      exec::param_binding b{false, static_cast<std::uint32_t>(-1 - p)};
      b.map = true;
      l.params.push_back(b);
    }
  }
  for (std::uint32_t i = 0; i < maps.size(); ++i)
    l.tensor_maps.push_back({"map" + std::to_string(i), maps[i].first, maps[i].second});
  return l;
}

values integers() {
  return [](std::string_view name, std::uint64_t e) { return rat(static_cast<long long>(e) + (name == "y" ? 1000 : 1)); };
}

}  // namespace

TEST_CASE_TEMPLATE("a TMA load lands its box, zero-filling the elements outside the tensor", D, DOMAINS) {
  // a: 8 x 32 (a[e] = e + 1). Box 8 columns x 4 rows at (x, y) = (28, 6): columns 28..35 of which
  // 32..35 lie outside, rows 6..9 of which 8 and 9 do. Word t of the unswizzled tile is box
  // element (row t / 8, column t % 8).
  std::string text = tma_kernels::load_box(".shared .align 128 .b8 tile[128];", 28, 6, 128);
  auto k = load(text, "load.ptx");
  exec::launch l = launch_with(32, {out_f32("y", 32), tensor("a", exec::rkind::f32, {8, 32}, true, false)}, {0, -1},
                               {{1, map2d(8, 32, 8, 4)}});
  fixture<D> f(integers());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t t = 0; t < 32; ++t) {
    CAPTURE(t);
    std::uint32_t row = 6 + t / 8, col = 28 + t % 8;
    rat want = row < 8 && col < 32 ? rat(static_cast<long long>(row * 32 + col) + 1) : rat(0);
    CHECK(f.at(*r.out["y"][t], l) == want);
  }
}

TEST_CASE_TEMPLATE("the 128-byte swizzle of a TMA load into a .align 1024 tile", D, DOMAINS) {
  // Box 32 x 8 f32: one 128-byte line per row. The tile is declared after a 4-byte array, so only
  // its .align 1024 puts it on the pattern's boundary. Physical byte 4 t lies in line l = 4t / 128
  // at chunk q = (4t / 16) % 8, which holds logical chunk q ^ (l % 8) of row l.
  std::string text = tma_kernels::load_box(".shared .align 1024 .b8 tile[1024];", 0, 0, 1024);
  auto k = load(text, "swizzle.ptx");
  exec::launch l = launch_with(256, {out_f32("y", 256), tensor("a", exec::rkind::f32, {8, 32}, true, false)}, {0, -1},
                               {{1, map2d(8, 32, 32, 8, tma::swizzle::b128)}});
  fixture<D> f(integers());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t t = 0; t < 256; ++t) {
    CAPTURE(t);
    std::uint32_t p = 4 * t, line = p / 128, q = (p / 16) % 8, c = q ^ (line % 8);
    std::uint32_t col = c * 4 + (p % 16) / 4;
    CHECK(f.at(*r.out["y"][t], l) == rat(static_cast<long long>(line * 32 + col) + 1));
  }
}

TEST_CASE("the 64-byte swizzle: two 64-byte rows per line, chunks XOR line % 4") {
  // Box 16 x 8 f32 (64-byte rows, the span of the 64B swizzle): row r at bytes 64 r. Physical
  // byte 4 t: line l = 4t / 128, chunk q = (4t / 16) % 8 holds logical chunk q ^ (l % 4); that
  // logical byte A = 128 l + 16 (q ^ (l % 4)) + 4t % 16 is row A / 64, column (A % 64) / 4.
  std::string text = tma_kernels::load_box(".shared .align 512 .b8 tile[512];", 0, 0, 512);
  auto k = load(text, "swizzle64.ptx");
  exec::launch l = launch_with(128, {out_f32("y", 128), tensor("a", exec::rkind::f32, {8, 16}, true, false)}, {0, -1},
                               {{1, map2d(8, 16, 16, 8, tma::swizzle::b64)}});
  fixture<exec::exact_domain> f(integers());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t t = 0; t < 128; ++t) {
    CAPTURE(t);
    std::uint32_t p = 4 * t, line = p / 128, q = (p / 16) % 8;
    std::uint32_t a = 128 * line + 16 * (q ^ (line % 4)) + p % 16;
    CHECK(f.at(*r.out["y"][t], l) == rat(static_cast<long long>((a / 64) * 16 + (a % 64) / 4) + 1));
  }
}

TEST_CASE("a swizzled copy into a tile off the 128-byte alignment is refused") {
  std::string text = tma_kernels::load_box(".shared .align 4 .b8 tile[1100];", 0, 0, 1024);
  auto k = load(text, "misaligned.ptx");
  exec::launch l = launch_with(32, {out_f32("y", 32), tensor("a", exec::rkind::f32, {8, 32}, true, false)}, {0, -1},
                               {{1, map2d(8, 32, 32, 8, tma::swizzle::b128)}});
  fixture<exec::exact_domain> f(integers());
  auto e = expect_error(*k, l, f.d);
  CHECK_MESSAGE(contains(e.message, "is not 128-byte aligned"), e.message);
  CHECK(contains(e.message, "misaligned.ptx:" + std::to_string(line_of(text, "cp.async.bulk.tensor"))));
}

TEST_CASE_TEMPLATE("a TMA store writes the box; a bulk tensor reduction adds into it", D, DOMAINS) {
  // Thread t < 64 writes 10 t + 1 to out[t], box element (row t / 8, column t % 8) of an 8 x 8 box
  // at (8, 4): y[(4 + t / 8) * 32 + 8 + t % 8]. Nothing else of y is written.
  exec::launch l = launch_with(64, {tensor("y", exec::rkind::f32, {16, 32}, false, true)}, {-1}, {{0, map2d(16, 32, 8, 8)}});
  auto k = load(tma_kernels::store_box(false, true), "store.ptx");
  fixture<D> f(integers());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  std::uint32_t written = 0;
  for (std::uint32_t e = 0; e < 16 * 32; ++e) {
    std::uint32_t row = e / 32, col = e % 32;
    if (row >= 4 && row < 12 && col >= 8 && col < 16) {
      std::uint32_t t = (row - 4) * 8 + (col - 8);
      REQUIRE(r.out["y"][e].has_value());
      CHECK(f.at(*r.out["y"][e], l) == rat(10 * static_cast<long long>(t) + 1));
      ++written;
    } else {
      CHECK_FALSE(r.out["y"][e].has_value());
    }
  }
  CHECK(written == 64);

  // The reduction adds into an inout y (y[e] = e + 1000 initially).
  exec::launch li = launch_with(64, {tensor("y", exec::rkind::f32, {16, 32}, true, true)}, {-1}, {{0, map2d(16, 32, 8, 8)}});
  auto kr = load(tma_kernels::store_box(true, true, true), "reduce.ptx");
  fixture<D> g(integers());
  auto rr = run(*kr, li, g.d);
  REQUIRE_MESSAGE(!rr.error, rr.error->message);
  for (std::uint32_t t = 0; t < 64; ++t) {
    std::uint32_t e = (4 + t / 8) * 32 + 8 + t % 8;
    CHECK(g.at(*rr.out["y"][e], li) == rat(static_cast<long long>(e) + 1000 + 10 * static_cast<long long>(t) + 1));
  }
}

TEST_CASE_TEMPLATE("bulk copies global to shared (mbarrier) and shared to global (bulk group)", D, DOMAINS) {
  auto k = load(tma_kernels::bulk, "bulk.ptx");
  exec::launch l = one_cta(16, {out_f32("y", 16), in_f32("x", 32)});
  fixture<D> f(integers());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // in = x[8..23] (bytes 32..95), y[t] = 2 in[t] = 2 (8 + t + 1).
  for (std::uint32_t t = 0; t < 16; ++t) CHECK(f.at(*r.out["y"][t], l) == rat(2 * (9 + static_cast<long long>(t))));
}

TEST_CASE_TEMPLATE("a bulk copy of a value a later store covered in part moves the bytes left and the later value", D,
                   DOMAINS) {
  auto k = load(tma_kernels::bulk_partly_covered, "bulk_partly_covered.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 4), in_f32("x", 4)});
  fixture<D> f(integers());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // y[0] and y[2..3]: the zeros' bytes; y[1]: x[0] = 0 + 1.
  CHECK(f.at(*r.out["y"][0], l) == rat(0));
  CHECK(f.at(*r.out["y"][1], l) == rat(1));
  CHECK(f.at(*r.out["y"][2], l) == rat(0));
  CHECK(f.at(*r.out["y"][3], l) == rat(0));
}

TEST_CASE_TEMPLATE("a map built on the device with tensormap.replace and copied with tensormap.cp_fenceproxy", D, DOMAINS) {
  // x: 16 x 16; the map's box 8 x 4 at (4, 8): y[t] = x[(8 + t / 8) * 16 + 4 + t % 8].
  auto k = load(tma_kernels::device_map, "device_map.ptx");
  exec::launch l = one_cta(32, {out_f32("y", 32), tensor("x", exec::rkind::f32, {16, 16}, true, false), out_int("scratch", 16, 8)});
  fixture<D> f(integers());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t t = 0; t < 32; ++t)
    CHECK(f.at(*r.out["y"][t], l) == rat(static_cast<long long>((8 + t / 8) * 16 + 4 + t % 8) + 1));
}

TEST_CASE("a map whose box does not fit its swizzle is refused at the copy, naming the rule") {
  // 32 f32 = 128 bytes per box row exceed the 64B swizzle's span.
  std::string text = tma_kernels::load_box(".shared .align 1024 .b8 tile[1024];", 0, 0, 1024);
  auto k = load(text, "badmap.ptx");
  exec::launch l = launch_with(32, {out_f32("y", 32), tensor("a", exec::rkind::f32, {8, 32}, true, false)}, {0, -1},
                               {{1, map2d(8, 32, 32, 8, tma::swizzle::b64)}});
  fixture<exec::exact_domain> f(integers());
  auto e = expect_error(*k, l, f.d);
  CHECK_MESSAGE(contains(e.message, "exceeds the 64B swizzle span"), e.message);
}
