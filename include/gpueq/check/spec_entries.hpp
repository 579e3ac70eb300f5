// The bodies of the pair spec's entry points (declared and documented in check/spec.hpp): included
// by spec.hpp in the header-only build, compiled once into gpueq::compiled otherwise
// (support/entry.hpp, src/check_entries.cpp).
#pragma once

#include <gpueq/check/spec.hpp>

namespace gpueq::check {

GPUEQ_ENTRY std::size_t resolve_kernel(const pair_spec& s, const char* side, const kernel_spec& k, const ptx::module& m) {
  const ptx::function* f = nullptr;
  if (!k.entry.empty()) {
    f = m.find_function(k.entry);
    if (!f || !f->entry) detail::spec_error(s, std::string(side) + ": '" + k.ptx + "' has no kernel (.entry) named '" + k.entry + "'");
  } else {
    for (auto& g : m.functions)
      if (g.entry && g.has_body) {
        if (f) detail::spec_error(s, std::string(side) + ": '" + k.ptx + "' has several kernels; name one with \"entry\"");
        f = &g;
      }
    if (!f) detail::spec_error(s, std::string(side) + ": '" + k.ptx + "' has no kernel");
  }
  if (k.params.size() != f->params.size())
    detail::spec_error(s, std::string(side) + ": kernel '" + std::string(m.str(f->name)) + "' has " +
                      std::to_string(f->params.size()) + " parameters but \"params\" names " +
                      std::to_string(k.params.size()));
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const std::string& p = k.params[i];
    bool is_tensor = s.tensors.contains(p), is_scalar = s.scalars.contains(p);
    if (auto mp = s.tensor_maps.find(p); mp != s.tensor_maps.end()) {
      const ptx::variable& v = f->params[i];
      if (detail::param_bytes(m, v) != exec::tma::map_bytes || (v.align && v.align < 64))
        detail::spec_error(s, std::string(side) + ": parameter " + std::to_string(i) + " ('" + p +
                                  "') is a tensor map but the PTX parameter is not `.param .align 64 .b8 " +
                                  std::string(m.str(v.name)) + "[128]` (" + k.ptx + ":" + std::to_string(v.line) + ")");
      detail::map_of(s, p, mp->second);
      continue;
    }
    if (auto st = s.structs.find(p); st != s.structs.end()) {
      detail::check_struct(s, side, k, i, p, st->second, f->params[i], m);
      continue;
    }
    if (!is_tensor && !is_scalar)
      detail::spec_error(s, std::string(side) + ": parameter " + std::to_string(i) + " is '" + p +
                        "', which is neither a tensor, a scalar, a struct nor a tensor map of the spec");
    std::string_view type = m.str(f->params[i].type);
    bool wide = type == ".u64" || type == ".s64" || type == ".b64";
    if (is_tensor && !wide)
      detail::spec_error(s, std::string(side) + ": parameter " + std::to_string(i) + " ('" + p + "') is a tensor but the PTX parameter is " +
                        std::string(type) + ", not a 64-bit address");
    if (is_scalar && !s.scalars.at(p).symbolic)
      if (std::string why = scalar_problem(s.scalars.at(p).value, type); !why.empty())
        detail::spec_error(s, std::string(side) + ": parameter " + std::to_string(i) + " ('" + p + "', " + std::string(type) + " at " +
                          k.ptx + ":" + std::to_string(f->params[i].line) + "): " + why);
  }
  for (auto& c : k.ctas)
    for (int d = 0; d < 3; ++d)
      if (c[static_cast<std::size_t>(d)] >= k.grid[static_cast<std::size_t>(d)])
        detail::spec_error(s, std::string(side) + ": a CTA listed in \"ctas\" is outside the grid");
  if (k.cluster[0]) {
    std::uint64_t ctas = 1;
    for (std::size_t d = 0; d < 3; ++d) {
      ctas *= k.cluster[d];
      if (k.grid[d] % k.cluster[d] != 0)
        detail::spec_error(s, std::string(side) + ": the grid is not a whole number of clusters (grid " +
                                  std::to_string(k.grid[d]) + " and cluster " + std::to_string(k.cluster[d]) + " along " +
                                  "xyz"[d] + ")");
    }
    if (ctas > 16) detail::spec_error(s, std::string(side) + ": a cluster of " + std::to_string(ctas) + " CTAs; at most 16");
  }
  return static_cast<std::size_t>(f - m.functions.data());
}

GPUEQ_ENTRY resolved_pair resolve(const pair_spec& s) {
  detail::check_limits(s);
  resolved_pair r;
  check_contents(s);
  if (s.reference_spec) {  // the reference is a specification: the candidate is the one kernel
    r.candidate = ptx::parse_file(s.candidate.path);
    r.candidate_entry = resolve_kernel(s, "candidate", s.candidate, r.candidate);
    return r;
  }
  r.reference = ptx::parse_file(s.reference.path);
  r.candidate = s.single ? r.reference : ptx::parse_file(s.candidate.path);
  r.reference_entry = resolve_kernel(s, s.single ? "kernel" : "reference", s.reference, r.reference);
  r.candidate_entry = s.single ? r.reference_entry : resolve_kernel(s, "candidate", s.candidate, r.candidate);
  for (auto& [name, t] : s.tensors) {
    bool used = false;
    for (auto* k : {&s.reference, &s.candidate})
      for (auto& p : k->params) {
        used = used || p == name;
        if (auto st = s.structs.find(p); st != s.structs.end())
          for (auto& f : st->second.fields) used = used || f.name == name;
        if (auto mp = s.tensor_maps.find(p); mp != s.tensor_maps.end()) used = used || mp->second.tensor == name;
      }
    if (!used) detail::spec_error(s, "tensor '" + name + "' is not a parameter of either kernel");
  }
  return r;
}

}  // namespace gpueq::check
