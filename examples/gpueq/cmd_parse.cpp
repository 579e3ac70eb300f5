// `gpueq parse`: read a PTX file and show what gpueq sees in it.
//   gpueq parse kernel.ptx            kernels, parameters, shared arrays, instruction counts,
//                                     lifted idioms, instructions gpueq cannot execute
//   gpueq parse kernel.ptx --json     the same, machine-readable
//   gpueq parse kernel.ptx --print    the parsed IR printed back as PTX (--lifted: after lifting)
// Exit 0 on success, 4 on a parse error (printed as file:line:column: reason).
#include "commands.hpp"

#include <gpueq/ptx.hpp>

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace gpueq;

struct options {
  std::string file;                // the file run_one reads
  std::vector<std::string> files;  // from the command line
  bool json = false, print = false, lifted = false;
  std::uint64_t max_memory = 0;  // enforced by main (memory_budget.cpp)
};

std::string type_text(const ptx::module& m, const ptx::variable& v) {
  std::string s(m.str(v.type));
  if (v.vec) s = ".v" + std::to_string(v.vec) + s;
  return s;
}

std::string dims_text(const ptx::variable& v) {
  std::string s;
  for (auto d : v.dims) s += "[" + (d ? std::to_string(d) : std::string()) + "]";
  return s;
}

// Bytes of one element of a declared type (.b8 -> 1, .f32 -> 4, .v4.f32 -> 16).
std::uint64_t element_bytes(const ptx::module& m, const ptx::variable& v) {
  std::string_view t = m.str(v.type);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] >= '0' && t[i] <= '9') bits = bits * 10 + static_cast<std::uint64_t>(t[i] - '0');
  if (t == ".pred") bits = 8;
  return (bits / 8) * (v.vec ? v.vec : 1);
}

// Module-scope .shared variables a function names, and its own .shared declarations.
std::vector<const ptx::variable*> shared_arrays(const ptx::module& m, const ptx::function& f) {
  std::vector<const ptx::variable*> out;
  boost::unordered_flat_set<std::uint32_t> used;
  auto note = [&](auto&& self, const ptx::operand& o) -> void {
    if (o.kind == ptx::operand_kind::symbol || (o.kind == ptx::operand_kind::address && o.base == ptx::address_base::symbol))
      used.insert(o.name);
    for (auto& e : o.elems) self(self, e);
  };
  for (auto& ins : f.instructions)
    for (auto& o : ins.operands) note(note, o);
  for (auto& g : m.globals)
    if (g.space == ptx::state_space::shared && used.contains(g.name)) out.push_back(&g);
  for (auto& l : f.locals)
    if (l.space == ptx::state_space::shared) out.push_back(&l);
  return out;
}

