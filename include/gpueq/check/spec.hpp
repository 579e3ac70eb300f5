// A pair spec: two kernels (reference and candidate), how each is launched, which parameter is
// which tensor or scalar, and the expected verdict. This header is plain data plus the checks
// that need only the PTX front-end; reading the JSON form is check/spec_json.hpp (it needs
// nlohmann-json, which library users who build specs in C++ do not). The format is documented in
// examples/kernels/README.md and examples/kernels/schema.json.
#pragma once

#include <gpueq/check/contents.hpp>
#include <gpueq/check/dtype.hpp>
#include <gpueq/check/verdict.hpp>
#include <gpueq/exec/tma.hpp>
#include <gpueq/ptx.hpp>
#include <gpueq/support/diagnostics.hpp>
#include <gpueq/support/entry.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpueq::check {

// input: read only, symbolic contents. output: starts uninitialized, compared after the run.
// inout: starts with symbolic contents and is compared. scratch: memory the kernel uses for
// itself (Triton's global scratch, where it builds tensor maps): starts uninitialized, may be
// written and read, and is not compared (nor an input of the float32 report). An input, inout or
// scratch tensor with given contents (pair_spec::contents, check/contents.hpp) starts with them
// instead; an output has none (a buffer the host initializes and the kernel updates is an inout).
enum class role { input, output, inout, scratch };

struct tensor_spec {
  dtype type = dtype::f32;
  std::vector<std::uint64_t> shape;
  role use = role::input;
  std::uint64_t elements() const {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

// A scalar parameter: a concrete value (typed by the PTX parameter unless `type` is given), or a
// symbolic real shared by both kernels.
struct scalar_spec {
  std::optional<dtype> type;
  double value = 0;
  bool symbolic = false;
};

// A by-value struct parameter (`.param .align 8 .b8 params[24]`, CUTLASS-style Params): named
// fields at byte offsets, each a tensor (its 8-byte base address) or a scalar (as many bytes as
// its dtype: the field's `type`, else the scalar's own). A `ld.param` of the struct reads the
// field at its offset; bytes that are no field (padding, fields the spec leaves out) are an error
// when read.
struct struct_field {
  std::uint64_t offset = 0;
  std::string name;          // a tensor or scalar of the spec
  std::optional<dtype> type;  // a scalar field's type (needed when the scalar has none)
};
struct struct_spec {
  std::vector<struct_field> fields;
};

// A CUtensorMap parameter (`const __grid_constant__ CUtensorMap`, PTX `.param .align 64 .b8 p[128]`):
// the map the host encodes with cuTensorMapEncodeTiled over one of the spec's tensors, every
// array in the driver's order, dimension 0 innermost (a row-major [rows][cols] tensor has
// global_dims [cols, rows]). Left out: the element type is the tensor's, global_dims its shape
// reversed, global_strides dense, element_strides all 1.
struct tensor_map_spec {
  std::string tensor;
  std::optional<dtype> type;
  std::vector<std::uint64_t> global_dims, global_strides;  // strides in bytes, of dimensions 1..rank-1
  std::vector<std::uint64_t> box, element_strides;
  exec::tma::interleave interleave = exec::tma::interleave::none;
  exec::tma::swizzle swizzle = exec::tma::swizzle::none;
  exec::tma::l2_promotion l2 = exec::tma::l2_promotion::none;
  exec::tma::oob_fill fill = exec::tma::oob_fill::zero;
};

using dim3 = std::array<std::uint32_t, 3>;

struct kernel_spec {
  std::string ptx;    // as written (relative to the spec file)
  std::string path;   // resolved
  std::string entry;  // empty: the module's only entry
  std::vector<std::string> params;
  dim3 grid{1, 1, 1}, block{1, 1, 1};
  std::vector<dim3> ctas;  // empty: all CTAs of the grid
  std::uint64_t dynamic_shared_bytes = 0;
  // A thread-block cluster shape ("cluster": [x, y, z], __cluster_dims__): {0, 0, 0} for none.
  // With one, each run executes a whole cluster (exec/semantics/cluster.hpp), "ctas" names the
  // clusters to run by any of their CTAs, and the grid must be a whole number of clusters.
  dim3 cluster{0, 0, 0};
};

// ---- Limits, checked where a launch, a shape or a scalar is read -------------------------------
// The readers (check/spec_json.hpp, gpueq race's quick form) read extents as 64-bit integers and
// call these before narrowing anything, so a block of 2³²+128 threads is an error instead of a
// block of 128, and a shape of 2³²×2³² an error instead of 0 elements. Each returns the reason
// the value is rejected, or "" when it is fine.

// CUDA's launch limits, the same for every compute capability gpueq knows (sm_70 to sm_120).
inline constexpr std::uint64_t max_threads_per_cta = 1024;
inline constexpr std::array<std::uint64_t, 3> max_block{1024, 1024, 64};
inline constexpr std::array<std::uint64_t, 3> max_grid{2147483647, 65535, 65535};
// The largest dynamic shared memory a CTA can opt into (227 KiB on sm_90 and sm_100).
inline constexpr std::uint64_t max_dynamic_shared_bytes = 227 * 1024;
// A tensor holds at most 2⁴⁰ bytes: the engine places tensor i at (i + 1)·2⁴⁰ of the global
// address space (exec::address::global_stride), so a larger one would overlap the next.
inline constexpr std::uint64_t max_tensor_bytes = std::uint64_t{1} << 40;

namespace detail {
inline std::string extents_text(std::span<const std::uint64_t> d, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? sep : "") + std::to_string(d[i]);
  return s;
}
}  // namespace detail

// A block (1 to 3 extents): each extent 1..1024 (z 1..64), at most 1024 threads in all.
inline std::string block_problem(std::span<const std::uint64_t> d) {
  if (d.empty() || d.size() > 3) return "expected 1 to 3 extents";
  static constexpr const char* axis[] = {"x", "y", "z"};
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] < 1 || d[i] > max_block[i])
      return "block " + std::string(axis[i]) + " = " + std::to_string(d[i]) + " is outside 1.." + std::to_string(max_block[i]);
  std::uint64_t threads = 1;
  for (auto e : d) threads *= e;  // ≤ 1024·1024·64: no overflow
  if (threads > max_threads_per_cta)
    return "block " + detail::extents_text(d, "x") + " has " + std::to_string(threads) + " threads; a CTA has 1 to " +
           std::to_string(max_threads_per_cta);
  return "";
}

