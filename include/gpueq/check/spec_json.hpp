// Reading a pair spec from its JSON file (examples/kernels/schema.json). Every error names the
// spec file and, for syntax errors, the line and column; for a wrong value, its JSON path
// ("reference.block[1]"). Unknown keys are errors, so a typo never goes unnoticed. Blocks, grids
// and shapes are checked against their limits as they are read (check/spec.hpp), before anything
// is narrowed or sized from them.
// Needs nlohmann-json (Debian nlohmann-json3-dev); the rest of gpueq does not.
#pragma once

#include <gpueq/check/spec.hpp>
#include <gpueq/support/files.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <set>
#include <vector>

namespace gpueq::check {

namespace detail {

class spec_reader {
 public:
  explicit spec_reader(pair_spec& s) : s_(s) {}

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
    throw support::diagnostic_error(support::diagnostic{s_.file, {}, (path.empty() ? "" : path + ": ") + reason});
  }
  void only_keys(const nlohmann::json& j, const std::string& path, std::initializer_list<const char*> keys) const {
    if (!j.is_object()) fail(path, "expected an object");
    std::set<std::string> allowed(keys.begin(), keys.end());
    for (auto& [k, v] : j.items())
      if (!allowed.contains(k)) fail(path.empty() ? k : path + "." + k, "unknown key");
  }
  std::string text(const nlohmann::json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "expected a string");
    return j.get<std::string>();
  }
  dtype type(const nlohmann::json& j, const std::string& path) const {
    auto d = j.is_string() ? dtype_of(j.get<std::string>()) : std::nullopt;
    if (!d) fail(path, "expected a dtype (f16 bf16 f32 f64 s8 u8 s16 u16 s32 u32 s64 u64 e4m3 e5m2)");
    return *d;
  }
  // An integer ≥ min, read as 64 bits (nlohmann keeps non-negative integers unsigned, so values
  // past 2⁶³ are not misread as negative ones).
  std::uint64_t positive(const nlohmann::json& j, const std::string& path, std::uint64_t min = 1) const {
    bool ok = j.is_number_unsigned() ? j.get<std::uint64_t>() >= min
                                     : j.is_number_integer() && j.get<std::int64_t>() >= static_cast<std::int64_t>(min);
    if (!ok) fail(path, "expected an integer ≥ " + std::to_string(min));
    return j.get<std::uint64_t>();
  }
  // A block or grid: extents read in full and checked against CUDA's limits (check/spec.hpp)
  // before they are narrowed to 32 bits.
  dim3 dims(const nlohmann::json& j, const std::string& path, bool block) const {
    if (!j.is_array() || j.empty() || j.size() > 3) fail(path, "expected [x], [x, y] or [x, y, z]");
    std::vector<std::uint64_t> e;
    for (std::size_t i = 0; i < j.size(); ++i) e.push_back(positive(j[i], path + "[" + std::to_string(i) + "]"));
    if (std::string why = block ? block_problem(e) : grid_problem(e); !why.empty()) fail(path, why);
    dim3 d{1, 1, 1};
    for (std::size_t i = 0; i < e.size(); ++i) d[i] = static_cast<std::uint32_t>(e[i]);
    return d;
  }
  dim3 index3(const nlohmann::json& j, const std::string& path) const {
    if (!j.is_array() || j.empty() || j.size() > 3) fail(path, "expected [x], [x, y] or [x, y, z]");
    dim3 d{0, 0, 0};
    for (std::size_t i = 0; i < j.size(); ++i) {
      std::string at = path + "[" + std::to_string(i) + "]";
      std::uint64_t v = positive(j[i], at, 0);
      if (v >= max_grid[i]) fail(at, std::to_string(v) + " is outside every grid (at most " + std::to_string(max_grid[i]) + " CTAs)");
      d[i] = static_cast<std::uint32_t>(v);
    }
    return d;
  }

