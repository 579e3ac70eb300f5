// The PTX printer: ptx::module -> PTX text that ptxas accepts and that parses back to the same IR
// (declarations, modifiers, operands, `.loc` lines and inline-asm markers included; registers of
// `{ }` blocks by their source spelling, which parses back to the same block-scoped names). Lifted
// pseudo-instructions (`gpueq.lifted.exp ...`) print for reading only; they are not PTX.
//
//   std::string text = ptx::print(module);
//   std::string one  = ptx::print(module, module.functions[0].instructions[3]);
#pragma once

#include <gpueq/ptx/ir.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpueq::ptx {

namespace detail {

class printer {
 public:
  explicit printer(const module& m) : m_(m) {}

  std::string module_text() {
    out_ += ".version " + std::to_string(m_.version_major) + "." + std::to_string(m_.version_minor) + "\n";
    if (!m_.target.empty()) {
      out_ += ".target ";
      for (std::size_t i = 0; i < m_.target.size(); ++i) {
        if (i) out_ += ", ";
        out_ += m_.str(m_.target[i]);
      }
      out_ += '\n';
    }
    if (m_.has_address_size) out_ += ".address_size " + std::to_string(m_.address_size) + "\n";
    out_ += '\n';
    for (auto [kind, index] : m_.order) {
      switch (kind) {
        case 0:
          variable_text(m_.globals[index]);
          out_ += ";\n";
          break;
        case 1:
          function_text(m_.functions[index]);
          break;
        case 2:
          out_ += "\t";
          out_ += m_.sections[index];
          out_ += '\n';
          break;
        case 3:
          out_ += "\t.file\t" + std::to_string(index) + " \"" + m_.files.at(index) + "\"\n";
          break;
        default: break;
      }
    }
    return std::move(out_);
  }

  void instruction_text(const instruction& i) {
    if (i.guarded) {
      out_ += i.guard_negated ? "@!" : "@";
      out_ += register_spelling(m_.str(i.guard));
      out_ += ' ';
    }
    out_ += name(i.op);
    if (i.op == opcode::lifted) {
      out_ += '.';
      out_ += name(i.lifted_fn);
    }
    for (auto mod : i.mods) out_ += m_.str(mod);
    for (std::size_t k = 0; k < i.operands.size(); ++k) {
      out_ += k ? ", " : " \t";
      operand_text(i.operands[k]);
    }
    out_ += ';';
  }

  std::string take() { return std::move(out_); }

 private:
  void number(std::int64_t v) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  void hex(std::uint64_t v, int width) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
    int n = static_cast<int>(r.ptr - buf);
    for (int k = n; k < width; ++k) out_ += '0';
    for (char* p = buf; p != r.ptr; ++p) out_ += (*p >= 'a' && *p <= 'f') ? static_cast<char>(*p - 'a' + 'A') : *p;
  }
  void offset(std::int64_t v) {
    if (v == 0) return;
    out_ += '+';
    number(v);
  }

  void operand_text(const operand& o) {
    switch (o.kind) {
      case operand_kind::reg:
      case operand_kind::special:
        if (o.negated) out_ += '!';
        out_ += o.kind == operand_kind::reg ? register_spelling(m_.str(o.name)) : m_.str(o.name);
        break;
      case operand_kind::imm_int:
        if (o.is_hex) {
          std::uint64_t u = static_cast<std::uint64_t>(o.value);
          if (o.value < 0) {
            out_ += '-';
            u = 0 - u;
          }
          out_ += "0x";
          hex(u, 0);
        } else {
          number(o.value);
        }
        break;
      case operand_kind::imm_f32:
        out_ += "0f";
        hex(static_cast<std::uint64_t>(o.value) & 0xffffffffULL, 8);
        break;
      case operand_kind::imm_f64:
        out_ += "0d";
        hex(static_cast<std::uint64_t>(o.value), 16);
        break;
      case operand_kind::symbol:
        out_ += m_.str(o.name);
        offset(o.value);
        break;
      case operand_kind::address:
        out_ += '[';
        if (o.base == address_base::none) number(o.value);
        else {
          out_ += o.base == address_base::reg ? register_spelling(m_.str(o.name)) : m_.str(o.name);
          offset(o.value);
        }
        for (const operand& e : o.elems) {  // tensor coordinates: [map, {c0, c1}]
          out_ += ", ";
          operand_text(e);
        }
        out_ += ']';
        break;
      case operand_kind::vector:
      case operand_kind::list:
        out_ += o.kind == operand_kind::vector ? '{' : '(';
        for (std::size_t k = 0; k < o.elems.size(); ++k) {
          if (k) out_ += ", ";
          operand_text(o.elems[k]);
        }
        out_ += o.kind == operand_kind::vector ? '}' : ')';
        break;
      case operand_kind::pair:
        for (std::size_t k = 0; k < o.elems.size(); ++k) {
          if (k) out_ += '|';
          operand_text(o.elems[k]);
        }
        break;
      case operand_kind::sink:
        out_ += '_';
        break;
    }
  }