// A grid (1 to 3 extents): x 1..2³¹−1, y and z 1..65535.
inline std::string grid_problem(std::span<const std::uint64_t> d) {
  if (d.empty() || d.size() > 3) return "expected 1 to 3 extents";
  static constexpr const char* axis[] = {"x", "y", "z"};
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] < 1 || d[i] > max_grid[i])
      return "grid " + std::string(axis[i]) + " = " + std::to_string(d[i]) + " is outside 1.." + std::to_string(max_grid[i]);
  return "";
}

// A tensor's shape: positive extents whose product, in bytes of `type`, fits max_tensor_bytes
// (computed without overflow).
inline std::string shape_problem(std::span<const std::uint64_t> shape, dtype type) {
  if (shape.empty()) return "expected at least one extent";
  std::uint64_t limit = max_tensor_bytes / bytes(type), n = 1;
  for (auto e : shape) {
    if (e < 1) return "extents are positive integers";
    if (e > limit / n)
      return "a " + std::string(name(type)) + " tensor of shape [" + detail::extents_text(shape, ", ") +
             "] exceeds the limit of 2^40 bytes per tensor";
    n *= e;
  }
  return "";
}

// A concrete scalar for a kernel parameter of PTX type `type` (".u8", ".s32", ".b32", ".f32",
// ".pred", ...): an integer type takes an integer in its range (a .bN either reading, signed or
// unsigned), a float type a finite value within its format's range.
inline std::string scalar_problem(double v, std::string_view type) {
  auto num = [](double x) {  // the shortest text that reads back as x
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
  };
  if (type == ".pred") return v == 0 || v == 1 ? "" : num(v) + " is not a predicate (0 or 1)";
  if (type.size() < 3) return "";
  char k = type[1];
  unsigned bits = 0;
  for (char c : type.substr(2)) {
    if (c < '0' || c > '9') return "";  // not a scalar type gpueq checks
    bits = bits * 10 + static_cast<unsigned>(c - '0');
  }
  if (k == 'f') {
    double max = bits == 16 ? 65504.0 : bits == 32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
    if (!(std::fabs(v) <= max)) return num(v) + " is outside the range of " + std::string(type);
    return "";
  }
  if ((k != 'u' && k != 's' && k != 'b') || bits < 8 || bits > 64) return "";
  if (v != std::floor(v)) return num(v) + " is not an integer, but the parameter is " + std::string(type);
  // Bounds as doubles: 2^bits and 2^(bits-1) are exact, so the comparisons are too.
  double span = std::ldexp(1.0, static_cast<int>(bits)), half = std::ldexp(1.0, static_cast<int>(bits) - 1);
  double lo = k == 'u' ? 0 : -half, hi = k == 's' ? half : span;  // [lo, hi)
  if (v >= lo && v < hi) return "";
  std::string range = k == 'u' ? "0 to 2^" + std::to_string(bits) + "-1"
                      : k == 's' ? "-2^" + std::to_string(bits - 1) + " to 2^" + std::to_string(bits - 1) + "-1"
                                 : "-2^" + std::to_string(bits - 1) + " to 2^" + std::to_string(bits) + "-1";
  if (bits <= 32) {
    auto n = [](double x) { return std::to_string(static_cast<std::int64_t>(x)); };
    range = n(lo) + " to " + n(hi - 1);
  }
  return num(v) + " is outside the range of " + std::string(type) + " (" + range + ")";
}

