// `gpueq race`: prove a kernel free of data races and deadlocks, or report them.
//   gpueq race kernel.json          the kernel of a single-kernel spec
//   gpueq race pair.json            both kernels of a pair
//   gpueq race FILE.ptx --block 256 [--grid 4] [--entry NAME] --param x=f32[1024] --param n=1024 ...
//                                   quick form: the launch from the command line (see quick_spec)
// Every CTA the spec names runs symbolically with the race context observing (happens-before at
// barrier-instance granularity, named barriers with WEFT's generations and recycling check).
// --json prints the report machine-readable, --sarif as SARIF 2.1.0 (report.hpp).
// --allow-benign tolerates benign races (every racing pair wrote the same value): exit 0, the
// races listed as a note. --strict-barriers applies CUDA's __syncthreads rule (every thread of the
// block reaches each whole-CTA barrier any thread reaches) instead of PTX's barrier semantics.
// Exit: 0 race-free and well-synchronized, otherwise the exit code of the verdict class
// (check/verdict.hpp): 2 a race, deadlock, barrier error or undefined behaviour, 3 not a
// structured CTA / unsupported, 4 bad input, 5 the step or memory limit.
#include "commands.hpp"
#include "report.hpp"

#include <gpueq/check/driver.hpp>
#include <gpueq/race/driver.hpp>
#include <gpueq/check/spec_json.hpp>
#include <gpueq/race/ptx_source.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

namespace {

using namespace gpueq;

struct options {
  std::string spec;
  bool warp_synchronous = false;
  bool allow_benign = false;
  bool strict_barriers = false;
  bool witness = false;
  bool json = false, sarif = false;
  std::string output;
  // Quick form (a .ptx file).
  std::string block, grid, entry, cluster;
  std::vector<std::string> params;
  std::uint64_t dynamic_shared = 0;
  std::uint64_t max_memory = 0;
};

// An error at FILE:LINE:COLUMN (line 0: the file only).
[[noreturn]] void bad(const std::string& file, std::uint32_t line, std::uint32_t column, const std::string& reason) {
  support::diagnostic d{file, {}, reason};
  d.where.line = line;
  d.where.column = column ? column : 1;
  throw support::diagnostic_error(d);
}

// "256", "16,16", "16x16", "8,8,4": 1 to 3 positive extents, read in full (up to 19 digits) and
// checked against CUDA's block or grid limits (check::block_problem, grid_problem) before they are
// narrowed to 32 bits.
check::dim3 parse_dims(const std::string& text, const char* option, bool block) {
  std::vector<std::uint64_t> e;
  std::size_t i = 0;
  while (true) {
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == i || e.size() == 3 || j - i > 19) break;
    e.push_back(std::stoull(text.substr(i, j - i)));
    if (e.back() == 0) break;
    if (j == text.size()) {
      if (std::string why = block ? check::block_problem(e) : check::grid_problem(e); !why.empty())
        throw std::runtime_error(std::string(option) + " '" + text + "': " + why);
      check::dim3 d{1, 1, 1};
      for (std::size_t k = 0; k < e.size(); ++k) d[k] = static_cast<std::uint32_t>(e[k]);
      return d;
    }
    if (text[j] != ',' && text[j] != 'x') break;
    i = j + 1;
  }
  throw std::runtime_error(std::string(option) + " '" + text + "': expected 1 to 3 positive extents, e.g. 256, 16,16 or 16x16");
}

bool identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_' || s[0] == '$')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$')) return false;
  return true;
}

// One --param: NAME=VALUE where VALUE is
//   a number                          a concrete scalar, typed by the PTX parameter (n=1024, eps=1e-5)
//   f16 | bf16 | f32 | f64            a symbolic float scalar (alpha=f32)
//   [in:|out:|inout:]DTYPE[E1,E2,..]  a tensor bound to a 64-bit (pointer) parameter; inout unless
//                                     prefixed (in: read-only, out: written before read)
struct param_arg {
  std::string name;
  bool tensor = false;
  check::tensor_spec t;
  check::scalar_spec s;
};

