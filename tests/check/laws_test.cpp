// Differential laws over the whole kernel corpus (docs/ARCHITECTURE.md, "Value domains"; VOLTA Lemma 5): for every
// kernel of every pair, on random inputs,
//   - the symbolic outputs evaluated at the inputs agree with the float32 run within float error;
//   - the exact-rational run, where the kernel has no transcendental function, equals the
//     symbolic outputs evaluated exactly (50 digits);
//   - a race-free kernel gives bit-identical float32 outputs under several random schedules;
//   - a run that stops with an error stops with the same kind of error in float32 and
//     symbolically (control flow and addresses are concrete in every domain).
#include <gpueq/canon/evaluate.hpp>
#include <gpueq/check/prepared.hpp>
#include <gpueq/check/spec_json.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>

using namespace gpueq;

namespace {

struct inputs {
  std::map<std::string, std::vector<double>> tensors;
  std::map<std::string, double> scalars;
};

inputs random_inputs(const check::pair_spec& spec, std::uint64_t seed) {
  inputs in;
  for (auto& [name, t] : spec.tensors) {
    auto& v = in.tensors[name];
    v.resize(t.elements());
    for (auto& x : v) {
      seed = support::mix64(seed + 0x632be59bd9b4e019ull);
      double u = static_cast<double>(seed >> 11) / static_cast<double>(1ull << 53) * 2 - 1;
      x = check::is_float(t.type) ? exec::floats::round_to(u, check::rkind_of(t.type)) : std::round(u * 8);
    }
  }
  for (auto& [name, s] : spec.scalars)
    if (s.symbolic) in.scalars[name] = 0.75;
  return in;
}

double value_of(const inputs& in, std::string_view name, std::uint64_t element) {
  if (auto it = in.tensors.find(std::string(name)); it != in.tensors.end()) return it->second.at(element);
  return in.scalars.at(std::string(name));
}

bool uses_half(const check::pair_spec& spec) {
  for (auto& [n, t] : spec.tensors)
    if (t.type == check::dtype::f16 || t.type == check::dtype::bf16) return true;
  return false;
}

// Is this side expected to race (so that its outputs may depend on the schedule)?
// Float atomics (atom/red add on f16, bf16, f32, f64): their sum rounds differently in another
// order, on a GPU too; only the real-valued result is schedule-independent (the symbolic law).
bool has_float_atomics(const ptx::module& m, const ptx::function& f) {
  for (const auto& ins : f.instructions) {
    if (ins.op != ptx::opcode::atom && ins.op != ptx::opcode::red) continue;
    for (auto mod : ins.mods) {
      std::string_view t = m.str(mod);
      if (t.starts_with(".f") || t.starts_with(".bf")) return true;
    }
  }
  return false;
}

bool may_race(const check::pair_spec& spec, bool candidate) {
  if (!spec.expect || *spec.expect != check::verdict::race) return false;
  std::string c = spec.culprit.value_or("both");
  return c == "both" || c == (candidate ? "candidate" : "reference");
}

void check_side(const check::pair_spec& spec, const ptx::module& m, std::size_t entry, const check::kernel_spec& k,
                bool candidate) {
  INFO((candidate ? "candidate " : "reference ") << k.ptx);
  const inputs in = random_inputs(spec, 0x5eed + std::hash<std::string>{}(k.ptx));
  auto source = [&](const exec::input_ref& r) { return value_of(in, r.name, r.element); };

  // Through the one grid runner: float32 runs the unlifted program, exact and symbolic the lifted.
  check::prepared_kernel pk = check::prepare(spec, m, entry, k, candidate ? "candidate" : "reference");
  exec::float32_domain f32(source);  // (its `same` compares float32 results)
  auto f = check::run_grid<exec::float32_domain>(pk, [&] { return exec::float32_domain(source); });
  term::store s;
  auto sym = check::run_grid<exec::symbolic_domain>(pk, [&] { return exec::symbolic_domain(s); });

  if (f.error || sym.error) {
    // Control is concrete, so both runs stop at the same kind of problem; the symbolic run may
    // stop earlier only for a reason of its own (a decision on symbolic data).
    if (sym.error && (sym.error->kind == exec::error_kind::not_structured || sym.error->kind == exec::error_kind::domain))
      return;
    REQUIRE(f.error.has_value());
    REQUIRE(sym.error.has_value());
    CHECK(f.error->kind == sym.error->kind);
    return;
  }

  // Symbolic evaluated at the inputs vs float32.
  canon::evaluator<double> eval(s, [&](term::term_id t) {
    std::string name(s.tensor_name(t));
    std::uint64_t element = 0;
    if (auto it = spec.tensors.find(name); it != spec.tensors.end()) {
      auto idx = s.input_indices(t);
      for (std::size_t d = 0; d < idx.size(); ++d) element = element * it->second.shape[d] + idx[d];
    }
    return support::rational(value_of(in, name, element));
  });
  const double tolerance = uses_half(spec) ? 2e-2 : 1e-3;
  std::size_t compared = 0;
  for (auto& [name, vals] : sym.values) {
    const auto& fv = f.values.at(name);
    for (std::size_t i = 0; i < vals.size(); ++i) {
      REQUIRE(vals[i].has_value() == fv[i].has_value());
      if (!vals[i]) continue;
      auto v = eval(*vals[i]);
      REQUIRE(v.has_value());
      INFO(name << "[" << i << "]: symbolic " << *v << ", float32 " << *fv[i]);
      CHECK(std::fabs(*v - *fv[i]) <= tolerance * (1 + std::fabs(*v)));
      ++compared;
    }
  }
  CHECK(compared > 0);

  // Exact rationals equal the symbolic outputs evaluated at 50 digits (kernels without exp & co).
  auto e = check::run_grid<exec::exact_domain>(pk, [&] {
    return exec::exact_domain([&](const exec::input_ref& r) { return support::rational(value_of(in, r.name, r.element)); });
  });
  if (!e.error) {
    canon::evaluator<canon::high_precision> hp(s, [&](term::term_id t) {
      std::string name(s.tensor_name(t));
      std::uint64_t element = 0;
      if (auto it = spec.tensors.find(name); it != spec.tensors.end()) {
        auto idx = s.input_indices(t);
        for (std::size_t d = 0; d < idx.size(); ++d) element = element * it->second.shape[d] + idx[d];
      }
      return support::rational(value_of(in, name, element));
    });
    for (auto& [name, vals] : sym.values)
      for (std::size_t i = 0; i < vals.size(); i += 1 + vals.size() / 64) {  // a sample of elements
        if (!vals[i]) continue;
        auto v = hp(*vals[i]);
        REQUIRE(v.has_value());
        canon::high_precision x(e.values.at(name)[i].value());
        CHECK(boost::multiprecision::abs(*v - x) <= canon::high_precision("1e-40") * (1 + boost::multiprecision::abs(x)));
      }
  } else {
    CHECK(e.error->kind == exec::error_kind::domain);  // exp, log, ... have no rational value
  }

  // Race-free kernels: the same bits under other schedules (but for the rounding of float atomics).
  if (may_race(spec, candidate) || has_float_atomics(m, m.functions[entry])) return;
  for (std::uint64_t seed : {1u, 2u}) {
    exec::engine_options o;
    o.schedule_seed = seed;
    auto r = check::run_grid<exec::float32_domain>(pk, [&] { return exec::float32_domain(source); }, 1, o);
    REQUIRE_FALSE(r.error.has_value());
    for (auto& [name, vals] : f.values)
      for (std::size_t i = 0; i < vals.size(); ++i) {
        INFO("schedule seed " << seed << ", " << name << "[" << i << "]");
        REQUIRE(vals[i].has_value() == r.values.at(name)[i].has_value());
        if (vals[i]) CHECK(f32.same(*vals[i], *r.values.at(name)[i]));
      }
  }
}

}  // namespace

TEST_CASE("corpus kernels: symbolic = exact = float32 (within rounding), schedule-independent when race-free") {
  namespace fs = std::filesystem;
  fs::path root = fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels";
  std::set<std::string> done;  // each kernel and launch once
  std::size_t sides = 0;
  std::vector<fs::path> files;
  for (auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().filename().string().ends_with(".pair.json")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (auto& file : files) {
    INFO("spec: " << file.string());
    check::pair_spec spec = check::load_spec(file.string());
    check::resolved_pair pair = check::resolve(spec);
    for (bool candidate : {false, true}) {
      if (!check::has_kernel(spec, candidate)) continue;  // a specification reference
      const check::kernel_spec& k = candidate ? spec.candidate : spec.reference;
      std::string key = k.path + "|" + k.entry + "|" + std::to_string(k.block[0]) + "," + std::to_string(k.block[1]) +
                        "|" + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]);
      for (auto& [n, t] : spec.tensors) key += "|" + n + std::to_string(t.elements());
      if (!done.insert(key).second) continue;
      ++sides;
      check_side(spec, candidate ? pair.candidate : pair.reference, candidate ? pair.candidate_entry : pair.reference_entry,
                 k, candidate);
    }
  }
  CHECK(sides >= 40);
}
