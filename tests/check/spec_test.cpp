// Pair specs: every spec of the corpus reads and resolves against its PTX; malformed specs are
// rejected with the file and what is wrong.
#include <gpueq/check/spec_json.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <utility>

using namespace gpueq;

TEST_CASE("every pair spec of the corpus reads and matches its PTX") {
  namespace fs = std::filesystem;
  fs::path root = fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels";
  REQUIRE(fs::is_directory(root));
  std::size_t specs = 0, with_expect = 0;
  for (auto& e : fs::recursive_directory_iterator(root)) {
    std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !name.ends_with(".pair.json")) continue;
    ++specs;
    INFO("spec: " << e.path().string());
    try {
      check::pair_spec s = check::load_spec(e.path().string());
      with_expect += s.expect.has_value();
      check::resolved_pair r = check::resolve(s);
      if (check::has_kernel(s, false)) CHECK(r.reference.functions[r.reference_entry].entry);
      else CHECK(r.reference.functions.empty());  // a specification reference is no kernel
      CHECK(r.candidate.functions[r.candidate_entry].entry);
      bool has_output = false;
      for (auto& [n, t] : s.tensors) has_output = has_output || t.use == check::role::output || t.use == check::role::inout;
      CHECK(has_output);
    } catch (const support::diagnostic_error& err) {
      FAIL(err.what());
    }
  }
  CHECK(specs >= 20);
  CHECK(with_expect == specs);  // the corpus states every expected verdict
}

