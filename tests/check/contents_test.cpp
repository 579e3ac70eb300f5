// Given tensor contents (issue 21 item 17): a tensor's "contents" in the spec are values the host
// put there before the launch. The generators are the documented ones (splitmix64 against its
// published outputs, random_int and permutation computed by hand from them), the reader takes
// every form and refuses what does not fit the tensor, and the engine gives a tensor with contents
// concrete bits in every domain: an index loaded from it addresses concretely (the gather reads
// exactly the rows the contents name), an inout tensor starts with its contents and keeps them
// where no thread writes, and the verdict says which contents it holds for. The kernels are the
// corpus's realworld/embedding.ptx (out[r][c] = table[idx[r]][c], or 0 for id -1) and
// realworld/scatter.ptx (index_add_serial: y[dst[r]][c] += x[r][c], one thread per column).
#include <gpueq/canon/decide.hpp>
#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_json.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace gpueq;

namespace {

std::string realworld() { return std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/realworld/"; }

// A single-kernel spec of embedding_naive (16 ids, a 32x64 table, 4 CTAs of 256 threads) whose idx
// tensor has the given "contents" JSON (none when empty), of dtype `idx_type`.
std::string embedding_text(const std::string& contents, const std::string& idx_type = "s32") {
  return R"({"tensors": {"table": {"dtype": "f32", "shape": [32, 64], "role": "input"},
                         "idx": {"dtype": ")" + idx_type + R"(", "shape": [16], "role": "input")" +
         (contents.empty() ? "" : R"(, "contents": )" + contents) + R"(},
                         "out": {"dtype": "f32", "shape": [16, 64], "role": "output"}},
             "scalars": {"n": 16, "d": 64},
             "kernel": {"ptx": "embedding.ptx", "entry": "embedding_naive", "params": ["table", "idx", "out", "n", "d"],
                        "block": [256], "grid": [4]}})";
}
check::pair_spec embedding(const std::string& contents) {
  return check::parse_spec(embedding_text(contents), realworld() + "contents.kernel.json");
}

// The reader's (or resolve's) error for a spec text, "" when it reads and resolves.
std::string error_of(const std::string& text) {
  try {
    check::pair_spec s = check::parse_spec(text, realworld() + "contents.kernel.json");
    (void)check::resolve(s);
  } catch (const support::diagnostic_error& e) {
    return e.what();
  }
  return "";
}

// The kernel of a single-kernel spec run symbolically over every CTA: its run and outputs.
struct symbolic_run {
  check::grid_run<term::term_id> g;
  std::map<std::string, std::vector<std::optional<term::term_id>>> out;
};
symbolic_run run_symbolic(term::store& s, const check::pair_spec& spec) {
  check::resolved_pair p = check::resolve(spec);
  check::prepared_kernel k = check::prepare(spec, p.reference, p.reference_entry, spec.reference, "kernel");
  symbolic_run r;
  r.g = check::run_grid<exec::symbolic_domain>(k, [&] { return exec::symbolic_domain(s); });
  for (auto& [name, vals] : r.g.values) r.out[name] = vals.dense();
  return r;
}

term::term_id table(term::store& s, std::uint32_t row, std::uint32_t c) { return s.input("table", {row, c}); }

}  // namespace

TEST_CASE("the generators are splitmix64 and the documented random_int and permutation") {
  // Vigna's splitmix64.c seeded with 1234567: its published first outputs.
  CHECK(check::splitmix64(1234567, 0) == 6457827717110365317ull);
  CHECK(check::splitmix64(1234567, 1) == 3203168211198807973ull);
  CHECK(check::splitmix64(1234567, 2) == 9817491932198370423ull);
  // random_int: min + z_i mod (max - min + 1); those outputs end in 7, 3, 3.
  CHECK(check::random_int(0, 9, 1234567, 0) == 7);
  CHECK(check::random_int(0, 9, 1234567, 1) == 3);
  CHECK(check::random_int(0, 9, 1234567, 2) == 3);
  CHECK(check::random_int(-5, 4, 1234567, 0) == 2);
  CHECK(check::random_int(-5, 4, 1234567, 1) == -2);
  CHECK(check::random_int(5, 5, 99, 17) == 5);
  // The full 64-bit range: min + z_0 mod 2^64 = -2^63 + 6457827717110365317.
  CHECK(check::random_int(INT64_MIN, INT64_MAX, 1234567, 0) == -2765544319744410491ll);
  // permutation of 3 with seed 1234567: [0, 1, 2]; swap a[2] and a[z_0 mod 3 = 0] -> [2, 1, 0];
  // swap a[1] and a[z_1 mod 2 = 1] (itself).
  CHECK(check::permutation(3, 1234567) == std::vector<std::uint32_t>{2, 1, 0});
  CHECK(check::permutation(1, 5) == std::vector<std::uint32_t>{0});
  CHECK(check::permutation(0, 5).empty());
  std::vector<std::uint32_t> p = check::permutation(1000, 7), sorted = p;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t i = 0; i < 1000; ++i) CHECK(sorted[i] == i);
  CHECK(p != sorted);
}