  // A 64-bit signed integer.
  std::int64_t integer(const nlohmann::json& j, const std::string& path) const {
    bool ok = j.is_number_unsigned() ? j.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX) : j.is_number_integer();
    if (!ok) fail(path, "expected an integer from -2^63 to 2^63-1");
    return j.get<std::int64_t>();
  }

  // A tensor's "contents" (check/contents.hpp): "zeros", or an object with one key: constant,
  // iota, random_int, permutation or npy (a file relative to the spec).
  contents_spec contents(const nlohmann::json& j, const std::string& path, const std::string& name, const tensor_spec& t,
                         const std::filesystem::path& dir) const {
    using f = contents_spec::form;
    const char* forms = "expected \"zeros\" or an object with one of constant, iota, random_int, permutation, npy";
    contents_spec c;
    if (j.is_string()) {
      if (j.get<std::string>() != "zeros") fail(path, forms);
    } else {
      if (!j.is_object() || j.size() != 1) fail(path, forms);
      only_keys(j, path, {"constant", "iota", "random_int", "permutation", "npy"});
      const std::string key = j.begin().key();
      const nlohmann::json& v = j.begin().value();
      const std::string at = path + "." + key;
      if (key == "constant") {
        c.kind = f::constant;
        if (v.is_number()) {
          c.constant = v.get<double>();
        } else if (v.is_string() && (v.get<std::string>() == "inf" || v.get<std::string>() == "+inf" || v.get<std::string>() == "-inf")) {
          if (!is_float(t.type)) fail(at, "an integer tensor cannot hold " + v.get<std::string>());
          c.constant = v.get<std::string>() == "-inf" ? -INFINITY : INFINITY;
        } else {
          fail(at, "expected a number, \"inf\" or \"-inf\"");
        }
      } else if (key == "iota") {
        c.kind = f::iota;
        only_keys(v, at, {"start", "step"});
        if (v.contains("start")) c.start = integer(v["start"], at + ".start");
        if (v.contains("step")) c.step = integer(v["step"], at + ".step");
      } else if (key == "random_int") {
        c.kind = f::random_int;
        only_keys(v, at, {"min", "max", "seed"});
        if (!v.contains("min") || !v.contains("max") || !v.contains("seed")) fail(at, "needs \"min\", \"max\" and \"seed\"");
        c.min = integer(v["min"], at + ".min");
        c.max = integer(v["max"], at + ".max");
        c.seed = positive(v["seed"], at + ".seed", 0);
      } else if (key == "permutation") {
        c.kind = f::permutation;
        only_keys(v, at, {"seed"});
        if (!v.contains("seed")) fail(at, "needs \"seed\"");
        c.seed = positive(v["seed"], at + ".seed", 0);
      } else {  // npy: its errors name the file as the spec does, after the JSON path
        std::string file = text(v, at);
        try {
          c = contents_from_npy((dir / file).lexically_normal().string(), file, t.type, t.shape, "tensor '" + name + "'");
        } catch (const support::diagnostic_error& e) {
          fail(at, file + ": " + e.reason());
        }
      }
    }
    if (t.use == role::output)
      fail(path, "an output starts uninitialized and has no contents (a buffer the host initializes and the kernels update is "
                 "an \"inout\")");
    if (std::string why = contents_problem(c, t.type, t.elements()); !why.empty()) fail(path, why);
    return c;
  }

  kernel_spec kernel(const nlohmann::json& j, const std::string& path, const std::filesystem::path& dir) const {
    only_keys(j, path, {"ptx", "entry", "params", "grid", "block", "ctas", "dynamic_shared_bytes", "cluster"});
    kernel_spec k;
    if (!j.contains("ptx")) fail(path, "missing \"ptx\"");
    k.ptx = text(j["ptx"], path + ".ptx");
    k.path = (dir / k.ptx).lexically_normal().string();
    if (j.contains("entry")) k.entry = text(j["entry"], path + ".entry");
    if (!j.contains("params") || !j["params"].is_array()) fail(path, "missing \"params\" (one name per .param)");
    for (std::size_t i = 0; i < j["params"].size(); ++i)
      k.params.push_back(text(j["params"][i], path + ".params[" + std::to_string(i) + "]"));
    if (!j.contains("block")) fail(path, "missing \"block\"");
    k.block = dims(j["block"], path + ".block", true);
    if (j.contains("grid")) k.grid = dims(j["grid"], path + ".grid", false);
    if (j.contains("ctas")) {
      const auto& c = j["ctas"];
      if (c.is_string() && c.get<std::string>() == "all") {
      } else if (c.is_array() && !c.empty()) {
        for (std::size_t i = 0; i < c.size(); ++i) k.ctas.push_back(index3(c[i], path + ".ctas[" + std::to_string(i) + "]"));
      } else {
        fail(path + ".ctas", "expected \"all\" or a list of block indices");
      }
    }
    if (j.contains("cluster")) {  // 1 to 16 CTAs; check/spec.hpp checks it against the grid
      const auto& c = j["cluster"];
      if (!c.is_array() || c.empty() || c.size() > 3) fail(path + ".cluster", "expected [x], [x, y] or [x, y, z]");
      k.cluster = {1, 1, 1};
      for (std::size_t i = 0; i < c.size(); ++i) {
        std::string at = path + ".cluster[" + std::to_string(i) + "]";
        std::uint64_t v = positive(c[i], at);
        if (v > 16) fail(at, "a cluster has at most 16 CTAs");
        k.cluster[i] = static_cast<std::uint32_t>(v);
      }
    }
    if (j.contains("dynamic_shared_bytes")) {
      k.dynamic_shared_bytes = positive(j["dynamic_shared_bytes"], path + ".dynamic_shared_bytes", 0);
      if (k.dynamic_shared_bytes > max_dynamic_shared_bytes)
        fail(path + ".dynamic_shared_bytes", "more than " + std::to_string(max_dynamic_shared_bytes) + " bytes (227 KiB)");
    }
    return k;
  }

  void read(const nlohmann::json& j, const std::filesystem::path& dir) {
    only_keys(j, "", {"$schema", "description", "tensors", "scalars", "structs", "tensor_maps", "reference", "candidate", "kernel", "expect",
                      "culprit", "note"});
    if (j.contains("description")) s_.description = text(j["description"], "description");
    if (j.contains("note")) s_.note = text(j["note"], "note");
    if (!j.contains("tensors") || !j["tensors"].is_object() || j["tensors"].empty())
      fail("tensors", "expected at least one tensor");
    for (auto& [name, t] : j["tensors"].items()) {
      std::string path = "tensors." + name;
      only_keys(t, path, {"dtype", "shape", "role", "contents"});
      tensor_spec ts;
      if (!t.contains("dtype") || !t.contains("shape") || !t.contains("role")) fail(path, "needs dtype, shape and role");
      ts.type = type(t["dtype"], path + ".dtype");
      if (!t["shape"].is_array() || t["shape"].empty()) fail(path + ".shape", "expected a non-empty list of extents");
      for (std::size_t i = 0; i < t["shape"].size(); ++i)
        ts.shape.push_back(positive(t["shape"][i], path + ".shape[" + std::to_string(i) + "]"));
      if (std::string why = shape_problem(ts.shape, ts.type); !why.empty()) fail(path + ".shape", why);
      std::string r = text(t["role"], path + ".role");
      if (r == "input") ts.use = role::input;
      else if (r == "output") ts.use = role::output;
      else if (r == "inout") ts.use = role::inout;
      else if (r == "scratch") ts.use = role::scratch;
      else fail(path + ".role", "expected input, output, inout or scratch");
      if (t.contains("contents")) s_.contents.emplace(name, contents(t["contents"], path + ".contents", name, ts, dir));
      s_.tensors.emplace(name, std::move(ts));
    }
    if (j.contains("scalars")) {
      if (!j["scalars"].is_object()) fail("scalars", "expected an object");
      for (auto& [name, v] : j["scalars"].items()) {
        std::string path = "scalars." + name;
        if (s_.tensors.contains(name)) fail(path, "the name is also a tensor");
        scalar_spec sc;
        if (v.is_number()) {
          sc.value = v.get<double>();
        } else if (v.is_object()) {
          only_keys(v, path, {"dtype", "value", "symbolic"});
          if (!v.contains("dtype")) fail(path, "missing \"dtype\"");
          sc.type = type(v["dtype"], path + ".dtype");
          if (v.contains("symbolic")) {
            if (!v["symbolic"].is_boolean() || !v["symbolic"].get<bool>()) fail(path + ".symbolic", "expected true");
            if (!is_float(*sc.type)) fail(path, "only floating-point scalars can be symbolic");
            if (v.contains("value")) fail(path, "a symbolic scalar has no value");
            sc.symbolic = true;
          } else if (v.contains("value") && v["value"].is_number()) {
            sc.value = v["value"].get<double>();
          } else {
            fail(path, "expected \"value\" (a number) or \"symbolic\": true");
          }
        } else {
          fail(path, "expected a number or an object");
        }
        s_.scalars.emplace(name, sc);
      }
    }
    if (j.contains("structs")) {  // by-value struct parameters: fields at byte offsets
      if (!j["structs"].is_object()) fail("structs", "expected an object");
      for (auto& [name, v] : j["structs"].items()) {
        std::string path = "structs." + name;
        if (s_.tensors.contains(name) || s_.scalars.contains(name)) fail(path, "the name is also a tensor or a scalar");
        only_keys(v, path, {"fields"});
        if (!v.contains("fields") || !v["fields"].is_array() || v["fields"].empty())
          fail(path + ".fields", "expected a non-empty list of fields");
        struct_spec st;
        for (std::size_t i = 0; i < v["fields"].size(); ++i) {
          const auto& f = v["fields"][i];
          std::string at = path + ".fields[" + std::to_string(i) + "]";
          only_keys(f, at, {"offset", "name", "dtype"});
          if (!f.contains("offset") || !f.contains("name")) fail(at, "needs \"offset\" and \"name\"");
          struct_field sf;
          sf.offset = positive(f["offset"], at + ".offset", 0);
          sf.name = text(f["name"], at + ".name");
          if (!s_.tensors.contains(sf.name) && !s_.scalars.contains(sf.name))
            fail(at + ".name", "'" + sf.name + "' is neither a tensor nor a scalar of the spec");
          if (f.contains("dtype")) {
            if (s_.tensors.contains(sf.name)) fail(at + ".dtype", "a tensor field is an 8-byte address and takes no dtype");
            sf.type = type(f["dtype"], at + ".dtype");
            auto own = s_.scalars.at(sf.name).type;
            if (own && *own != *sf.type)
              fail(at + ".dtype", "the scalar '" + sf.name + "' is " + std::string(check::name(*own)) + ", not " +
                                      std::string(check::name(*sf.type)));
          } else if (s_.scalars.contains(sf.name) && !s_.scalars.at(sf.name).type) {
            fail(at, "the scalar '" + sf.name + "' has no dtype: give the field one (\"dtype\": \"s32\")");
          }
          st.fields.push_back(std::move(sf));
        }
        s_.structs.emplace(name, std::move(st));
      }
    }
    if (j.contains("tensor_maps")) {  // CUtensorMap parameters (check/spec.hpp, tensor_map_spec)
      if (!j["tensor_maps"].is_object()) fail("tensor_maps", "expected an object");
      for (auto& [name, v] : j["tensor_maps"].items()) {
        std::string path = "tensor_maps." + name;
        if (s_.tensors.contains(name) || s_.scalars.contains(name) || s_.structs.contains(name))
          fail(path, "the name is also a tensor, a scalar or a struct");
        only_keys(v, path, {"tensor", "dtype", "global_dims", "global_strides", "box", "element_strides", "interleave",
                            "swizzle", "l2_promotion", "oob_fill"});
        if (!v.contains("tensor") || !v.contains("box")) fail(path, "needs \"tensor\" and \"box\"");
        tensor_map_spec m;
        m.tensor = text(v["tensor"], path + ".tensor");
        if (!s_.tensors.contains(m.tensor)) fail(path + ".tensor", "'" + m.tensor + "' is not a tensor of the spec");
        if (v.contains("dtype")) m.type = type(v["dtype"], path + ".dtype");
        auto list = [&](const char* key, std::uint64_t min) {
          std::vector<std::uint64_t> out;
          if (!v.contains(key)) return out;
          std::string at = path + "." + key;
          if (!v[key].is_array() || v[key].empty() || v[key].size() > 5) fail(at, "expected a list of 1 to 5 integers");
          for (std::size_t i = 0; i < v[key].size(); ++i) out.push_back(positive(v[key][i], at + "[" + std::to_string(i) + "]", min));
          return out;
        };
        m.global_dims = list("global_dims", 1);
        m.global_strides = list("global_strides", 1);
        m.box = list("box", 1);
        m.element_strides = list("element_strides", 1);
        auto pick = [&](const char* key, std::initializer_list<const char*> names) -> std::uint8_t {
          if (!v.contains(key)) return 0;
          std::string got = text(v[key], path + "." + key), all;
          std::uint8_t i = 0;
          for (const char* n : names) {
            if (got == n) return i;
            all += (i++ ? ", " : "") + std::string(n);
          }
          fail(path + "." + key, "expected one of " + all);
        };
        m.interleave = static_cast<exec::tma::interleave>(pick("interleave", {"none", "16B", "32B"}));
        m.swizzle = static_cast<exec::tma::swizzle>(pick("swizzle", {"none", "32B", "64B", "128B", "96B"}));
        m.l2 = static_cast<exec::tma::l2_promotion>(pick("l2_promotion", {"none", "64B", "128B", "256B"}));
        m.fill = static_cast<exec::tma::oob_fill>(pick("oob_fill", {"zero", "nan_request_zero_fma"}));
        s_.tensor_maps.emplace(name, std::move(m));
      }
    }
    if (j.contains("kernel")) {  // a single-kernel spec (gpueq run, gpueq race)
      if (j.contains("reference") || j.contains("candidate")) fail("kernel", "give \"kernel\" or \"reference\" and \"candidate\", not both");
      s_.reference = kernel(j["kernel"], "kernel", dir);
      s_.candidate = s_.reference;
      s_.single = true;
    } else {
      if (!j.contains("reference") || !j.contains("candidate")) fail("", "needs \"reference\" and \"candidate\" (or \"kernel\")");
      s_.candidate = kernel(j["candidate"], "candidate", dir);
      if (j["reference"].is_object() && j["reference"].contains("spec")) {  // a registered specification
        only_keys(j["reference"], "reference", {"spec"});
        s_.reference_spec = text(j["reference"]["spec"], "reference.spec");  // `reference` stays empty
      } else {
        s_.reference = kernel(j["reference"], "reference", dir);
      }
    }
    if (s_.reference_spec && !s_.contents.empty())
      fail("tensors." + s_.contents.begin()->first + ".contents",
           "the reference is the specification '" + *s_.reference_spec +
               "', which is over symbolic inputs: given contents need the reference as a kernel");
    if (j.contains("expect")) {
      std::string e = text(j["expect"], "expect");
      s_.expect = verdict_named(e);
      if (!s_.expect) {
        std::string names;
        for (auto& v : verdict_table) names += (names.empty() ? "" : ", ") + std::string(v.name);
        fail("expect", "expected one of " + names);
      }
    }
    if (j.contains("culprit")) {
      std::string c = text(j["culprit"], "culprit");
      if (c != "reference" && c != "candidate" && c != "both") fail("culprit", "expected reference, candidate or both");
      s_.culprit = c;
    }
  }

 private:
  pair_spec& s_;
};

}  // namespace detail

// Reads a pair spec from JSON text; `file` names it in errors and anchors relative PTX paths.
inline pair_spec parse_spec(std::string_view text, const std::string& file) {
  pair_spec s;
  s.file = file;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    std::string reason = e.what();
    if (auto at = reason.find("]: "); at != std::string::npos) reason = reason.substr(at + 3);  // drop nlohmann's prefix
    throw support::diagnostic_error(support::diagnostic{file, support::position_of(text, e.byte ? e.byte - 1 : 0), reason});
  } catch (const nlohmann::json::exception& e) {  // a number too large for a double (out_of_range 406), ...
    std::string reason = e.what();
    if (auto at = reason.find("] "); at != std::string::npos) reason = reason.substr(at + 2);
    throw support::diagnostic_error(support::diagnostic{file, {}, reason});
  }
  std::filesystem::path dir = std::filesystem::path(file).parent_path();
  detail::spec_reader(s).read(j, dir);
  return s;
}

inline pair_spec load_spec(const std::string& file) {
  return parse_spec(support::read_input_file(file, "spec file"), file);
}

}  // namespace gpueq::check