TEST_CASE("malformed specs are rejected with the file and the reason") {
  auto error_of = [](std::string_view text) {
    try {
      (void)check::parse_spec(text, "dir/bad.pair.json");
    } catch (const support::diagnostic_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const char* ok_kernel = R"({"ptx": "k.ptx", "params": ["x"], "block": [32]})";
  auto spec = [&](std::string tensors, std::string extra = "") {
    return "{\"tensors\": " + tensors + ", \"reference\": " + ok_kernel + ", \"candidate\": " + ok_kernel + extra + "}";
  };
  const std::string x = R"({"x": {"dtype": "f32", "shape": [4], "role": "inout"}})";
  CHECK(error_of("{\"tensors\": ") .find("dir/bad.pair.json:1:") == 0);
  CHECK(error_of(spec(x, ", \"expekt\": \"equivalent\"")).find("expekt: unknown key") != std::string::npos);
  CHECK(error_of(spec(x, ", \"expect\": \"same\"")).find("expect: expected one of equivalent, not-equivalent, race") != std::string::npos);
  CHECK(error_of(spec(R"({"x": {"dtype": "f31", "shape": [4], "role": "input"}})")).find("tensors.x.dtype") != std::string::npos);
  CHECK(error_of(spec(R"({"x": {"dtype": "f32", "shape": [0], "role": "input"}})")).find("tensors.x.shape[0]") != std::string::npos);
  CHECK(error_of(spec(x, ", \"scalars\": {\"a\": {\"dtype\": \"s32\", \"symbolic\": true}}")).find("only floating-point") !=
        std::string::npos);
  CHECK(error_of(R"({"tensors": {"x": {"dtype": "f32", "shape": [4], "role": "input"}},
                     "reference": {"ptx": "k.ptx", "params": ["x"], "block": [2048]},
                     "candidate": {"ptx": "k.ptx", "params": ["x"], "block": [32]}})")
            .find("reference.block: block x = 2048 is outside 1..1024") != std::string::npos);
  CHECK(error_of(spec(R"({"x": {"dtype": "f32", "shape": [4], "role": "temp"}})"))
            .find("tensors.x.role: expected input, output, inout or scratch") != std::string::npos);
  // scratch: the kernel's own memory (Triton's global scratch), neither an input nor compared.
  CHECK(check::parse_spec(spec(R"({"x": {"dtype": "u8", "shape": [128], "role": "scratch"}})"), "dir/ok.pair.json")
            .tensors.at("x")
            .use == check::role::scratch);
  // A number past a double's range: nlohmann's out_of_range, not a parse_error (found by fuzz_spec_json).
  CHECK(error_of(R"({"tensors": {"x": {"dtype": "f32", "shape": [1e400], "role": "input"}}})") ==
        "dir/bad.pair.json: number overflow parsing '1e400'");
  check::pair_spec s = check::parse_spec(spec(x, ", \"expect\": \"race\", \"culprit\": \"candidate\""), "dir/ok.pair.json");
  CHECK(s.expect == check::verdict::race);
  CHECK(s.reference.path == "dir/k.ptx");
  CHECK(s.tensors.at("x").elements() == 4);
}

TEST_CASE("launches, shapes and scalars are checked against their limits as they are read") {
  auto error_of = [](std::string_view text) {
    try {
      (void)check::parse_spec(text, "bad.kernel.json");
    } catch (const support::diagnostic_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto kernel = [](std::string launch, std::string shape = "[4]") {
    return R"({"tensors": {"x": {"dtype": "f32", "shape": )" + shape + R"(, "role": "inout"}},
               "kernel": {"ptx": "k.ptx", "params": ["x"], )" + launch + "}}";
  };
  // Read in 64 bits and checked before narrowing: 2^32+128 is not 128, 2^32 x 2^32 is not 0.
  CHECK(error_of(kernel(R"("block": [4294967424])")) == "bad.kernel.json: kernel.block: block x = 4294967424 is outside 1..1024");
  CHECK(error_of(kernel(R"("block": [1, 1, 65])")) == "bad.kernel.json: kernel.block: block z = 65 is outside 1..64");
  CHECK(error_of(kernel(R"("block": [32, 64])")) == "bad.kernel.json: kernel.block: block 32x64 has 2048 threads; a CTA has 1 to 1024");
  CHECK(error_of(kernel(R"("block": [32], "grid": [1, 65536])")) == "bad.kernel.json: kernel.grid: grid y = 65536 is outside 1..65535");
  CHECK(error_of(kernel(R"("block": [32], "grid": [2147483648])")).find("grid x = 2147483648") != std::string::npos);
  CHECK(error_of(kernel(R"("block": [32], "ctas": [[4294967296]])")).find("kernel.ctas[0][0]: 4294967296 is outside every grid") !=
        std::string::npos);
  CHECK(error_of(kernel(R"("block": [32], "dynamic_shared_bytes": 1000000)")).find("more than 232448 bytes") != std::string::npos);
  CHECK(error_of(kernel(R"("block": [32])", "[4294967296, 4294967296]")) ==
        "bad.kernel.json: tensors.x.shape: a f32 tensor of shape [4294967296, 4294967296] exceeds the limit of 2^40 bytes per tensor");
  CHECK(error_of(kernel(R"("block": [32])", "[18446744073709551615]")).find("exceeds the limit") != std::string::npos);
  CHECK(error_of(kernel(R"("block": [1024], "grid": [2147483647, 65535, 65535])", "[268435456]")) == "no error");
  // Scalars against the PTX parameter's type.
  CHECK(check::scalar_problem(300, ".u8") == "300 is outside the range of .u8 (0 to 255)");
  CHECK(check::scalar_problem(300, ".s8") == "300 is outside the range of .s8 (-128 to 127)");
  CHECK(check::scalar_problem(-1, ".u32") == "-1 is outside the range of .u32 (0 to 4294967295)");
  CHECK(check::scalar_problem(1099511627776.0, ".s32") == "1099511627776 is outside the range of .s32 (-2147483648 to 2147483647)");
  CHECK(check::scalar_problem(2.5, ".u32") == "2.5 is not an integer, but the parameter is .u32");
  CHECK(check::scalar_problem(18446744073709551616.0, ".u64").find("outside the range of .u64 (0 to 2^64-1)") != std::string::npos);
  CHECK(check::scalar_problem(1e39, ".f32").find("outside the range of .f32") != std::string::npos);
  CHECK(check::scalar_problem(2, ".pred") == "2 is not a predicate (0 or 1)");
  for (auto [v, t] : std::initializer_list<std::pair<double, const char*>>{{255.0, ".u8"}, {-128.0, ".s8"}, {4294967295.0, ".u32"}, {-1.0, ".b32"}, {4294967295.0, ".b32"},
                      {-2147483648.0, ".s32"}, {9007199254740992.0, ".u64"}, {1e38, ".f32"}, {0.1, ".f64"}, {1.0, ".pred"}})
    CHECK(check::scalar_problem(v, t) == "");
  // resolve() names the parameter and its PTX line.
  std::string dir = std::string(GPUEQ_SOURCE_DIR) + "/tests/cli/inputs/";
  check::pair_spec s = check::parse_spec(
      R"({"tensors": {"x": {"dtype": "f32", "shape": [4], "role": "inout"}}, "scalars": {"a": 300, "b": 1, "c": 1, "d": 1},
          "kernel": {"ptx": "scalar_types.ptx", "params": ["a", "b", "c", "d"], "block": [32]}})",
      dir + "spec.kernel.json");
  CHECK_THROWS_WITH_AS((void)check::resolve(s),
                       doctest::Contains("kernel: parameter 0 ('a', .u8 at scalar_types.ptx:7): 300 is outside the range of .u8"),
                       support::diagnostic_error);
}