  void variable_text(const variable& v) {
    if (v.link != linkage::none) {
      out_ += name(v.link);
      out_ += ' ';
    }
    out_ += name(v.space);
    if (v.align) out_ += " .align " + std::to_string(v.align);
    if (v.vec) out_ += " .v" + std::to_string(v.vec);
    out_ += ' ';
    out_ += m_.str(v.type);
    if (v.ptr) {
      out_ += " .ptr";
      if (v.ptr_space != state_space::generic) {
        out_ += ' ';
        out_ += name(v.ptr_space);
      }
      if (v.ptr_align) out_ += " .align " + std::to_string(v.ptr_align);
    }
    out_ += ' ';
    out_ += m_.str(v.name);
    for (auto d : v.dims) {
      out_ += '[';
      if (d) out_ += std::to_string(d);
      out_ += ']';
    }
    if (v.has_init) {
      out_ += " = ";
      bool braces = !v.dims.empty() || v.init.size() != 1;
      if (braces) out_ += '{';
      for (std::size_t k = 0; k < v.init.size(); ++k) {
        if (k) out_ += ", ";
        operand_text(v.init[k]);
      }
      if (braces) out_ += '}';
    }
  }

  void function_text(const function& f) {
    if (f.link != linkage::none) {
      out_ += name(f.link);
      out_ += ' ';
    }
    out_ += f.entry ? ".entry " : ".func ";
    if (!f.entry && !f.returns.empty()) param_list(f.returns), out_ += ' ';
    out_ += m_.str(f.name);
    if (!f.params.empty() || f.entry) param_list(f.params);
    out_ += '\n';
    for (auto& d : f.directives) {
      out_ += m_.str(d.name);
      for (std::size_t k = 0; k < d.values.size(); ++k) {
        out_ += k ? ", " : " ";
        out_ += std::to_string(d.values[k]);
      }
      out_ += '\n';
    }
    if (f.noreturn) out_ += ".noreturn\n";
    if (!f.has_body) {
      out_ += ";\n\n";
      return;
    }
    out_ += "{\n";
    bool in_asm = false;
    for (auto [kind, index] : f.body) {
      switch (kind) {
        case body_item_kind::instruction: {
          const instruction& i = f.instructions[index];
          if (i.inline_asm != in_asm) {
            out_ += i.inline_asm ? "\t// begin inline asm\n" : "\t// end inline asm\n";
            in_asm = i.inline_asm;
          }
          out_ += '\t';
          instruction_text(i);
          out_ += '\n';
          break;
        }
        case body_item_kind::label:
          out_ += m_.str(f.label_names[index]);
          out_ += ":\n";
          break;
        case body_item_kind::reg_decl: {
          const reg_decl& r = f.regs[index];
          out_ += "\t.reg ";
          if (r.vec) out_ += ".v" + std::to_string(r.vec) + " ";
          out_ += m_.str(r.type);
          out_ += ' ';
          out_ += register_spelling(m_.str(r.name));
          if (r.range) out_ += "<" + std::to_string(r.count) + ">";
          out_ += ";\n";
          break;
        }
        case body_item_kind::variable:
          out_ += '\t';
          variable_text(f.locals[index]);
          out_ += ";\n";
          break;
        case body_item_kind::loc: loc_text(f.locs[index]); break;
        case body_item_kind::block_open: out_ += "\t{\n"; break;
        case body_item_kind::block_close: out_ += "\t}\n"; break;
        case body_item_kind::prototype:
          out_ += '\t';
          out_ += m_.str(f.prototypes[index]);
          out_ += '\n';
          break;
        case body_item_kind::pragma:
          out_ += "\t.pragma \"";
          out_ += m_.str(f.pragmas[index]);
          out_ += "\";\n";
          break;
      }
    }
    if (in_asm) out_ += "\t// end inline asm\n";
    out_ += "}\n\n";
  }

  void loc_text(const source_loc& l) {
    out_ += "\t.loc\t" + std::to_string(l.file) + " " + std::to_string(l.line) + " " + std::to_string(l.column);
    if (l.function_name) {
      out_ += ", function_name ";
      out_ += m_.str(l.function_name);
    }
    if (l.inlined_file)
      out_ += ", inlined_at " + std::to_string(l.inlined_file) + " " + std::to_string(l.inlined_line) + " " +
              std::to_string(l.inlined_column);
    out_ += '\n';
  }

  void param_list(const std::vector<variable>& ps) {
    out_ += '(';
    for (std::size_t k = 0; k < ps.size(); ++k) {
      out_ += k ? ",\n\t" : "\n\t";
      variable_text(ps[k]);
    }
    if (!ps.empty()) out_ += '\n';
    out_ += ')';
  }

  const module& m_;
  std::string out_;
};

}  // namespace detail

inline std::string print(const module& m) { return detail::printer(m).module_text(); }

inline std::string print(const module& m, const instruction& i) {
  detail::printer p(m);
  p.instruction_text(i);
  return p.take();
}

}  // namespace gpueq::ptx
