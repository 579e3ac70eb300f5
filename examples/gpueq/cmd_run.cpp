// `gpueq run`: run one kernel of a spec (a single-kernel spec, or one side of a pair) on concrete
// or symbolic inputs and show or save its outputs.
//   gpueq run kernel.json                      float32 on seeded random inputs, first values shown
//   gpueq run kernel.json --inputs in/ --out out/   <tensor>.npy in, <tensor>.npy out
//   gpueq run pair.json --side candidate --domain symbolic --json
// Statistics (CTAs, threads, instructions, time) go to stderr. Exit: 0 ran, 2 the run stopped at a
// deadlock, out-of-bounds or other undefined behaviour, 3 not a structured CTA / unsupported, 4
// bad input, 5 resource limit (an allocation failed).
#include "commands.hpp"
#include "npy.hpp"

#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_json.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

namespace {

using namespace gpueq;

struct options {
  std::string spec, side, domain = "float32", inputs, out;
  std::uint64_t seed = 1, max_memory = 0;
  bool json = false;
};

int run(const options& o) {
  check::pair_spec spec = check::load_spec(o.spec);
  check::resolved_pair pair = check::resolve(spec);
  cli::print_warnings(pair.reference);
  cli::print_warnings(pair.candidate);
  if (!o.side.empty() && o.side != "reference" && o.side != "candidate")
    throw std::runtime_error("--side is reference or candidate");
  // By default the reference, or the candidate when the reference is a specification.
  bool cand = (o.side == "candidate" || (o.side.empty() && spec.reference_spec)) && !spec.single;
  if (!check::has_kernel(spec, cand))
    throw support::diagnostic_error({o.spec, {}, "the reference is the specification '" + *spec.reference_spec +
                                                     "', not a kernel: run the candidate (--side candidate)"});
  const ptx::module& m = cand ? pair.candidate : pair.reference;
  std::size_t entry = cand ? pair.candidate_entry : pair.reference_entry;
  const check::kernel_spec& k = cand ? spec.candidate : spec.reference;

  // Inputs: .npy files, or seeded random values in [-1, 1] (small integers for integer tensors).
  std::map<std::string, std::vector<double>> in;
  std::uint64_t state = o.seed * 0x9e3779b97f4a7c15ull + 1;
  auto next = [&] {
    state = support::mix64(state + 0x632be59bd9b4e019ull);
    return static_cast<double>(state >> 11) / static_cast<double>(1ull << 53) * 2 - 1;
  };
  // A tensor's or symbolic scalar's values; `shape` is empty for a scalar. npy::read checks the
  // file's dtype and shape against the spec's before it reads any data.
  auto fill = [&](const std::string& name, std::uint64_t n, std::optional<check::dtype> type,
                  const std::vector<std::uint64_t>& shape, const std::string& what) {
    std::vector<double> v;
    std::filesystem::path file = std::filesystem::path(o.inputs) / (name + ".npy");
    if (!o.inputs.empty()) {
      v = cli::npy::read(file.string(), type.value_or(check::dtype::f32), shape, what).values;
    } else {
      v.resize(n);
      for (auto& x : v) x = next();
    }
    for (auto& x : v)
      x = !type || check::is_float(*type) ? exec::floats::round_to(x, type ? check::rkind_of(*type) : exec::rkind::f32)
                                          : std::round(o.inputs.empty() ? x * 8 : x);
    in[name] = std::move(v);
  };
  // (A tensor with given contents holds them: the engine reads them, not these.)
  for (auto& [name, t] : spec.tensors)
    if ((t.use == check::role::input || t.use == check::role::inout) && !spec.contents.contains(name))
      fill(name, t.elements(), t.type, t.shape, "tensor '" + name + "'");
  for (auto& [name, s] : spec.scalars)
    if (s.symbolic) fill(name, 1, s.type, {}, "scalar '" + name + "'");
  auto source = [&](const exec::input_ref& r) -> double {
    auto it = in.find(std::string(r.name));
    return it != in.end() && r.element < it->second.size() ? it->second[r.element] : 0.0;
  };

  auto t0 = std::chrono::steady_clock::now();
  check::prepared_kernel pk = check::prepare(spec, m, entry, k, "kernel");
  exec::engine_options eo;
  eo.max_resident_mib = o.max_memory;
  check::run_domain domain;
  if (o.domain == "float32") domain = check::run_domain::float32;
  else if (o.domain == "rational") domain = check::run_domain::rational;
  else if (o.domain == "symbolic") domain = check::run_domain::symbolic;
  else throw std::runtime_error("--domain is float32, rational or symbolic");
  if (domain == check::run_domain::symbolic && !o.out.empty())
    throw std::runtime_error("--out writes numbers: use --domain float32 or rational");
  check::grid_outputs g = check::run_outputs(pk, domain, source, eo);
  auto& values = g.values;
  auto& texts = g.texts;
  auto& error = g.error;
  const std::uint64_t steps = g.steps;
  const std::uint32_t ctas = g.ctas;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << ctas << " CTA(s) of " << k.block[0] * k.block[1] * k.block[2] << " threads, " << steps
            << " thread-instructions, " << secs << " s (" << o.domain << ")\n";
  if (error) {
    std::cout << error->message << "\n";
    return check::exit_code(check::verdict_of(error->kind));
  }
  // Unwritten output elements are 0 (inout ones already hold their inputs).
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    for (auto& [name, vals] : values) {
      std::vector<double> v;
      for (auto& x : vals) v.push_back(x.value_or(0.0));
      const auto& t = spec.tensors.at(name);
      cli::npy::write((std::filesystem::path(o.out) / (name + ".npy")).string(), cli::npy::descr_of(t.type), t.shape, v);
    }
  }
  if (o.json) {
    nlohmann::json j;
    for (auto& [name, vals] : values)
      for (auto& x : vals) j["outputs"][name].push_back(x ? nlohmann::json(*x) : nlohmann::json(nullptr));
    for (auto& [name, vals] : texts)
      for (auto& x : vals) j["outputs"][name].push_back(x ? nlohmann::json(*x) : nlohmann::json(nullptr));
    j["stats"] = {{"ctas", ctas}, {"thread_instructions", steps}, {"seconds", secs}, {"domain", o.domain}};
    std::cout << j.dump(1) << "\n";
    return cli::exit_ok;
  }
  for (auto& [name, vals] : values) {
    std::cout << name << ":";
    for (std::size_t i = 0; i < vals.size() && i < 8; ++i)
      std::cout << " " << (vals[i] ? std::to_string(*vals[i]) : std::string("(unwritten)"));
    std::cout << (vals.size() > 8 ? " ..." : "") << "\n";
  }
  for (auto& [name, vals] : texts)
    for (std::size_t i = 0; i < vals.size() && i < 4; ++i)
      std::cout << name << "[" << i << "] = " << (vals[i] ? *vals[i] : std::string("(unwritten)")) << "\n";
  if (!o.out.empty()) std::cout << "outputs written to " << o.out << "\n";
  return cli::exit_ok;
}