TEST_CASE("a spec built in code is held to the same limits by resolve") {
  std::string dir = std::string(GPUEQ_SOURCE_DIR) + "/tests/cli/inputs/";
  auto spec = [&] {
    check::pair_spec s;
    s.file = "(in code)";
    s.single = true;
    s.tensors["x"] = {check::dtype::f32, {4}, check::role::inout};
    s.reference.ptx = "scalar_types.ptx";
    s.reference.path = dir + "scalar_types.ptx";
    s.reference.params = {"x"};
    s.reference.block = {32, 1, 1};
    s.candidate = s.reference;
    return s;
  };
  auto error_of = [](const check::pair_spec& s) {
    try {
      (void)check::resolve(s);
    } catch (const support::diagnostic_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  check::pair_spec s = spec();
  s.reference.block = {0, 1, 1};
  CHECK(error_of(s).find("kernel block: block x = 0 is outside 1..1024") != std::string::npos);
  s = spec();
  s.reference.block = {64, 32, 1};
  CHECK(error_of(s).find("kernel block: block 64x32x1 has 2048 threads; a CTA has 1 to 1024") != std::string::npos);
  s = spec();
  s.reference.grid = {1, 65536, 1};
  CHECK(error_of(s).find("kernel grid: grid y = 65536 is outside 1..65535") != std::string::npos);
  s = spec();
  s.tensors["x"].shape = {4294967296, 4294967296};
  CHECK(error_of(s).find("tensor 'x': a f32 tensor of shape [4294967296, 4294967296] exceeds the limit") != std::string::npos);
  s = spec();
  s.tensors["x"].shape = {};
  CHECK(error_of(s).find("tensor 'x': expected at least one extent") != std::string::npos);
}

TEST_CASE("a spec that does not match its PTX names the mismatch") {
  std::string dir = std::string(GPUEQ_SOURCE_DIR) + "/tests/ptx/inputs/";
  check::pair_spec s = check::parse_spec(
      R"({"tensors": {"x": {"dtype": "f32", "shape": [4], "role": "inout"}},
          "reference": {"ptx": "idioms.ptx", "entry": "no_such_kernel", "params": ["x"], "block": [32]},
          "candidate": {"ptx": "idioms.ptx", "entry": "no_such_kernel", "params": ["x"], "block": [32]}})",
      dir + "spec.pair.json");
  try {
    (void)check::resolve(s);
    FAIL("no error");
  } catch (const support::diagnostic_error& e) {
    CHECK(std::string(e.what()).find("has no kernel (.entry) named 'no_such_kernel'") != std::string::npos);
  }
}