TEST_CASE("the reader takes every form of contents and refuses contents that do not fit the tensor") {
  using f = check::contents_spec::form;
  CHECK(embedding("\"zeros\"").contents.at("idx").kind == f::zeros);
  check::contents_spec c = embedding(R"({"constant": 7})").contents.at("idx");
  CHECK((c.kind == f::constant && c.constant == 7));
  c = embedding(R"({"iota": {"start": 31, "step": -2}})").contents.at("idx");
  CHECK((c.kind == f::iota && c.start == 31 && c.step == -2));
  c = embedding(R"({"iota": {}})").contents.at("idx");
  CHECK((c.start == 0 && c.step == 1));
  c = embedding(R"({"random_int": {"min": -1, "max": 31, "seed": 3}})").contents.at("idx");
  CHECK((c.kind == f::random_int && c.min == -1 && c.max == 31 && c.seed == 3));
  c = embedding(R"({"permutation": {"seed": 9}})").contents.at("idx");
  CHECK((c.kind == f::permutation && c.seed == 9));
  CHECK(embedding("").contents.empty());

  auto refused = [](const std::string& text, const std::string& why) {
    std::string e = error_of(text);
    CHECK_MESSAGE(e.find(why) != std::string::npos, e);
  };
  refused(embedding_text("\"ones\""),
          "tensors.idx.contents: expected \"zeros\" or an object with one of constant, iota, random_int, permutation, npy");
  refused(embedding_text(R"({"constant": 1, "iota": {}})"), "tensors.idx.contents: expected \"zeros\" or an object");
  refused(embedding_text(R"({"random": {}})"), "tensors.idx.contents.random: unknown key");
  refused(embedding_text(R"({"random_int": {"min": 3, "max": 2, "seed": 0}})"), "tensors.idx.contents: min 3 is above max 2");
  refused(embedding_text(R"({"random_int": {"min": 0, "max": 2}})"), "tensors.idx.contents.random_int: needs \"min\", \"max\" and \"seed\"");
  refused(embedding_text(R"({"random_int": {"min": 0, "max": 300, "seed": 1}})", "u8"),
          "max 300 is outside the integers u8 holds exactly (0 to 255)");
  refused(embedding_text(R"({"random_int": {"min": 0, "max": 16777217, "seed": 1}})", "f32"),
          "max 16777217 is outside the integers f32 holds exactly (-16777216 to 16777216)");
  refused(embedding_text(R"({"iota": {"start": 120, "step": 1}})", "s8"),
          "its last value (element 15) 135 is outside the integers s8 holds exactly (-128 to 127)");
  refused(embedding_text(R"({"iota": {"start": 0, "step": 9223372036854775807}})", "s64"),
          "its last value, start + step*(n-1), overflows 64 bits");
  refused(embedding_text(R"({"constant": "-inf"})"), "tensors.idx.contents.constant: an integer tensor cannot hold -inf");
  refused(embedding_text(R"({"constant": 2.5})"), "2.5 is not an integer of the tensor's type s32");
  refused(embedding_text(R"({"constant": -1})", "u32"), "the constant -1 is outside the integers u32 holds exactly");
  refused(embedding_text(R"({"constant": 70000})", "f16"), "70000 is outside the range of f16");
  refused(embedding_text(R"({"constant": "nan"})", "f32"), "expected a number, \"inf\" or \"-inf\"");
  // An output starts uninitialized: a host-initialized buffer the kernel updates is an inout.
  std::string out_contents = embedding_text("");
  out_contents.replace(out_contents.find(R"("role": "output")"), 16, R"("role": "output", "contents": "zeros")");
  refused(out_contents, "tensors.out.contents: an output starts uninitialized and has no contents");
  // A specification reference is lowered over symbolic inputs.
  refused(R"({"tensors": {"x": {"dtype": "f32", "shape": [256], "role": "input", "contents": "zeros"},
                          "y": {"dtype": "f32", "shape": [256], "role": "output"}},
              "reference": {"spec": "softmax_256"},
              "candidate": {"ptx": "../softmax/softmax_online.ptx", "params": ["x", "y"], "block": [128]}})",
          "given contents need the reference as a kernel");
  // Specs built in C++ are checked by resolve().
  check::pair_spec s = embedding("");
  s.contents["nope"] = {};
  CHECK_THROWS_WITH_AS((void)check::resolve(s), doctest::Contains("contents given for 'nope', which is not a tensor of the spec"),
                       support::diagnostic_error);
  s = embedding("");
  s.contents["out"] = {};
  CHECK_THROWS_WITH_AS((void)check::resolve(s), doctest::Contains("tensor 'out': an output starts uninitialized"),
                       support::diagnostic_error);
  s = embedding("");
  check::contents_spec bad;
  bad.kind = f::random_int;
  bad.min = -200;
  s.contents["idx"] = bad;
  s.tensors.at("idx").type = check::dtype::s8;
  CHECK_THROWS_WITH_AS((void)check::resolve(s), doctest::Contains("tensor 'idx': contents: min -200 is outside the integers s8"),
                       support::diagnostic_error);
}