int run_one(const options& opt) {
  ptx::module m;
  try {
    m = ptx::parse(cli::read_file(opt.file, "PTX file"), opt.file);
  } catch (const support::diagnostic_error& e) {
    if (opt.json) {
      nlohmann::ordered_json j;
      j["file"] = opt.file;
      j["error"] = {{"line", e.line()}, {"column", e.column()}, {"reason", e.reason()}, {"message", e.what()}};
      std::cout << j.dump(2) << '\n';
    } else {
      std::cerr << cli::error_line(e, "parse") << '\n';
    }
    return cli::exit_bad_input;
  }
  cli::print_warnings(m);
  ptx::module lifted = m;
  ptx::lift_report report = ptx::lift(lifted);

  if (opt.print) {
    std::cout << ptx::print(opt.lifted ? lifted : m);
    return cli::exit_ok;
  }

  std::string target;
  for (std::size_t i = 0; i < m.target.size(); ++i) target += (i ? ", " : "") + std::string(m.str(m.target[i]));

  nlohmann::ordered_json j;
  j["file"] = opt.file;
  j["version"] = std::to_string(m.version_major) + "." + std::to_string(m.version_minor);
  j["target"] = target;
  j["address_size"] = m.address_size;
  j["kernels"] = nlohmann::ordered_json::array();
  j["functions"] = nlohmann::ordered_json::array();
  if (!opt.json)
    std::cout << opt.file << ": PTX " << j["version"].get<std::string>() << ", target " << target << ", "
              << m.kernel_count() << (m.kernel_count() == 1 ? " kernel" : " kernels") << '\n';

  for (std::uint32_t fi = 0; fi < m.functions.size(); ++fi) {
    const ptx::function& f = m.functions[fi];
    if (!f.has_body) continue;
    nlohmann::ordered_json k;
    k["name"] = std::string(m.str(f.name));
    k["line"] = f.line;
    k["params"] = nlohmann::ordered_json::array();
    for (auto& p : f.params) {
      nlohmann::ordered_json pj{{"name", std::string(m.str(p.name))}, {"type", type_text(m, p) + dims_text(p)}};
      if (p.ptr) {
        pj["pointer_to"] = std::string(ptx::name(p.ptr_space));
        if (p.ptr_align) pj["align"] = p.ptr_align;
      }
      k["params"].push_back(pj);
    }
    k["shared"] = nlohmann::ordered_json::array();
    for (auto* s : shared_arrays(m, f)) {
      nlohmann::ordered_json sj{{"name", std::string(m.str(s->name))}, {"type", type_text(m, *s) + dims_text(*s)}};
      bool dynamic = !s->dims.empty() && s->dims[0] == 0;
      sj["bytes"] = dynamic ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s->elements() * element_bytes(m, *s));
      sj["align"] = s->align;
      if (s->link == ptx::linkage::extern_) sj["extern"] = true;
      k["shared"].push_back(sj);
    }
    k["instructions"] = f.instructions.size();
    for (auto& d : f.directives) {
      std::vector<std::uint64_t> v = d.values;
      k["directives"][std::string(m.str(d.name))] = v;
    }
    k["lifted"] = nlohmann::ordered_json::array();
    for (auto& li : report.idioms) {
      if (li.function != fi) continue;
      nlohmann::ordered_json lj{{"idiom", li.name}, {"function", std::string(support::name(li.fn))},
                                {"line", li.line}, {"replaced_lines", li.lines}};
      if (li.loc.file) {
        auto it = m.files.find(li.loc.file);
        lj["source"] = (it != m.files.end() ? it->second : std::to_string(li.loc.file)) + ":" +
                       std::to_string(li.loc.line);
      }
      k["lifted"].push_back(lj);
    }
    k["instructions_after_lifting"] = lifted.functions[fi].instructions.size();
    // What a run would stop at, from the opcode table, so nobody learns it one run at a time.
    // Absent when there is nothing to say.
    for (const ptx::unsupported_use& u : ptx::unsupported_instructions(m, f))
      k["unsupported"].push_back({{"opcode", std::string(ptx::name(u.op))},
                                  {"family", std::string(ptx::name(ptx::family(u.op)))},
                                  {"count", u.count},
                                  {"line", u.first_line},
                                  {"message", std::string(u.message)}});
    (f.entry ? j["kernels"] : j["functions"]).push_back(k);

    if (!opt.json) {
      std::cout << (f.entry ? "kernel " : "function ") << k["name"].get<std::string>() << " (line " << f.line << ")\n";
      std::cout << "  params:";
      if (f.params.empty()) std::cout << " none";
      for (std::size_t i = 0; i < f.params.size(); ++i) {
        auto& pj = k["params"][i];
        std::cout << (i ? ", " : " ") << pj["name"].get<std::string>() << " " << pj["type"].get<std::string>();
        if (pj.contains("pointer_to")) std::cout << " (.ptr " << pj["pointer_to"].get<std::string>() << ")";
      }
      std::cout << "\n  shared:";
      if (k["shared"].empty()) std::cout << " none";
      for (std::size_t i = 0; i < k["shared"].size(); ++i) {
        auto& sj = k["shared"][i];
        std::cout << (i ? ", " : " ") << sj["name"].get<std::string>() << " " << sj["type"].get<std::string>();
        if (sj["bytes"].is_null()) std::cout << " (dynamic)";
        else std::cout << " (" << sj["bytes"].get<std::uint64_t>() << " bytes)";
      }
      std::cout << "\n  instructions: " << f.instructions.size() << "\n";
      for (auto& lj : k["lifted"]) {
        std::cout << "  lifted: " << lj["idiom"].get<std::string>() << " -> " << lj["function"].get<std::string>()
                  << " at line " << lj["line"].get<std::uint32_t>() << " (" << lj["replaced_lines"].size()
                  << " instructions";
        if (lj.contains("source")) std::cout << ", " << lj["source"].get<std::string>();
        std::cout << ")\n";
      }
      if (k.contains("unsupported"))
        for (auto& uj : k["unsupported"]) {
          auto count = uj["count"].get<std::uint32_t>();
          std::cout << "  cannot execute: " << uj["opcode"].get<std::string>() << " (" << count
                    << (count == 1 ? " instruction" : " instructions") << ", first at line "
                    << uj["line"].get<std::uint32_t>() << "): " << uj["message"].get<std::string>() << "\n";
        }
    }
  }
  if (opt.json) std::cout << j.dump(2) << '\n';
  return cli::exit_ok;
}

// Several files: each is reported in turn; the exit code is the worst of them. A JSON report
// covers one file (a stream of JSON documents would not be one JSON value).
int run(const options& opt) {
  if (opt.json && opt.files.size() > 1) throw std::runtime_error("--json reports one file; run gpueq parse once per file");
  int worst = cli::exit_ok;
  for (const std::string& f : opt.files) {
    options one = opt;
    one.file = f;
    worst = std::max(worst, run_one(one));
  }
  return worst;
}

const cli::registrar reg{"parse", [](CLI::App& app) -> cli::runner {
  auto opt = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "parse",
      "Parse a PTX file: list its kernels with parameters, shared arrays, instruction counts,\n"
      "lifted math idioms (expf, __expf, tanhf, ...) and the instructions gpueq cannot execute.\n"
      "Exit: 0 parsed, 4 parse error (file:line:column: reason) or unreadable file, 5 resource limit.");
  cmd->add_option("files", opt->files, "the PTX files")->required();
  cmd->add_flag("--json", opt->json, "print a machine-readable report");
  cmd->add_flag("--print", opt->print, "print the parsed module back as PTX");
  cmd->add_flag("--lifted", opt->lifted, "with --print: print the module after idiom lifting (not PTX)");
  cli::add_max_memory_option(cmd, opt->max_memory);
  return [opt] { return run(*opt); };
}};

}  // namespace