param_arg parse_param(const std::string& text) {
  const std::string syntax =
      "--param '" + text +
      "': expected NAME=VALUE, VALUE a number (a scalar: n=1024), a float dtype (a symbolic scalar: alpha=f32) or "
      "[in:|out:|inout:]DTYPE[EXTENTS] (a tensor: x=f32[1024], A=in:f32[64,64])";
  param_arg p;
  auto eq = text.find('=');
  if (eq == std::string::npos) throw std::runtime_error(syntax);
  p.name = text.substr(0, eq);
  std::string v = text.substr(eq + 1);
  if (!identifier(p.name)) throw std::runtime_error(syntax + "; '" + p.name + "' is not a name");
  if (v.empty()) throw std::runtime_error(syntax);
  // A number?
  {
    std::istringstream in(v);
    double x;
    if (in >> x && in.peek() == std::char_traits<char>::eof()) {
      p.s.value = x;
      return p;
    }
  }
  check::role use = check::role::inout;
  for (auto [prefix, r] : {std::pair{"in:", check::role::input}, std::pair{"out:", check::role::output},
                           std::pair{"inout:", check::role::inout}})
    if (v.rfind(prefix, 0) == 0) {
      use = r;
      v = v.substr(std::string_view(prefix).size());
      p.tensor = true;
    }
  auto bracket = v.find('[');
  std::string type = v.substr(0, bracket);
  auto d = check::dtype_of(type);
  if (!d) throw std::runtime_error(syntax + "; '" + type + "' is not a dtype (f16 bf16 f32 f64 s8 u8 s16 u16 s32 u32 s64 u64 e4m3 e5m2)");
  if (bracket == std::string::npos) {
    if (p.tensor) throw std::runtime_error(syntax + "; a tensor needs its shape, e.g. " + p.name + "=" + text.substr(eq + 1) + "[1024]");
    if (!check::is_float(*d)) throw std::runtime_error(syntax + "; only float scalars can be symbolic (give an integer a value)");
    p.s.type = d;
    p.s.symbolic = true;
    return p;
  }
  p.tensor = true;
  p.t.type = *d;
  p.t.use = use;
  if (v.back() != ']') throw std::runtime_error(syntax);
  std::string dims = v.substr(bracket + 1, v.size() - bracket - 2);
  std::size_t i = 0;
  while (true) {
    std::size_t j = i;
    while (j < dims.size() && std::isdigit(static_cast<unsigned char>(dims[j]))) ++j;
    if (j == i || j - i > 19) throw std::runtime_error(syntax + "; extents are positive integers");
    std::uint64_t e = std::stoull(dims.substr(i, j - i));
    if (e == 0) throw std::runtime_error(syntax + "; extents are positive integers");
    p.t.shape.push_back(e);
    if (j == dims.size()) break;
    if (dims[j] != ',') throw std::runtime_error(syntax);
    i = j + 1;
  }
  if (std::string why = check::shape_problem(p.t.shape, p.t.type); !why.empty())
    throw std::runtime_error("--param '" + text + "': " + why);
  return p;
}

// The quick form: a single-kernel spec from a PTX file and the command line. Parameters bind in
// the order of the entry's .param list, except that a NAME equal to a PTX parameter's own name
// binds that parameter.
struct quick {
  check::pair_spec spec;
  check::resolved_pair pair;
};