struct pair_spec {
  std::string file;  // the spec's own path
  std::string description, note;
  std::map<std::string, tensor_spec> tensors;
  // Given contents by tensor name (check/contents.hpp; each an input, inout or scratch tensor of
  // `tensors`): tensors not listed hold symbolic inputs (input, inout) or start uninitialized
  // (output, scratch). Both kernels see the same contents, and the verdict holds for them only.
  std::map<std::string, contents_spec> contents;
  std::map<std::string, scalar_spec> scalars;
  std::map<std::string, struct_spec> structs;  // by-value struct parameters
  std::map<std::string, tensor_map_spec> tensor_maps;  // CUtensorMap parameters
  kernel_spec reference, candidate;
  std::optional<verdict> expect;  // the verdict the pair should get (check/verdict.hpp)
  std::optional<std::string> culprit;  // "reference", "candidate" or "both"
  bool single = false;  // a single-kernel spec ("kernel"): reference and candidate are that kernel
  // The reference is a registered specification of this name ("reference": {"spec": NAME}), not a
  // kernel: check_pair compares the candidate with it at the compare stage (check/driver.hpp) and
  // never runs a reference kernel. `reference` (and resolve()'s reference module) are then empty:
  // nothing pretends the specification is a kernel (has_kernel() tells a side that is one).
  std::optional<std::string> reference_spec;
};

// Checks a spec against its PTX: the file parses, the entry exists (or the module has exactly
// one), every .param has a name, 64-bit parameters name tensors and the others scalars, every
// CTA listed is inside the grid. Returns the parsed modules (reference, candidate); throws
// support::diagnostic_error naming the spec file.
struct resolved_pair {
  ptx::module reference, candidate;
  std::size_t reference_entry = 0, candidate_entry = 0;  // indices into the modules' functions
};

