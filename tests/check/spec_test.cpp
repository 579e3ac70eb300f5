// Pair specs: every spec of the corpus reads and resolves against its PTX; malformed specs are
// rejected with the file and what is wrong.
#include <gpueq/check/spec_json.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

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
      CHECK(r.reference.functions[r.reference_entry].entry);
      CHECK(r.candidate.functions[r.candidate_entry].entry);
      bool has_output = false;
      for (auto& [n, t] : s.tensors) has_output = has_output || t.use != check::role::input;
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
            .find("reference.block: more than 1024 threads") != std::string::npos);
  check::pair_spec s = check::parse_spec(spec(x, ", \"expect\": \"race\", \"culprit\": \"candidate\""), "dir/ok.pair.json");
  CHECK(s.expect == check::verdict::race);
  CHECK(s.reference.path == "dir/k.ptx");
  CHECK(s.tensors.at("x").elements() == 4);
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
