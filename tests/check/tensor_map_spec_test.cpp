// CUtensorMap parameters in a spec (issue 20 item 4): "tensor_maps" describe the map the host
// encodes with cuTensorMapEncodeTiled; the reader checks the keys, resolve() the PTX parameter
// (`.param .align 64 .b8 p[128]`) and the map as the driver would (exec::tma::validate), and a
// check runs the kernel with the map laid out in memory. The kernel is the corpus's
// hopper/tma_tile.ptx (tma_tile_ok: a 16 x 32 f32 tile per CTA through a 128B-swizzled TMA load
// and a TMA store).
#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_json.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace gpueq;

namespace {

std::string map_spec_dir() { return std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/hopper/"; }

// The tma_tile pair with the given x_map (y_map: box [32, 16], no swizzle).
check::pair_spec with_map(const std::string& x_map, const std::string& entry = "tma_tile_ok") {
  return check::parse_spec(
      R"({"tensors": {"x": {"dtype": "f32", "shape": [32, 64], "role": "input"}, "y": {"dtype": "f32", "shape": [32, 64], "role": "output"}},
          "tensor_maps": {"x_map": )" + x_map + R"(, "y_map": {"tensor": "y", "box": [32, 16]}},
          "reference": {"ptx": "tma_tile.ptx", "entry": "tile_naive", "params": ["x", "y"], "grid": [2, 2], "block": [128]},
          "candidate": {"ptx": "tma_tile.ptx", "entry": ")" + entry + R"(", "params": ["x_map", "y_map"], "grid": [2, 2], "block": [128]}})",
      map_spec_dir() + "map.pair.json");
}

std::string map_resolve_error(const check::pair_spec& s) {
  try {
    (void)check::resolve(s);
  } catch (const support::diagnostic_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("tensor maps are read, and checked as the driver checks them") {
  CHECK(map_resolve_error(with_map(R"({"tensor": "x", "box": [32, 16], "swizzle": "128B"})")) == "");
  // 32 f32 per box row are 128 bytes: more than the 64B swizzle's span.
  std::string e = map_resolve_error(with_map(R"({"tensor": "x", "box": [32, 16], "swizzle": "64B"})"));
  CHECK_MESSAGE(e.find("tensor map 'x_map': tensor map: the inner box dimension, 128 bytes, exceeds the 64B swizzle span") !=
                    std::string::npos,
                e);
  e = map_resolve_error(with_map(R"({"tensor": "x", "box": [32, 16], "global_strides": [200]})"));
  CHECK_MESSAGE(e.find("globalStrides[0] = 200 bytes (dimension 1) is not a multiple of 16") != std::string::npos, e);
  e = map_resolve_error(with_map(R"({"tensor": "x", "box": [32, 16], "global_dims": [64, 64]})"));
  CHECK_MESSAGE(e.find("reach byte 16384 of tensor 'x', which has 8192") != std::string::npos, e);
  e = map_resolve_error(with_map(R"({"tensor": "x", "box": [32]})"));
  CHECK_MESSAGE(e.find("box needs 2 extents") != std::string::npos, e);
  e = map_resolve_error(with_map(R"({"tensor": "x", "box": [32, 16], "interleave": "16B"})"));
  CHECK_MESSAGE(e.find("interleaved layouts are not modelled") != std::string::npos, e);
  CHECK_THROWS_WITH_AS((void)with_map(R"({"tensor": "z", "box": [32, 16]})"),
                       doctest::Contains("tensor_maps.x_map.tensor: 'z' is not a tensor of the spec"), support::diagnostic_error);
  CHECK_THROWS_WITH_AS((void)with_map(R"({"tensor": "x", "box": [32, 16], "swizzle": "16B"})"),
                       doctest::Contains("tensor_maps.x_map.swizzle: expected one of none, 32B, 64B, 128B, 96B"),
                       support::diagnostic_error);
  CHECK_THROWS_WITH_AS((void)with_map(R"({"tensor": "x"})"), doctest::Contains("needs \"tensor\" and \"box\""),
                       support::diagnostic_error);
  // A map bound to a parameter that is not a CUtensorMap: tile_naive's first parameter is a .u64.
  e = map_resolve_error(with_map(R"({"tensor": "x", "box": [32, 16]})", "tile_naive"));
  CHECK_MESSAGE(e.find("is a tensor map but the PTX parameter is not `.param .align 64 .b8") != std::string::npos, e);
}

TEST_CASE("the swizzle a spec gives the map is the one the kernel reads through") {
  check::check_options o;
  o.float32_report = false;
  auto check = [&](const check::pair_spec& s) { return check::check_pair(s, check::resolve(s), o); };
  auto right = check(with_map(R"({"tensor": "x", "box": [32, 16], "swizzle": "128B"})"));
  CHECK_MESSAGE(right.v == check::verdict::equivalent, right.summary);
  // The kernel undoes the 128B swizzle; a map without one lands the tile unswizzled, so the
  // kernel reads permuted elements: not equivalent.
  auto wrong = check(with_map(R"({"tensor": "x", "box": [32, 16]})"));
  CHECK_MESSAGE(wrong.v == check::verdict::different, wrong.summary);
}