// One kernel checked alone (its races, barriers and bounds; its outputs against themselves): a pair
// whose reference and candidate are the same module, entry and launch. `file` names the kernel's
// origin in reports, e.g. "(kernel language)".
struct single_kernel {
  pair_spec spec;
  resolved_pair pair;
};
inline single_kernel single_kernel_pair(ptx::module m, const std::string& entry, std::vector<std::string> params,
                                        std::map<std::string, tensor_spec> tensors, dim3 block,
                                        std::string file = "(kernel language)") {
  single_kernel c;
  c.spec.file = std::move(file);
  c.spec.single = true;
  c.spec.tensors = std::move(tensors);
  c.spec.reference.ptx = c.spec.reference.path = entry + ".ptx";
  c.spec.reference.entry = entry;
  c.spec.reference.params = std::move(params);
  c.spec.reference.block = block;
  c.spec.candidate = c.spec.reference;
  c.pair.reference = std::move(m);
  c.pair.candidate = c.pair.reference;
  return c;
}

namespace detail {
[[noreturn]] inline void spec_error(const pair_spec& s, const std::string& reason) {
  throw support::diagnostic_error(support::diagnostic{s.file, {}, reason});
}

// The bytes of a parameter as declared: `.b8 p[24]` is 24, `.u64 p` 8, `.v2 .f32 p` 8.
inline std::uint64_t param_bytes(const ptx::module& m, const ptx::variable& v) {
  std::string_view t = m.str(v.type);
  std::uint64_t bits = 0;
  for (char c : t.size() > 2 ? t.substr(2) : std::string_view{}) {
    if (c < '0' || c > '9') return 0;
    bits = bits * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (t == ".pred") bits = 8;
  return bits / 8 * std::max<std::uint64_t>(1, v.vec) * v.elements();
}

// The type and width of a struct's field: a tensor is an 8-byte address (nullopt type); a scalar
// has the field's dtype, else the scalar's own.
struct field_shape {
  std::optional<dtype> type;
  std::uint32_t bytes = 8;
};
inline field_shape shape_of_field(const pair_spec& s, const struct_field& f) {
  if (s.tensors.contains(f.name)) return {};
  std::optional<dtype> t = f.type;
  if (!t) t = s.scalars.at(f.name).type;
  return {t, t ? check::bytes(*t) : 0u};
}

// The element type of a TMA map over a tensor of dtype d, if TMA has one.
inline std::optional<exec::tma::element_type> tma_type(dtype d) {
  using e = exec::tma::element_type;
  switch (d) {
    case dtype::u8: return e::u8;
    case dtype::e4m3: return e::u8;  // fp8 tensors are mapped as bytes (cuTensorMapEncodeTiled has no fp8 type)
    case dtype::e5m2: return e::u8;
    case dtype::u16: return e::u16;
    case dtype::u32: return e::u32;
    case dtype::s32: return e::s32;
    case dtype::u64: return e::u64;
    case dtype::s64: return e::s64;
    case dtype::f16: return e::f16;
    case dtype::bf16: return e::bf16;
    case dtype::f32: return e::f32;
    case dtype::f64: return e::f64;
    default: return std::nullopt;
  }
}

// The tensor map a spec describes (global address 0: the engine sets the tensor's); a spec
// error when the driver would refuse it (exec::tma::validate) or gpueq does not model it.
inline exec::tma::tensor_map map_of(const pair_spec& s, const std::string& name, const tensor_map_spec& ms) {
  namespace tma = exec::tma;
  std::string at = "tensor map '" + name + "'";
  auto it = s.tensors.find(ms.tensor);
  if (it == s.tensors.end()) spec_error(s, at + ": '" + ms.tensor + "' is not a tensor of the spec");
  const tensor_spec& t = it->second;
  dtype d = ms.type.value_or(t.type);
  auto et = tma_type(d);
  if (!et) spec_error(s, at + ": TMA has no element type for " + std::string(check::name(d)));
  if (check::bytes(d) != check::bytes(t.type))
    spec_error(s, at + ": its element type " + std::string(check::name(d)) + " has another size than the tensor's");
  tma::tensor_map m;
  m.type = *et;
  std::vector<std::uint64_t> dims = ms.global_dims;
  if (dims.empty()) dims.assign(t.shape.rbegin(), t.shape.rend());
  if (dims.empty() || dims.size() > tma::max_rank) spec_error(s, at + ": rank " + std::to_string(dims.size()) + " is outside 1..5");
  m.rank = static_cast<std::uint32_t>(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) m.global_dim[i] = dims[i];
  std::uint64_t dense = check::bytes(d);
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
    dense *= dims[i];
    if (ms.global_strides.empty()) m.global_stride[i] = dense;
  }
  if (!ms.global_strides.empty()) {
    if (ms.global_strides.size() + 1 != dims.size())
      spec_error(s, at + ": global_strides needs rank - 1 = " + std::to_string(dims.size() - 1) + " strides");
    for (std::size_t i = 0; i < ms.global_strides.size(); ++i) m.global_stride[i] = ms.global_strides[i];
  }
  if (ms.box.size() != dims.size()) spec_error(s, at + ": box needs " + std::to_string(dims.size()) + " extents");
  for (std::size_t i = 0; i < ms.box.size(); ++i) m.box_dim[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(ms.box[i], 1u << 20));
  if (!ms.element_strides.empty()) {
    if (ms.element_strides.size() != dims.size())
      spec_error(s, at + ": element_strides needs " + std::to_string(dims.size()) + " strides");
    for (std::size_t i = 0; i < dims.size(); ++i)
      m.element_stride[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(ms.element_strides[i], 1u << 20));
  }
  m.interleave_layout = ms.interleave;
  m.swizzle_mode = ms.swizzle;
  m.l2 = ms.l2;
  m.fill = ms.fill;
  try {
    tma::validate(m);
  } catch (const tma::map_error& e) {
    spec_error(s, at + ": " + e.what());
  }
  // The map must stay inside the tensor: its last element's byte.
  std::uint64_t last = check::bytes(d);
  for (std::uint32_t i = 0; i < m.rank; ++i) last += (m.global_dim[i] - 1) * (i == 0 ? check::bytes(d) : m.global_stride[i - 1]);
  if (last > t.elements() * check::bytes(t.type))
    spec_error(s, at + ": its global dimensions and strides reach byte " + std::to_string(last) + " of tensor '" + ms.tensor +
                      "', which has " + std::to_string(t.elements() * check::bytes(t.type)));
  return m;
}

// A struct parameter against its PTX declaration: every field a tensor or scalar of the spec,
// inside the parameter, aligned to its width, and no two overlapping.
inline void check_struct(const pair_spec& s, const char* side, const kernel_spec& k, std::size_t i, const std::string& p,
                         const struct_spec& st, const ptx::variable& param, const ptx::module& m) {
  std::string at = std::string(side) + ": parameter " + std::to_string(i) + " ('" + p + "', " + std::string(m.str(param.type)) +
                   (param.dims.empty() ? "" : "[" + std::to_string(param.elements()) + "]") + " at " + k.ptx + ":" +
                   std::to_string(param.line) + ")";
  std::uint64_t size = param_bytes(m, param);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // [begin, end) of each field, in order
  std::vector<std::string> names;
  for (const struct_field& f : st.fields) {
    std::string what = "field '" + f.name + "' at byte " + std::to_string(f.offset);
    if (!s.tensors.contains(f.name) && !s.scalars.contains(f.name))
      spec_error(s, at + ": " + what + " is neither a tensor nor a scalar of the spec");
    field_shape sh = shape_of_field(s, f);
    if (!sh.bytes) spec_error(s, at + ": " + what + " is a scalar without a dtype: give the field a \"dtype\"");
    if (f.offset % sh.bytes != 0)
      spec_error(s, at + ": " + what + " (" + std::to_string(sh.bytes) + " bytes) is misaligned: its offset is not a multiple of " +
                        std::to_string(sh.bytes));
    if (f.offset > size || sh.bytes > size - f.offset)  // (offset + bytes could wrap around 2^64)
      spec_error(s, at + ": " + what + " (" + std::to_string(sh.bytes) + " bytes) runs past the end of the " +
                        std::to_string(size) + "-byte parameter");
    for (std::size_t j = 0; j < spans.size(); ++j)
      if (f.offset < spans[j].second && spans[j].first < f.offset + sh.bytes)
        spec_error(s, at + ": " + what + " overlaps field '" + names[j] + "' at byte " + std::to_string(spans[j].first));
    if (auto sc = s.scalars.find(f.name); sc != s.scalars.end() && !sc->second.symbolic)
      if (std::string why = scalar_problem(sc->second.value, "." + std::string(check::name(*sh.type))); !why.empty())
        spec_error(s, at + ": " + what + ": " + why);
    spans.emplace_back(f.offset, f.offset + sh.bytes);
    names.push_back(f.name);
  }
}

}  // namespace detail

