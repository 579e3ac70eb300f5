// By-value struct parameters (issue 21 item 12): the spec's "structs" describe a struct parameter
// as fields at byte offsets; resolve() checks them against the PTX parameter (inside it, aligned
// to their width, not overlapping), and a run reads each ld.param of the struct from the field at
// its offset. The kernel is the corpus's realworld/struct_params.ptx: saxpy_struct(Params p) with
// Params { const float* x; float* y; int n; float a; } (24 bytes: x at 0, y at 8, n at 16, a at 20).
#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_json.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace gpueq;

namespace {

std::string dir() { return std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/realworld/"; }

// A single-kernel spec of saxpy_struct whose struct has the given fields.
check::pair_spec with_fields(const std::string& fields) {
  return check::parse_spec(
      R"({"tensors": {"x": {"dtype": "f32", "shape": [8], "role": "input"}, "y": {"dtype": "f32", "shape": [8], "role": "inout"}},
          "scalars": {"n": {"dtype": "s32", "value": 8}, "a": {"dtype": "f32", "symbolic": true}, "m": 8},
          "structs": {"p": {"fields": [)" + fields + R"(]}},
          "kernel": {"ptx": "struct_params.ptx", "entry": "saxpy_struct", "params": ["p"], "block": [8]}})",
      dir() + "struct.kernel.json");
}

std::string resolve_error(const check::pair_spec& s) {
  try {
    (void)check::resolve(s);
  } catch (const support::diagnostic_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("struct fields are checked against the PTX parameter") {
  const std::string ok = R"({"offset": 0, "name": "x"}, {"offset": 8, "name": "y"}, {"offset": 16, "name": "n"}, {"offset": 20, "name": "a"})";
  CHECK(resolve_error(with_fields(ok)) == "");
  const std::string at = "kernel: parameter 0 ('p', .b8[24] at struct_params.ptx:";
  std::string e = resolve_error(with_fields(R"({"offset": 4, "name": "x"})"));
  CHECK(e.find(at) != std::string::npos);
  CHECK(e.find("field 'x' at byte 4 (8 bytes) is misaligned: its offset is not a multiple of 8") != std::string::npos);
  e = resolve_error(with_fields(R"({"offset": 0, "name": "x"}, {"offset": 4, "name": "n"})"));
  CHECK(e.find("field 'n' at byte 4 overlaps field 'x' at byte 0") != std::string::npos);
  e = resolve_error(with_fields(R"({"offset": 24, "name": "n"})"));
  CHECK(e.find("field 'n' at byte 24 (4 bytes) runs past the end of the 24-byte parameter") != std::string::npos);
  // An offset near 2^64, where offset + width wraps around to a small number (found by fuzz_spec_json).
  e = resolve_error(with_fields(R"({"offset": 18446744073709551608, "name": "x"})"));
  CHECK(e.find("field 'x' at byte 18446744073709551608 (8 bytes) runs past the end of the 24-byte parameter") !=
        std::string::npos);
  // A scalar without a dtype needs one on the field; with one, it is checked against its range.
  CHECK_THROWS_WITH_AS((void)with_fields(R"({"offset": 16, "name": "m"})"),
                       doctest::Contains("structs.p.fields[0]: the scalar 'm' has no dtype"), support::diagnostic_error);
  CHECK(resolve_error(with_fields(
            R"({"offset": 0, "name": "x"}, {"offset": 8, "name": "y"}, {"offset": 16, "name": "m", "dtype": "u32"})")) == "");
  CHECK_THROWS_WITH_AS((void)with_fields(R"({"offset": 16, "name": "n", "dtype": "u32"})"),
                       doctest::Contains("structs.p.fields[0].dtype: the scalar 'n' is s32, not u32"), support::diagnostic_error);
  CHECK_THROWS_WITH_AS((void)with_fields(R"({"offset": 16, "name": "q"})"),
                       doctest::Contains("'q' is neither a tensor nor a scalar of the spec"), support::diagnostic_error);
}

TEST_CASE("a run reads each ld.param of a struct from its field, and bytes that are no field are an error") {
  check::check_options o;
  o.float32_report = false;
  auto check = [&](const check::pair_spec& s) { return check::check_pair(s, check::resolve(s), o); };
  // All four fields: the kernel runs (its outputs against themselves).
  auto full = check(with_fields(
      R"({"offset": 0, "name": "x"}, {"offset": 8, "name": "y"}, {"offset": 16, "name": "n"}, {"offset": 20, "name": "a"})"));
  CHECK_MESSAGE(full.v == check::verdict::equivalent, full.summary);
  // Without the field at byte 20, the kernel's `ld.param.f32 %f2, [saxpy_struct_param_0+20]` reads no field.
  auto partial = check(with_fields(R"({"offset": 0, "name": "x"}, {"offset": 8, "name": "y"}, {"offset": 16, "name": "n"})"));
  CHECK(partial.v == check::verdict::unsupported);
  CHECK_MESSAGE(partial.summary.find("a read of bytes 20 to 23 of struct parameter 'saxpy_struct_param_0', which are not one field "
                                    "of the spec (fields: x at 0 (8 bytes), y at 8 (8 bytes), n at 16 (4 bytes))") != std::string::npos,
                partial.summary);
}