TEST_CASE("contents from a .npy file: exactly the tensor's dtype and shape, each element's bits") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpueq_contents_test";
  std::filesystem::create_directories(dir);
  const std::string spec_file = (dir / "k.kernel.json").string();
  auto spec_text = [&](const std::string& file, const std::string& type, const std::string& shape) {
    return R"({"tensors": {"v": {"dtype": ")" + type + R"(", "shape": )" + shape + R"(, "role": "input", "contents": {"npy": ")" +
           file + R"("}}, "y": {"dtype": "f32", "shape": [4], "role": "output"}},
               "kernel": {"ptx": ")" + realworld() + R"(embedding.ptx", "entry": "embedding_naive", "params": ["v"], "block": [1]}})";
  };
  check::npy::write((dir / "ids.npy").string(), "<i4", {4}, {-1, 0, 7, 2147483647});
  check::pair_spec s = check::parse_spec(spec_text("ids.npy", "s32", "[4]"), spec_file);
  const check::contents_spec& c = s.contents.at("v");
  CHECK(c.kind == check::contents_spec::form::values);
  CHECK(c.file == "ids.npy");
  CHECK(*c.values == std::vector<std::uint64_t>{0xffffffffu, 0, 7, 0x7fffffffu});
  CHECK(check::describe(c, 4) == "values from ids.npy");
  auto refused = [&](const std::string& text, const std::string& why) {
    try {
      (void)check::parse_spec(text, spec_file);
      FAIL("read: " << text);
    } catch (const support::diagnostic_error& e) {
      CHECK_MESSAGE(std::string(e.what()).find(why) != std::string::npos, std::string(e.what()));
    }
  };
  // Errors name the spec file and the JSON path, then the .npy file as the spec names it.
  refused(spec_text("ids.npy", "u32", "[4]"),
          spec_file + ": tensors.v.contents.npy: ids.npy: dtype '<i4' does not match the spec's tensor 'v': u32 is '<u4'");
  refused(spec_text("ids.npy", "s32", "[2, 2]"), "ids.npy: shape (4,) does not match the spec's tensor 'v': (2, 2)");
  refused(spec_text("none.npy", "s32", "[4]"), "none.npy: cannot open");
  // bf16: numpy has no bfloat16, so the file holds float32 values that must be bf16 values.
  check::npy::write((dir / "halves.npy").string(), "<f4", {2}, {1.5, -0.25});
  s = check::parse_spec(spec_text("halves.npy", "bf16", "[2]"), spec_file);
  CHECK(*s.contents.at("v").values == std::vector<std::uint64_t>{0x3fc0, 0xbe80});
  check::npy::write((dir / "thirds.npy").string(), "<f4", {2}, {1.5, 1.0 / 3});
  refused(spec_text("thirds.npy", "bf16", "[2]"), "thirds.npy: element 1 (0.3333333432674408) is not a bf16 value");
  // e4m3 and e5m2 likewise: float32 values that are values of the type, kept as their fp8 codes
  // (e4m3: 1.5 = 0x3c, -448 = 0xfe, 0.001953125 = 2^-9 = 0x01; e5m2: 1.5 = 0x3e, -0.25 = 0xb4,
  // 57344 = 0x7b, as bits S.EEEE.MMM bias 7 and S.EEEEE.MM bias 15 give them).
  check::npy::write((dir / "fp8.npy").string(), "<f4", {3}, {1.5, -448, 0.001953125});
  s = check::parse_spec(spec_text("fp8.npy", "e4m3", "[3]"), spec_file);
  CHECK(*s.contents.at("v").values == std::vector<std::uint64_t>{0x3c, 0xfe, 0x01});
  CHECK(check::bytes(check::dtype::e4m3) == 1);
  check::npy::write((dir / "fp8b.npy").string(), "<f4", {3}, {1.5, -0.25, 57344});
  s = check::parse_spec(spec_text("fp8b.npy", "e5m2", "[3]"), spec_file);
  CHECK(*s.contents.at("v").values == std::vector<std::uint64_t>{0x3e, 0xb4, 0x7b});
  check::npy::write((dir / "big.npy").string(), "<f4", {2}, {1.0, 480});
  refused(spec_text("big.npy", "e4m3", "[2]"), "big.npy: element 1 (480) is not an e4m3 value");  // 480 = S.1111.111, the NaN
  refused(spec_text("thirds.npy", "e5m2", "[2]"), "thirds.npy: element 1 (0.3333333432674408) is not an e5m2 value");
  check::npy::write((dir / "nan.npy").string(), "<f4", {2}, {1.0, NAN});
  refused(spec_text("nan.npy", "f32", "[2]"), "tensors.v.contents: element 1 is NaN, which has no real value");
  std::filesystem::remove_all(dir);
}