// The index of kernel spec `k`'s entry in module `m` (its "entry", or the module's only kernel),
// after checking its parameters against the spec; a diagnostic naming the spec file otherwise.
GPUEQ_ENTRY std::size_t resolve_kernel(const pair_spec& s, const char* side, const kernel_spec& k, const ptx::module& m);

// Whether a side of `s` is a kernel: the candidate always, the reference unless it is a
// specification.
inline bool has_kernel(const pair_spec& s, bool candidate) { return candidate || !s.reference_spec; }

// A spec built in code meets the limits a JSON spec is held to when it is read (block, grid and
// shape, checked by spec_json.hpp before anything is narrowed): resolve checks them again, so a
// block of 0 threads or a shape past 2^40 bytes is a spec error, not a run of something else.
namespace detail {
inline void check_limits(const pair_spec& s) {
  auto wide = [](const dim3& d) { return std::array<std::uint64_t, 3>{d[0], d[1], d[2]}; };
  for (auto [side, k] : {std::pair{"reference", &s.reference}, std::pair{"candidate", &s.candidate}}) {
    if (s.reference_spec && k == &s.reference) continue;
    if (s.single && k == &s.candidate) continue;
    const char* name = s.single ? "kernel" : side;
    auto block = wide(k->block), grid = wide(k->grid);
    if (std::string why = block_problem(block); !why.empty()) spec_error(s, std::string(name) + " block: " + why);
    if (std::string why = grid_problem(grid); !why.empty()) spec_error(s, std::string(name) + " grid: " + why);
  }
  for (auto& [name, t] : s.tensors)
    if (std::string why = shape_problem(t.shape, t.type); !why.empty()) spec_error(s, "tensor '" + name + "': " + why);
}
}  // namespace detail

