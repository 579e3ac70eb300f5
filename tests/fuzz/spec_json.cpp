// Fuzz target for pair specs (check/spec_json.hpp) and their validation against the PTX
// (check/spec.hpp's resolve_kernel) and the launch built from them (check/run.hpp's make_launch).
// The bytes are a spec file's text. PTX paths are not read from disk: a path whose file name
// starts with "one" resolves to a module with one kernel, "none" to a module with no kernel, any
// other to a module with several kernels whose parameters cover every kind (64-bit addresses,
// f32/f64/s32/u8/pred scalars, a 24-byte struct). Any text either reads, resolves and gives a
// launch, or throws support::diagnostic_error naming the spec file with a reason; what is
// accepted keeps the limits the reader promises (blocks, grids, shapes, struct fields inside
// their parameter). Any other exception, a crash or undefined behaviour aborts.
#include <gpueq/check/run.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/check/spec_json.hpp>
#include <gpueq/ptx/parser.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace {

constexpr const char* spec_file = "fuzz/spec.pair.json";

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

constexpr std::string_view header = ".version 8.0\n.target sm_80\n.address_size 64\n";

const gpueq::ptx::module& module_named(std::string_view path) {
  static const gpueq::ptx::module several = gpueq::ptx::parse(std::string(header) + R"(
.visible .entry two(.param .u64 a, .param .u64 b) { ret; }
.visible .entry mixed(.param .u64 a, .param .f32 s, .param .s32 n, .param .u8 c, .param .pred p, .param .f64 d) { ret; }
.visible .entry with_struct(.param .u64 a, .param .align 8 .b8 params[24], .param .b64 w) { ret; }
.visible .entry vec(.param .v2 .f32 v, .param .u64 out) { ret; }
.func helper(.param .u64 a) { ret; }
)", "several.ptx");
  static const gpueq::ptx::module one = gpueq::ptx::parse(std::string(header) + R"(
.func helper(.param .u64 a) { ret; }
.visible .entry only(.param .u64 x, .param .u64 y, .param .f32 alpha) { ret; }
)", "one.ptx");
  static const gpueq::ptx::module none = gpueq::ptx::parse(std::string(header) + R"(
.func helper(.param .u64 a) { ret; }
)", "none.ptx");
  std::string_view name = path.substr(path.find_last_of('/') + 1);
  if (name.starts_with("one")) return one;
  if (name.starts_with("none")) return none;
  return several;
}

// check::resolve, with modules from module_named instead of files.
void resolve_in_memory(const gpueq::check::pair_spec& s) {
  using namespace gpueq::check;
  auto side = [&](const char* name, const kernel_spec& k) {
    const gpueq::ptx::module& m = module_named(k.path);
    std::size_t entry = resolve_kernel(s, name, k, m);
    const gpueq::ptx::function& f = m.functions.at(entry);
    if (!f.entry || f.params.size() != k.params.size()) fail("resolve_kernel accepted a wrong kernel", k.ptx);
    // Struct fields that resolve accepted lie inside their parameter.
    for (std::size_t i = 0; i < k.params.size(); ++i)
      if (auto st = s.structs.find(k.params[i]); st != s.structs.end()) {
        std::uint64_t size = detail::param_bytes(m, f.params[i]);
        for (const struct_field& field : st->second.fields) {
          std::uint64_t width = detail::shape_of_field(s, field).bytes;
          if (width == 0 || field.offset > size || width > size - field.offset)
            fail("a struct field outside its parameter was accepted", field.name + " at " + std::to_string(field.offset));
        }
      }
    gpueq::exec::launch l = make_launch(s, k);
    if (l.params.size() != f.params.size()) fail("make_launch: wrong parameter count", k.ptx);
    if (l.threads() < 1 || l.threads() > max_threads_per_cta) fail("make_launch: block outside 1..1024 threads", k.ptx);
  };
  if (s.reference_spec) {
    side("candidate", s.candidate);
    return;
  }
  side(s.single ? "kernel" : "reference", s.reference);
  if (!s.single) side("candidate", s.candidate);
}

// What the reader promises of a spec it accepted.
void check_limits(const gpueq::check::pair_spec& s) {
  using namespace gpueq::check;
  if (s.tensors.empty()) fail("a spec without tensors was accepted", s.file);
  for (auto& [name, t] : s.tensors) {
    if (std::string why = shape_problem(t.shape, t.type); !why.empty()) fail("a bad shape was accepted", name + ": " + why);
    if (t.elements() * bytes(t.type) > max_tensor_bytes) fail("a tensor over 2^40 bytes was accepted", name);
  }
  for (const kernel_spec* k : {&s.reference, &s.candidate}) {
    if (k == &s.reference && s.reference_spec) continue;
    std::vector<std::uint64_t> block(k->block.begin(), k->block.end()), grid(k->grid.begin(), k->grid.end());
    if (std::string why = block_problem(block); !why.empty()) fail("a bad block was accepted", why);
    if (std::string why = grid_problem(grid); !why.empty()) fail("a bad grid was accepted", why);
    if (k->dynamic_shared_bytes > max_dynamic_shared_bytes) fail("too much dynamic shared memory was accepted", k->ptx);
    for (auto& c : k->ctas)
      for (std::size_t d = 0; d < 3; ++d)
        if (c[d] >= max_grid[d]) fail("a CTA outside every grid was accepted", k->ptx);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gpueq::check::pair_spec s;
  try {
    s = gpueq::check::parse_spec(text, spec_file);
  } catch (const gpueq::support::diagnostic_error& e) {
    if (e.reason().empty() || e.file() != spec_file)
      fail("a spec error without the file or a reason", e.what());
    return 0;
  } catch (const std::exception& e) {
    fail("parse_spec threw something other than a diagnostic_error", e.what());
  }
  if (s.file != spec_file) fail("the spec lost its file name", s.file);
  check_limits(s);
  try {
    resolve_in_memory(s);
  } catch (const gpueq::support::diagnostic_error& e) {
    if (e.reason().empty() || e.file() != spec_file)
      fail("a resolve error without the file or a reason", e.what());
  } catch (const std::exception& e) {
    fail("resolving threw something other than a diagnostic_error", e.what());
  }
  return 0;
}