TEST_CASE("an index tensor with contents makes the gather's addresses concrete") {
  term::store s;
  // Without contents the ids are symbolic integers: the address table + idx[r]*64 is not concrete.
  auto none = run_symbolic(s, embedding(""));
  REQUIRE(none.g.error);
  CHECK(none.g.error->kind == exec::error_kind::not_structured);
  // Every id 5: every row of out is row 5 of the table.
  auto five = run_symbolic(s, embedding(R"({"constant": 5})"));
  REQUIRE_MESSAGE(!five.g.error, five.g.error->message);
  for (std::uint32_t r = 0; r < 16; ++r)
    for (std::uint32_t c = 0; c < 64; c += 9) CHECK(five.out.at("out").at(r * 64 + c) == table(s, 5, c));
  // ids 31, 29, ..., 1 (iota from 31, step -2).
  auto down = run_symbolic(s, embedding(R"({"iota": {"start": 31, "step": -2}})"));
  REQUIRE(!down.g.error);
  for (std::uint32_t r = 0; r < 16; ++r)
    for (std::uint32_t c = 0; c < 64; c += 7) CHECK(down.out.at("out").at(r * 64 + c) == table(s, 31 - 2 * r, c));
  // ids random in [-1, 0] with seed 1234567: z_i mod 2 - 1 for the outputs above (odd, odd, odd):
  // ids 0, 0, 0, so rows 0 to 2 are table row 0; a -1 anywhere gives a zero row.
  auto coin = run_symbolic(s, embedding(R"({"random_int": {"min": -1, "max": 0, "seed": 1234567}})"));
  REQUIRE(!coin.g.error);
  for (std::uint32_t r = 0; r < 3; ++r) CHECK(coin.out.at("out").at(r * 64 + 3) == table(s, 0, 3));
  for (std::uint32_t r = 0; r < 16; ++r) {
    const std::int64_t id = check::random_int(-1, 0, 1234567, r);
    CHECK(coin.out.at("out").at(r * 64 + 1) == (id < 0 ? s.constant(0) : table(s, 0, 1)));
  }
  // The float32 domain reads the same ids: out[r][c] is the input value of table[31 - 2r][c].
  check::pair_spec spec = embedding(R"({"iota": {"start": 31, "step": -2}})");
  check::resolved_pair p = check::resolve(spec);
  check::prepared_kernel k = check::prepare(spec, p.reference, p.reference_entry, spec.reference, "kernel");
  auto source = [](const exec::input_ref& in) { return in.name == "table" ? static_cast<double>(in.element) : -1.0; };
  auto g = check::run_grid<exec::float32_domain>(k, [&] { return exec::float32_domain(source); });
  REQUIRE(!g.error);
  for (std::uint32_t r = 0; r < 16; ++r)
    CHECK(std::as_const(g.values.at("out"))[r * 64 + 10] == static_cast<double>((31 - 2 * r) * 64 + 10));
}