cli::registrar reg("run", [](CLI::App& app) -> cli::runner {
  auto o = std::make_shared<options>();
  auto* c = app.add_subcommand("run", "Run one kernel on concrete or symbolic inputs");
  c->add_option("spec", o->spec, "A single-kernel spec (\"kernel\") or a pair spec")->required();
  c->add_option("--side", o->side, "For a pair spec: reference (the default) or candidate (the default when the reference is a specification)");
  c->add_option("--domain", o->domain, "float32 (default: what the GPU computes), rational (exact) or symbolic");
  c->add_option("--inputs", o->inputs,
                "Read <tensor>.npy for every input and inout tensor without given contents (and symbolic scalar)");
  c->add_option("--seed", o->seed, "Random inputs in [-1, 1] from this seed (default 1) when --inputs is not given");
  c->add_option("--out", o->out, "Write <tensor>.npy for every output and inout tensor");
  c->add_flag("--json", o->json, "Print the outputs and statistics as JSON");
  cli::add_max_memory_option(c, o->max_memory);
  c->footer("Exit: 0 ran, 2 deadlock/out-of-bounds/undefined behaviour, 3 not a structured CTA or unsupported, 4 bad input, 5 resource limit.");
  return [c, o]() -> int {
    if (!c->parsed()) return cli::exit_ok;
    try {
      return run(*o);
    } catch (const std::exception& e) {
      return cli::report_failure(e, "run");
    }
  };
});

}  // namespace