quick quick_spec(const options& o) {
  quick q;
  check::pair_spec& s = q.spec;
  s.file = o.spec;
  s.single = true;
  ptx::module m = ptx::parse_file(o.spec);
  const ptx::function* f = nullptr;
  if (!o.entry.empty()) {
    f = m.find_function(o.entry);
    if (!f || !f->entry) {
      std::string names;
      for (auto& g : m.functions)
        if (g.entry && g.has_body) names += (names.empty() ? "" : ", ") + std::string(m.str(g.name));
      bad(o.spec, 0, 0, "no kernel (.entry) named '" + o.entry + "'" + (names.empty() ? "" : "; kernels: " + names));
    }
  } else {
    std::vector<const ptx::function*> kernels;
    for (auto& g : m.functions)
      if (g.entry && g.has_body) kernels.push_back(&g);
    if (kernels.empty()) bad(o.spec, 0, 0, "no kernel (.entry) in the file");
    if (kernels.size() > 1) {
      std::string names;
      for (auto* g : kernels) names += (names.empty() ? "" : ", ") + std::string(m.str(g->name));
      bad(o.spec, 0, 0, "several kernels (" + names + "); name one with --entry");
    }
    f = kernels.front();
  }
  std::string entry(m.str(f->name));
  if (o.block.empty()) bad(o.spec, f->line, f->column, "kernel '" + entry + "': the quick form needs --block (threads per CTA, e.g. --block 256)");
  check::kernel_spec k;
  k.ptx = o.spec;
  k.path = o.spec;
  k.entry = entry;
  k.block = parse_dims(o.block, "--block", true);
  if (!o.grid.empty()) k.grid = parse_dims(o.grid, "--grid", false);
  // A cluster shape: --cluster, else the kernel's own .reqnctapercluster (__cluster_dims__).
  for (const auto& dir : f->directives)
    if (m.str(dir.name) == ".reqnctapercluster")
      for (std::size_t i = 0; i < 3; ++i)
        k.cluster[i] = i < dir.values.size() ? static_cast<std::uint32_t>(dir.values[i]) : 1;
  if (!o.cluster.empty()) {
    k.cluster = parse_dims(o.cluster, "--cluster", false);
    for (std::size_t i = 0; i < 3; ++i)
      if (k.cluster[i] > 16) throw std::runtime_error("--cluster '" + o.cluster + "': a cluster has at most 16 CTAs");
  }
  if (o.dynamic_shared > check::max_dynamic_shared_bytes)
    throw std::runtime_error("--dynamic-shared: more than " + std::to_string(check::max_dynamic_shared_bytes) + " bytes (227 KiB)");
  k.dynamic_shared_bytes = o.dynamic_shared;

  // Bind the --param arguments to the PTX parameters.
  std::vector<param_arg> args;
  std::set<std::string> names;
  for (auto& text : o.params) {
    args.push_back(parse_param(text));
    if (!names.insert(args.back().name).second) throw std::runtime_error("--param '" + args.back().name + "' is given twice");
  }
  std::size_t n = f->params.size();
  std::vector<int> bound(n, -1);
  std::vector<bool> used(args.size(), false);
  for (std::size_t a = 0; a < args.size(); ++a)
    for (std::size_t i = 0; i < n; ++i)
      if (m.str(f->params[i].name) == args[a].name) bound[i] = static_cast<int>(a), used[a] = true;
  std::size_t next = 0;
  for (std::size_t a = 0; a < args.size(); ++a) {
    if (used[a]) continue;
    while (next < n && bound[next] >= 0) ++next;
    if (next == n)
      bad(o.spec, f->line, f->column, "kernel '" + entry + "' has " + std::to_string(n) + " parameter" + (n == 1 ? "" : "s") +
                               " but --param gives " + std::to_string(args.size()));
    bound[next] = static_cast<int>(a);
    used[a] = true;
  }
  auto describe = [&](std::size_t i) {
    const auto& p = f->params[i];
    return "parameter " + std::to_string(i) + " '" + std::string(m.str(p.name)) + "' (" + std::string(m.str(p.type)) + ", line " +
           std::to_string(p.line) + ")";
  };
  std::string missing;
  for (std::size_t i = 0; i < n; ++i)
    if (bound[i] < 0) missing += "\n  " + describe(i);
  if (!missing.empty())
    bad(o.spec, f->line, f->column, "kernel '" + entry + "' has " + std::to_string(n) + " parameters; give each a --param (in order): " +
                             "a tensor for a pointer (x=f32[1024]), a number or a symbolic float (alpha=f32) for a scalar; missing:" +
                             missing);
  for (std::size_t i = 0; i < n; ++i) {
    const param_arg& a = args[static_cast<std::size_t>(bound[i])];
    std::string_view type = m.str(f->params[i].type);
    bool wide = type == ".u64" || type == ".s64" || type == ".b64";
    if (a.tensor && !wide)
      bad(o.spec, f->params[i].line, f->params[i].column, describe(i) + " is not a 64-bit address: --param '" + a.name + "' cannot be a tensor");
    if (a.tensor) {
      s.tensors.emplace(a.name, a.t);
    } else {
      if (a.s.symbolic && (type.starts_with(".u") || type.starts_with(".s") || type == ".pred"))
        bad(o.spec, f->params[i].line, f->params[i].column, describe(i) + " is an integer: --param '" + a.name + "' cannot be a symbolic float");
      s.scalars.emplace(a.name, a.s);
    }
    k.params.push_back(a.name);
  }
  s.reference = k;
  s.candidate = k;
  q.pair.reference = std::move(m);
  q.pair.reference_entry = check::resolve_kernel(s, "kernel", s.reference, q.pair.reference);
  q.pair.candidate_entry = q.pair.reference_entry;
  return q;
}