TEST_CASE("an inout tensor with contents starts with them, written or not") {
  // index_add_serial over n = 4 rows, dst = 3, 4, 5, 6 (iota from 3), y the constant 2.5: rows 3
  // to 6 of y become 2.5 + x[r - 3][c]; the others keep 2.5.
  check::pair_spec spec = check::parse_spec(
      R"({"tensors": {"x": {"dtype": "f32", "shape": [16, 64], "role": "input"},
                      "dst": {"dtype": "s32", "shape": [16], "role": "input", "contents": {"iota": {"start": 3}}},
                      "y": {"dtype": "f32", "shape": [16, 64], "role": "inout", "contents": {"constant": 2.5}}},
          "scalars": {"n": 4, "d": 64},
          "kernel": {"ptx": "scatter.ptx", "entry": "index_add_serial", "params": ["x", "dst", "y", "n", "d"], "block": [64]}})",
      realworld() + "contents.kernel.json");
  term::store s;
  auto r = run_symbolic(s, spec);
  REQUIRE(!r.g.error);
  const auto& y = r.out.at("y");
  const term::term_id two_and_a_half = s.constant(support::rational(5, 2));
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t c = 0; c < 64; c += 13) {
      REQUIRE(y.at(row * 64 + c));
      if (row >= 3 && row < 7)
        CHECK(canon::decide(s, *y[row * 64 + c], s.add(two_and_a_half, s.input("x", {row - 3, c}))).kind ==
              canon::verdict_kind::equal);
      else
        CHECK(*y[row * 64 + c] == two_and_a_half);
    }
}

TEST_CASE("the verdict holds for the given contents, and says so") {
  check::check_options o;
  o.float32_report = false;
  auto check_file = [&](const std::string& file) {
    check::pair_spec spec = check::load_spec(realworld() + file);
    return check::check_pair(spec, check::resolve(spec), o);
  };
  check::check_result r = check_file("embedding_naive_vs_vec4.pair.json");
  CHECK_MESSAGE(r.v == check::verdict::equivalent, r.summary);
  CHECK(r.given == std::vector<std::pair<std::string, std::string>>{{"idx", "random integers in [-1, 31], seed 1"}});
  r = check_file("scatter_rows_permutation.pair.json");
  CHECK_MESSAGE(r.v == check::verdict::equivalent, r.summary);
  CHECK(r.given == std::vector<std::pair<std::string, std::string>>{{"dst", "a permutation of 0..15, seed 7"}});
  r = check_file("attn_state_naive_vs_online.pair.json");
  CHECK_MESSAGE(r.v == check::verdict::equivalent, r.summary);
  CHECK(r.given == std::vector<std::pair<std::string, std::string>>{
                       {"O", "constant 0"}, {"l", "zeros"}, {"m", "constant -inf"}});
  // Over symbolic initial state the online kernel's outputs depend on it (max(m, ...),
  // l*exp(m - ...)) and the naive kernel's do not: the equivalence is the given state's.
  check::pair_spec symbolic = check::load_spec(realworld() + "attn_state_naive_vs_online.pair.json");
  symbolic.contents.clear();
  r = check::check_pair(symbolic, check::resolve(symbolic), o);
  CHECK_MESSAGE(r.v != check::verdict::equivalent, r.summary);
  CHECK(r.given.empty());
}