// Given contents against the spec's tensors (contents_problem): each names an input, inout or
// scratch tensor and fits its type and size; a specification reference has none (it is lowered
// over symbolic inputs). The JSON reader checks the same with the JSON path; this is for specs
// built in C++.
inline void check_contents(const pair_spec& s) {
  for (const auto& [name, c] : s.contents) {
    auto it = s.tensors.find(name);
    if (it == s.tensors.end()) detail::spec_error(s, "contents given for '" + name + "', which is not a tensor of the spec");
    const tensor_spec& t = it->second;
    if (t.use == role::output)
      detail::spec_error(s, "tensor '" + name + "': an output starts uninitialized and has no contents (a buffer the host "
                            "initializes and the kernels update is an \"inout\")");
    if (std::string why = contents_problem(c, t.type, t.elements()); !why.empty())
      detail::spec_error(s, "tensor '" + name + "': contents: " + why);
    if (s.reference_spec)
      detail::spec_error(s, "tensor '" + name + "' has given contents, but the reference is the specification '" +
                            *s.reference_spec + "', which is over symbolic inputs: give the reference as a kernel");
  }
}

// Resolves a pair spec: checks its limits and given contents, parses its PTX files, finds and
// checks each kernel (resolve_kernel), and that every tensor is a parameter of a kernel; a
// diagnostic naming the spec file otherwise.
GPUEQ_ENTRY resolved_pair resolve(const pair_spec& s);

}  // namespace gpueq::check

// The bodies of resolve and resolve_kernel: compiled here (header-only) or in gpueq::compiled
// (support/entry.hpp).
#if GPUEQ_ENTRY_BODIES
#include <gpueq/check/spec_entries.hpp>
#endif
