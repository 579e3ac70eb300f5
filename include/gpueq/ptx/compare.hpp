// Structural comparison of two modules with names compared as text (two parses intern names in
// different orders). Used by the round-trip tests: parse(print(m)) must be the same IR as m.
// Positions in the PTX text are not compared; CUDA source lines (.loc) are.
#pragma once

#include <gpueq/ptx/ir.hpp>

#include <string>

namespace gpueq::ptx {

namespace detail {

struct comparer {
  const module& a;
  const module& b;
  std::string why;

  bool name(std::uint32_t x, std::uint32_t y) { return a.str(x) == b.str(y); }
  bool fail(std::string w) {
    if (why.empty()) why = std::move(w);
    return false;
  }

  bool op(const operand& x, const operand& y) {
    if (x.kind != y.kind || x.negated != y.negated || x.is_hex != y.is_hex || x.base != y.base ||
        x.value != y.value || !name(x.name, y.name) || x.elems.size() != y.elems.size())
      return false;
    for (std::size_t i = 0; i < x.elems.size(); ++i)
      if (!op(x.elems[i], y.elems[i])) return false;
    return true;
  }
  bool loc(const source_loc& x, const source_loc& y) {
    return x.file == y.file && x.line == y.line && x.column == y.column && name(x.function_name, y.function_name) &&
           x.inlined_file == y.inlined_file && x.inlined_line == y.inlined_line &&
           x.inlined_column == y.inlined_column;
  }
  bool ins(const instruction& x, const instruction& y) {
    if (x.op != y.op || x.mods.size() != y.mods.size() || x.guarded != y.guarded ||
        x.guard_negated != y.guard_negated || (x.guarded && !name(x.guard, y.guard)) ||
        x.operands.size() != y.operands.size() || x.inline_asm != y.inline_asm || x.target != y.target ||
        !loc(x.loc, y.loc))
      return false;
    for (std::size_t i = 0; i < x.mods.size(); ++i)
      if (!name(x.mods[i], y.mods[i])) return false;
    for (std::size_t i = 0; i < x.operands.size(); ++i)
      if (!op(x.operands[i], y.operands[i])) return false;
    return true;
  }
  bool var(const variable& x, const variable& y) {
    if (x.space != y.space || x.link != y.link || x.align != y.align || x.vec != y.vec || !name(x.type, y.type) ||
        !name(x.name, y.name) || x.dims != y.dims || x.has_init != y.has_init || x.init.size() != y.init.size() ||
        x.ptr != y.ptr || x.ptr_space != y.ptr_space || x.ptr_align != y.ptr_align)
      return false;
    for (std::size_t i = 0; i < x.init.size(); ++i)
      if (!op(x.init[i], y.init[i])) return false;
    return true;
  }
  bool vars(const std::vector<variable>& x, const std::vector<variable>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!var(x[i], y[i])) return false;
    return true;
  }
  bool fn(const function& x, const function& y) {
    std::string n(a.str(x.name));
    if (x.entry != y.entry || x.link != y.link || !name(x.name, y.name) || x.noreturn != y.noreturn ||
        x.has_body != y.has_body)
      return fail("function " + n + ": header differs");
    if (!vars(x.params, y.params) || !vars(x.returns, y.returns)) return fail("function " + n + ": parameters differ");
    if (!vars(x.locals, y.locals)) return fail("function " + n + ": local declarations differ");
    if (x.directives.size() != y.directives.size()) return fail("function " + n + ": directives differ");
    for (std::size_t i = 0; i < x.directives.size(); ++i)
      if (!name(x.directives[i].name, y.directives[i].name) || x.directives[i].values != y.directives[i].values)
        return fail("function " + n + ": directives differ");
    if (x.regs.size() != y.regs.size()) return fail("function " + n + ": register declarations differ");
    for (std::size_t i = 0; i < x.regs.size(); ++i) {
      const reg_decl &r = x.regs[i], &s = y.regs[i];
      if (!name(r.type, s.type) || !name(r.name, s.name) || r.vec != s.vec || r.count != s.count || r.range != s.range)
        return fail("function " + n + ": register declarations differ");
    }
    if (x.instructions.size() != y.instructions.size()) return fail("function " + n + ": instruction counts differ");
    for (std::size_t i = 0; i < x.instructions.size(); ++i)
      if (!ins(x.instructions[i], y.instructions[i]))
        return fail("function " + n + ": instruction " + std::to_string(i) + " (PTX line " +
                    std::to_string(x.instructions[i].line) + ") differs");
    if (x.body != y.body) return fail("function " + n + ": body order differs");
    if (x.label_names.size() != y.label_names.size()) return fail("function " + n + ": labels differ");
    for (std::size_t i = 0; i < x.label_names.size(); ++i)
      if (!name(x.label_names[i], y.label_names[i])) return fail("function " + n + ": labels differ");
    if (x.prototypes.size() != y.prototypes.size()) return fail("function " + n + ": call prototypes differ");
    for (std::size_t i = 0; i < x.prototypes.size(); ++i)
      if (!name(x.prototypes[i], y.prototypes[i])) return fail("function " + n + ": call prototypes differ");
    if (x.locs.size() != y.locs.size()) return fail("function " + n + ": .loc directives differ");
    for (std::size_t i = 0; i < x.locs.size(); ++i)
      if (!loc(x.locs[i], y.locs[i])) return fail("function " + n + ": .loc directives differ");
    return true;
  }
  bool run() {
    if (a.version_major != b.version_major || a.version_minor != b.version_minor) return fail("version differs");
    if (a.target.size() != b.target.size()) return fail("target differs");
    for (std::size_t i = 0; i < a.target.size(); ++i)
      if (!name(a.target[i], b.target[i])) return fail("target differs");
    if (a.address_size != b.address_size) return fail("address size differs");
    if (a.files != b.files) return fail(".file directives differ");
    if (!vars(a.globals, b.globals)) return fail("module variables differ");
    if (a.sections != b.sections) return fail("sections differ");
    if (a.functions.size() != b.functions.size()) return fail("function counts differ");
    for (std::size_t i = 0; i < a.functions.size(); ++i)
      if (!fn(a.functions[i], b.functions[i])) return false;
    return true;
  }
};

}  // namespace detail

// Empty when the modules are the same IR; otherwise the first difference, in words.
inline std::string difference(const module& a, const module& b) {
  detail::comparer c{a, b, {}};
  if (c.run()) return {};
  return c.why.empty() ? "modules differ" : c.why;
}

}  // namespace gpueq::ptx