int run(const options& o) {
  bool quick_form = o.spec.size() > 4 && o.spec.ends_with(".ptx");
  if (!quick_form &&
      (!o.block.empty() || !o.grid.empty() || !o.entry.empty() || !o.params.empty() || o.dynamic_shared || !o.cluster.empty()))
    throw std::runtime_error("--block, --grid, --cluster, --entry, --param and --dynamic-shared are for a .ptx file; '" + o.spec +
                             "' is a spec, which gives the launch itself");
  if (o.json && o.sarif) throw std::runtime_error("give --json or --sarif, not both");
  check::pair_spec spec;
  check::resolved_pair pair;
  if (quick_form) {
    quick q = quick_spec(o);
    spec = std::move(q.spec);
    pair = std::move(q.pair);
  } else {
    spec = check::load_spec(o.spec);
    pair = check::resolve(spec);
  }
  cli::print_warnings(pair.reference);
  cli::print_warnings(pair.candidate);
  race::driver_options ro;
  ro.warp_synchronous = o.warp_synchronous;
  ro.witnesses = o.witness ? 3 : 0;
  ro.threads = cli::default_jobs();
  ro.engine.max_resident_mib = o.max_memory;
  ro.allow_benign = o.allow_benign;
  ro.strict_barriers = o.strict_barriers;
  std::vector<race::kernel_result> sides = race::check_races(spec, pair, ro);
  int worst = cli::exit_ok;
  for (const auto& side : sides) worst = std::max(worst, race::exit_code(side));

  std::ofstream file;
  if (!o.output.empty()) {
    file.open(o.output, std::ios::binary);
    if (!file) throw std::runtime_error("cannot write '" + o.output + "'");
  }
  std::ostream& out = o.output.empty() ? std::cout : file;
  if (o.json) {
    out << cli::report::report_json(o.spec, sides, worst).dump(2) << "\n";
  } else if (o.sarif) {
    out << cli::report::sarif(sides, worst, std::filesystem::current_path().generic_string()).dump(2) << "\n";
  } else {
    for (const auto& side : sides) cli::report::race_text(out, side, o.witness);
    if (!spec.contents.empty()) out << "  " << cli::report::given_line(check::given_of(spec)) << "\n";
  }
  return worst;
}

cli::registrar reg("race", [](CLI::App& app) -> cli::runner {
  auto o = std::make_shared<options>();
  auto* c = app.add_subcommand("race", "Prove kernels free of data races and deadlocks, or report them");
  c->add_option("spec", o->spec,
                "A single-kernel spec (\"kernel\"), a pair spec (both kernels), or a .ptx file with --block and --param")
      ->required();
  c->add_flag("--witness", o->witness,
              "For the first race groups, replay the CTA in float32 under two schedules that order the racing accesses "
              "differently and show an output that changes");
  c->add_flag("--allow-benign", o->allow_benign,
              "Tolerate benign races (threads writing the same value to one place, as in `if (...) flag = 1;`): "
              "exit 0 with the races listed as a note");
  c->add_flag("--strict-barriers", o->strict_barriers,
              "CUDA's rule for __syncthreads instead of PTX's barrier semantics: a thread that exits before a barrier "
              "without a thread count that other threads of its block reach, or threads reaching one at different "
              "barrier instructions (a divergent branch), is a barrier-divergence error");
  c->add_flag("--warp-synchronous", o->warp_synchronous, "Legacy pre-Volta mode: threads of one warp run in lockstep and never race");
  c->add_flag("--json", o->json, "Print the report as JSON (verdict, race groups with both accesses and their lines, barrier diagnostics, errors)");
  c->add_flag("--sarif", o->sarif, "Print the report as SARIF 2.1.0 for editors and code review (CUDA lines when the PTX has line info)");
  c->add_option("-o,--output", o->output, "Write the report to FILE instead of stdout");
  cli::add_max_memory_option(c, o->max_memory);
  auto* g = c->add_option_group("quick form", "For a .ptx file: the launch from the command line");
  g->add_option("--block", o->block, "Threads per CTA: 256, 16,16 or 16x16");
  g->add_option("--grid", o->grid, "CTAs of the grid (default 1); every CTA is checked");
  g->add_option("--cluster", o->cluster,
                "Thread-block cluster shape (4 or 2,2): each run is a whole cluster (default: the kernel's "
                ".reqnctapercluster, else none)");
  g->add_option("--entry", o->entry, "The kernel, when the file has several");
  g->add_option("--param", o->params,
                "One per kernel parameter, in order (or NAME = the PTX parameter's own name): n=1024 (a scalar), alpha=f32 "
                "(a symbolic float scalar), x=f32[1024] or A=f32[64,64] (a tensor, read and written; in:f32[..] read-only, "
                "out:f32[..] written before read)")
      ->allow_extra_args(false);
  g->add_option("--dynamic-shared", o->dynamic_shared, "Bytes of dynamic shared memory");
  c->footer(
      "Example: gpueq race reduce.ptx --block 128 --param x=in:f32[128] --param out=f32[1] --param n=128\n"
      "Exit: 0 race-free, 2 race/deadlock/barrier error/undefined behaviour, 3 not a structured CTA, 4 bad input, 5 resource limit.");
  return [c, o]() -> int {
    if (!c->parsed()) return cli::exit_ok;
    try {
      return run(*o);
    } catch (const std::exception& e) {
      return cli::report_failure(e, "race");
    }
  };
});

}  // namespace
