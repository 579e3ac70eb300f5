// The body of lift (declared and documented in ptx/lift.hpp): included by lift.hpp in the
// header-only build, compiled once into gpueq::compiled otherwise (support/entry.hpp,
// src/ptx_entries.cpp).
#pragma once

#include <gpueq/ptx/lift.hpp>

namespace gpueq::ptx {

GPUEQ_ENTRY lift_report lift(module& m) {
  lift_report report;
  const auto& patterns = detail::compiled_idioms();
  // pow's helpers, compared with the template's before anything is lifted (their exp would be).
  detail::pow_helper_map pow_helpers;
  if (detail::holds_template_anchor(m))
    for (const auto& t : detail::region_templates())
      if (t.helper) detail::pow_helpers(m, t, pow_helpers);
  for (std::uint32_t fi = 0; fi < m.functions.size(); ++fi) {
    function& f = m.functions[fi];
    if (f.instructions.empty()) continue;
    // The multi-block sequences (double-precision log and exp, lift_regions.hpp) first, on the
    // function as parsed.
    std::vector<std::size_t> found;  // indices into report.idioms of this function
    {
      std::vector<bool> gone(f.instructions.size(), false);
      auto regions = detail::region_lifter(m, f, gone, &pow_helpers).run();
      if (!regions.empty()) {
        std::vector<std::uint32_t> new_index(f.instructions.size());
        for (std::uint32_t i = 0, n = 0; i < f.instructions.size(); ++i) {
          new_index[i] = n;
          n += !gone[i];
        }
        for (auto& r : regions) {
          lifted_idiom li;
          li.name = std::string(r.t->name);
          li.fn = r.t->fn;
          li.function = fi;
          li.instruction = new_index[r.at];
          li.line = f.instructions[r.at].line;
          li.loc = f.instructions[r.at].loc;
          li.lines = r.lines;
          std::sort(li.lines.begin(), li.lines.end());
          li.lines.erase(std::unique(li.lines.begin(), li.lines.end()), li.lines.end());
          found.push_back(report.idioms.size());
          report.idioms.push_back(std::move(li));
        }
        detail::compact(f, gone);
      }
    }
    std::vector<bool> dead(f.instructions.size(), false);
    // Instructions that start a basic block: label targets.
    std::vector<bool> leader(f.instructions.size() + 1, false);
    for (auto& [label, at] : f.labels) leader[at] = true;
    detail::dataflow df;
    df.build(f, dead);
    for (const detail::pattern& p : patterns) {
      opcode root_op = p.nodes.back().op;
      for (std::uint32_t i = 0; i < f.instructions.size(); ++i) {
        if (dead[i] || f.instructions[i].op != root_op) continue;
        detail::matcher mt(m, f, df, dead, p);
        if (!mt.match_root(i)) continue;
        const auto& st = mt.result();
        std::vector<std::uint32_t> all(st.node_ins.begin(), st.node_ins.end());
        all.insert(all.end(), st.const_movs.begin(), st.const_movs.end());
        // The block/control-flow checks cover the computing instructions only: a constant's mov
        // has a single definition in the function (the matcher checks it), so it may sit anywhere,
        // e.g. hoisted before a loop and shared by several expf sequences.
        std::uint32_t first = *std::min_element(st.node_ins.begin(), st.node_ins.end());
        if (*std::max_element(st.node_ins.begin(), st.node_ins.end()) != i) continue;  // the root comes last
        // One basic block, no control flow inside, inputs not redefined inside.
        auto first_use = [&](std::uint32_t reg) {
          std::uint32_t at = i;
          for (auto k : st.node_ins) {
            const instruction& ins = f.instructions[k];
            bool uses = false;
            for (std::size_t o = 1; o < ins.operands.size(); ++o)
              detail::dataflow::regs_of(ins.operands[o], [&](std::uint32_t r) { uses = uses || r == reg; });
            if (uses) at = std::min(at, k);
          }
          return at;
        };
        bool ok = true;
        for (std::uint32_t k = first; k <= i && ok; ++k) {
          if (k > first && leader[k]) ok = false;
          const instruction& ins = f.instructions[k];
          if (dead[k]) continue;
          if (k < i && (ins.op == opcode::bra || ins.op == opcode::call || ins.op == opcode::ret ||
                        ins.op == opcode::exit || ins.op == opcode::brx_idx))
            ok = false;
          // An input may not change between its first use in the idiom and the root (where the
          // lifted instruction reads it); before its first use it may (an addend computed by
          // the preceding code).
          if (k > first && !ins.operands.empty() && std::find(all.begin(), all.end(), k) == all.end())
            for (auto& v : st.vars)
              if (v && v->kind == operand_kind::reg && k > first_use(v->name)) {
                const operand& d = ins.operands[0];
                detail::dataflow::regs_of(d, [&](std::uint32_t r) { ok = ok && r != v->name; });
              }
        }
        if (!ok) continue;
        // Intermediate results must be used only inside the idiom.
        auto inside = [&](std::uint32_t reg) {
          std::uint32_t n = 0;
          for (auto k : all) {
            const instruction& ins = f.instructions[k];
            if (ins.guarded && ins.guard == reg) ++n;
            for (auto& o : ins.operands) detail::dataflow::regs_of(o, [&](std::uint32_t r) { n += r == reg; });
          }
          return n;
        };
        auto total = [&](std::uint32_t reg) {
          auto it = df.occurrences.find(reg);
          return it == df.occurrences.end() ? 0u : it->second;
        };
        for (std::size_t n = 0; n + 1 < st.node_ins.size() && ok; ++n) {
          std::uint32_t reg = f.instructions[st.node_ins[n]].operands[0].name;
          if (inside(reg) != total(reg)) ok = false;
        }
        if (!ok) continue;
        // Rewrite: the root becomes the lifted instruction; the rest dies.
        lifted_idiom li;
        li.name = std::string(p.def->name);
        li.fn = p.def->fn;
        li.function = fi;
        li.line = f.instructions[i].line;
        li.loc = f.instructions[i].loc;
        for (auto k : all) li.lines.push_back(f.instructions[k].line);
        std::sort(li.lines.begin(), li.lines.end());
        li.lines.erase(std::unique(li.lines.begin(), li.lines.end()), li.lines.end());
        instruction& root = f.instructions[i];
        instruction lifted;
        lifted.op = opcode::lifted;
        lifted.lifted_fn = p.def->fn;
        std::string_view type = last_type(m, root);
        if (!type.empty()) lifted.mods.push_back(m.names.intern(type));
        if (p.def->adds_last_input) lifted.mods.push_back(m.names.intern(".add"));
        lifted.operands.push_back(root.operands[0]);
        for (auto v : p.inputs) lifted.operands.push_back(*st.vars[v]);
        lifted.line = root.line;
        lifted.column = root.column;
        lifted.loc = root.loc;
        lifted.inline_asm = root.inline_asm;
        lifted.lifted_lines = li.lines;
        for (std::size_t n = 0; n + 1 < st.node_ins.size(); ++n) dead[st.node_ins[n]] = true;
        for (auto k : st.const_movs) {
          std::uint32_t reg = f.instructions[k].operands[0].name;
          if (inside(reg) == total(reg)) dead[k] = true;
        }
        root = std::move(lifted);
        li.instruction = i;  // remapped after compaction
        found.push_back(report.idioms.size());
        report.idioms.push_back(std::move(li));
        df.build(f, dead);
      }
    }
    // The precise logf sequence spans two blocks: its own recognizer (see logf_recognizer).
    for (std::uint32_t i = 0; i < f.instructions.size(); ++i) {
      if (dead[i] || f.instructions[i].op != opcode::selp) continue;
      auto hit = detail::logf_recognizer(m, f, dead).at(i);
      if (!hit) continue;
      lifted_idiom li;
      li.name = "logf";
      li.fn = real_function::log;
      li.function = fi;
      li.line = f.instructions[i].line;
      li.loc = f.instructions[i].loc;
      li.lines.push_back(f.instructions[i].line);
      for (auto k : hit->slice) li.lines.push_back(f.instructions[k].line);
      std::sort(li.lines.begin(), li.lines.end());
      li.lines.erase(std::unique(li.lines.begin(), li.lines.end()), li.lines.end());
      instruction& root = f.instructions[i];
      instruction lifted;
      lifted.op = opcode::lifted;
      lifted.lifted_fn = real_function::log;
      lifted.mods.push_back(m.names.intern(".f32"));
      lifted.operands.push_back(root.operands[0]);
      lifted.operands.push_back(hit->x);
      lifted.line = root.line;
      lifted.column = root.column;
      lifted.loc = root.loc;
      lifted.inline_asm = root.inline_asm;
      lifted.lifted_lines = li.lines;
      for (auto k : hit->slice) dead[k] = true;
      root = std::move(lifted);
      li.instruction = i;
      found.push_back(report.idioms.size());
      report.idioms.push_back(std::move(li));
    }
    if (!found.empty()) {
      std::vector<std::uint32_t> new_index(f.instructions.size());
      std::uint32_t n = 0;
      for (std::size_t i = 0; i < f.instructions.size(); ++i) {
        new_index[i] = n;
        if (!dead[i]) ++n;
      }
      for (auto k : found) report.idioms[k].instruction = new_index[report.idioms[k].instruction];
      detail::compact(f, dead);
    }
  }
  std::stable_sort(report.idioms.begin(), report.idioms.end(), [](const lifted_idiom& a, const lifted_idiom& b) {
    return a.function != b.function ? a.function < b.function : a.instruction < b.instruction;
  });
  return report;
}

}  // namespace gpueq::ptx
