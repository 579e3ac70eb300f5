// Source positions for race reports, from a parsed PTX kernel: per instruction index, the PTX
// line, the CUDA file:line of the last `.loc` before it, and the opcode. Apart from report.hpp so that
// printing a report does not pull in the PTX IR (and Boost containers) unless it comes from PTX.
#pragma once

#include <gpueq/ptx/ir.hpp>
#include <gpueq/race/report.hpp>

#include <utility>
#include <vector>

namespace gpueq::race {

inline std::vector<source_line> source_lines(const ptx::module& m, const ptx::function& f) {
  std::vector<source_line> lines;
  lines.reserve(f.instructions.size());
  for (auto& i : f.instructions) {
    source_line l;
    l.ptx_line = i.line;
    l.opcode = ptx::name(i.op);
    if (i.op == ptx::opcode::cp_reduce_async_bulk)  // `.tensor` is a modifier of the opcode
      for (std::uint32_t mod : i.mods)
        if (m.str(mod) == ".tensor") l.opcode = "cp.reduce.async.bulk.tensor";
    if (i.loc.file != 0) {
      if (auto it = m.files.find(i.loc.file); it != m.files.end()) l.cuda_file = it->second;
      l.cuda_line = i.loc.line;
    }
    lines.push_back(std::move(l));
  }
  return lines;
}

}  // namespace gpueq::race
