// The PTX parser: text -> ptx::module. A hand-written recursive-descent parser over the on-demand
// lexer, with no recursion on nesting depth (blocks and initializer braces are counted), so any
// byte string either parses or throws a support::diagnostic_error with file:line:column and a
// one-line reason; it never crashes or hangs. Instructions are split on `;`, not on newlines;
// register types come from the instruction, not from the register's name. An opcode outside the
// opcode table (ir.hpp) is an error naming it.
//
// Registers follow PTX's scoping: a `.reg` declared inside a `{ }` block (as nvcc wraps every
// inline asm statement, with names such as `p` or `%p1` declared again in many blocks) is visible
// from its declaration to the end of the block and shadows a register of the same name outside
// it; declaring a name twice in one block, or using one before its declaration or after its block,
// is an error, as in ptxas. The parser gives each block's registers names of their own (`p#3`,
// see ptx::register_spelling in ir.hpp), so the decoder, the engine and the race reports, which
// key registers by name, see distinct registers; the printer writes the source spelling back.
//
//   ptx::module m = ptx::parse(text, "kernel.ptx");      // throws support::diagnostic_error
//   ptx::module m = ptx::parse_file("kernel.ptx");
#pragma once

#include <gpueq/ptx/ir.hpp>
#include <gpueq/ptx/lexer.hpp>
#include <gpueq/ptx/parser_operands.hpp>
#include <gpueq/support/diagnostics.hpp>
#include <gpueq/support/entry.hpp>
#include <gpueq/support/files.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace gpueq::ptx {

using parse_error = support::diagnostic_error;

namespace detail {

class parser : operand_parser {
 public:
  parser(std::string_view text, std::string file) : operand_parser(text, std::move(file)) {}

  module run() {
    while (lex_.peek().kind != token_kind::end) module_item();
    check_complete(lex_.peek());
    return std::move(m_);
  }

 private:
  // --- module level --------------------------------------------------------------------------
  // A module that parsed to its end but is not a PTX module: empty (no `.version`, which the PTX
  // ISA requires first), or cut off after its header, so nothing of it can be checked. A file cut
  // inside a function or declaration fails where the text stops; a file cut between two items
  // parses, and what is left is reported by the command that needs the missing kernel.
  void check_complete(const token& end) const {
    bool items = !m_.functions.empty() || !m_.globals.empty();
    if (!seen_version_)
      fail(end, items ? "no .version directive (a PTX module begins with one, e.g. .version 8.0)"
                      : "empty PTX file: no .version directive and no kernel");
    if (!items) fail(end, "the PTX file ends after its module header: no kernel, function or variable (truncated?)");
  }

  void warn(const token& at, std::string reason) {
    m_.warnings.push_back(support::diagnostic{m_.file, {at.line, at.column}, std::move(reason)});
  }

  // The ISA versions and targets of the PTX ISA up to 9.0 (CUDA 13). Others still parse, since
  // the syntax rarely changes between versions, but are warned about: gpueq's semantics and opcode
  // table follow these versions, and a typo (`.target sm_999`) should not pass unnoticed.
  static bool known_version(std::uint32_t major, std::uint32_t minor) {
    static constexpr std::uint32_t last_minor[] = {0, 4, 3, 2, 3, 0, 5, 8, 8, 0};  // by major version
    return major >= 1 && major < std::size(last_minor) && minor <= last_minor[major];
  }
  static bool known_target(std::string_view t) {
    for (std::string_view k : {"texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"})
      if (t == k) return true;
    if (t.starts_with("sm_")) t.remove_prefix(3);
    else if (t.starts_with("compute_")) t.remove_prefix(8);
    else return false;
    if (t.ends_with('a') || t.ends_with('f')) t.remove_suffix(1);  // sm_90a, sm_100f
    for (std::string_view k : {"10", "11", "12", "13", "20", "21", "30", "32", "35", "37", "50", "52", "53", "60", "61",
                               "62", "70", "72", "75", "80", "86", "87", "88", "89", "90", "100", "101", "103", "110",
                               "120", "121"})
      if (t == k) return true;
    return false;
  }

  void module_item() {
    token t = peek();
    if (t.kind != token_kind::directive) fail(t, "expected a directive at module scope, found " + show(t));
    std::string_view d = t.text;
    if (d == ".version") {
      next();
      token v = next();
      std::string_view s = v.text;
      auto dot = s.find('.');
      if (v.kind != token_kind::number || dot == std::string_view::npos) fail(v, "expected a version like 9.0");
      auto [p1, e1] = std::from_chars(s.data(), s.data() + dot, m_.version_major);
      auto [p2, e2] = std::from_chars(s.data() + dot + 1, s.data() + s.size(), m_.version_minor);
      if (e1 != std::errc{} || e2 != std::errc{} || p1 != s.data() + dot || p2 != s.data() + s.size())
        fail(v, "malformed version " + show(v));
      seen_version_ = true;
      if (!known_version(m_.version_major, m_.version_minor))
        warn(v, "unknown PTX ISA version " + std::string(s.substr(0, 20)) + " (gpueq knows 1.0 to 9.0)");
    } else if (d == ".target") {
      next();
      do {
        token tg = expect_ident("a target such as sm_80");
        if (!known_target(tg.text))
          warn(tg, "unknown target '" + std::string(tg.text.substr(0, 60)) + "' (gpueq knows sm_10 to sm_121)");
        m_.target.push_back(intern(tg.text));
      } while (accept(','));
    } else if (d == ".address_size") {
      next();
      token n = next();
      std::uint64_t v = integer(n);
      if (v != 32 && v != 64) fail(n, "address size must be 32 or 64");
      m_.address_size = static_cast<std::uint32_t>(v);
      m_.has_address_size = true;
    } else if (d == ".file") {
      next();
      token n = next();
      auto idx = static_cast<std::uint32_t>(integer(n));
      token path = next();
      if (path.kind != token_kind::string) fail(path, "expected a file name string after .file");
      if (accept(',')) {  // optional mtime, size
        integer(next());
        if (accept(',')) integer(next());
      }
      if (!m_.files.contains(idx)) m_.file_order.push_back(idx);
      m_.files[idx] = std::string(path.text);
      m_.order.emplace_back(3, idx);
    } else if (d == ".section") {
      section();
    } else if (d == ".pragma") {
      next();
      if (next().kind != token_kind::string) fail(t, "expected a string after .pragma");
      expect(';', "after .pragma");
    } else {
      linkage l = linkage_prefix();
      token k = peek();
      if (k.text == ".entry" || k.text == ".func") {
        function_decl(l);
      } else if (k.text == ".global" || k.text == ".const" || k.text == ".shared" || k.text == ".local") {
        variable v = variable_decl(l, true);
        expect(';', "after a variable declaration");
        m_.order.emplace_back(0, static_cast<std::uint32_t>(m_.globals.size()));
        m_.globals.push_back(std::move(v));
      } else {
        fail(k, "unsupported module directive " + show(k));
      }
      return;
    }
  }

  linkage linkage_prefix() {
    std::string_view s = peek().text;
    linkage l = linkage::none;
    if (peek().kind != token_kind::directive) return l;
    if (s == ".visible") l = linkage::visible;
    else if (s == ".extern") l = linkage::extern_;
    else if (s == ".weak") l = linkage::weak;
    else if (s == ".common") l = linkage::common;
    else return l;
    next();
    return l;
  }

  // `.section .debug_x { ... }`, kept verbatim.
  void section() {
    token start = next();
    std::size_t depth = 0;
    bool opened = false;
    for (;;) {
      token t = next();
      if (t.kind == token_kind::end) fail(start, "unterminated .section");
      if (t.is('{')) ++depth, opened = true;
      else if (t.is('}')) {
        if (depth == 0) fail(t, "unbalanced '}' in .section");
        if (--depth == 0) {
          std::string_view src = lex_.source();
          m_.order.emplace_back(2, static_cast<std::uint32_t>(m_.sections.size()));
          m_.sections.emplace_back(src.substr(start.offset, t.offset + 1 - start.offset));
          return;
        }
      } else if (!opened && t.is(';')) {
        fail(t, "expected '{' after .section name");
      }
    }
  }

  static bool is_space(std::string_view s, state_space& out) {
    if (s == ".global") out = state_space::global;
    else if (s == ".shared" || s.starts_with(".shared::")) out = state_space::shared;
    else if (s == ".local") out = state_space::local;
    else if (s == ".const") out = state_space::constant;
    else if (s == ".param") out = state_space::param;
    else if (s == ".reg") out = state_space::reg;
    else return false;
    return true;
  }

  // space {.align N | .vN | .type | .ptr [space] [.align N]} name {[N]} [= init]
  variable variable_decl(linkage l, bool allow_init) {
    token sp_tok = peek();
    state_space sp{};
    if (sp_tok.kind != token_kind::directive || !is_space(sp_tok.text, sp))
      fail(sp_tok, "expected a state space, found " + show(sp_tok));
    next();
    if (!allow_init && sp != state_space::param && sp != state_space::reg)
      fail(sp_tok, "a parameter must be .param or .reg");
    variable v = variable_decl_rest(sp, sp_tok, allow_init);
    v.link = l;
    return v;
  }

  // `= 5`, `= {1, 2}`, `= {{...}, {...}}`, `= {sym, sym+4}`: flattened, braces counted.
  void initializer(std::vector<operand>& out) {
    std::size_t depth = 0;
    for (;;) {
      if (accept('{')) {
        ++depth;
        continue;
      }
      out.push_back(init_value());
      while (depth > 0 && peek().is('}')) {
        next();
        --depth;
      }
      if (depth == 0) return;
      expect(',', "between initializer values");
    }
  }

  operand init_value() {
    token t = peek();
    if (t.kind == token_kind::ident && t.text[0] != '%') {
      next();
      operand o;
      o.kind = operand_kind::symbol;
      o.name = intern(t.text);
      if (accept('+')) o.value = static_cast<std::int64_t>(integer(next()));
      return o;
    }
    bool neg = accept('-');
    token n = next();
    if (n.kind != token_kind::number) fail(n, "expected an initializer value, found " + show(n));
    return number_operand(n, neg);
  }

  // --- functions -----------------------------------------------------------------------------
  void function_decl(linkage l) {
    function f;
    f.link = l;
    token kw = next();
    f.entry = kw.text == ".entry";
    f.line = kw.line;
    f.column = kw.column;
    if (!f.entry && peek().is('(')) param_list(f.returns);
    f.name = intern(expect_ident("a function name").text);
    if (peek().is('(')) param_list(f.params);
    for (;;) {  // performance directives
      token t = peek();
      if (t.kind != token_kind::directive) break;
      next();
      if (t.text == ".noreturn") {
        f.noreturn = true;
        continue;
      }
      if (t.text == ".pragma") {
        if (next().kind != token_kind::string) fail(t, "expected a string after .pragma");
        expect(';', "after .pragma");
        continue;
      }
      performance_directive pd;
      pd.name = intern(t.text);
      if (peek().kind == token_kind::number) {
        do pd.values.push_back(integer(next()));
        while (accept(','));
      }
      f.directives.push_back(std::move(pd));
    }
    m_.order.emplace_back(1, static_cast<std::uint32_t>(m_.functions.size()));
    if (accept(';')) {
      m_.functions.push_back(std::move(f));
      return;
    }
    f.has_body = true;
    expect('{', "to open the function body");
    body(f);
    m_.functions.push_back(std::move(f));
  }

  void param_list(std::vector<variable>& out) {
    expect('(', "to open a parameter list");
    if (accept(')')) return;
    do {
      if (peek().kind != token_kind::directive) fail(peek(), "expected .param or .reg, found " + show(peek()));
      out.push_back(variable_decl(linkage::none, false));
    } while (accept(','));
    expect(')', "to close a parameter list");
  }

  // The function body after `{`, up to and including the matching `}`.
  void body(function& f) {
    f_ = &f;
    depth_ = 0;
    scopes_.resize(1);
    scopes_[0].clear(0);
    plain_registers_ = false;
    reg_cache_.clear();
    for (auto* list : {&f.params, &f.returns})
      for (auto& p : *list)
        if (p.space == state_space::reg) {
          scopes_[0].exact.emplace(p.name, p.name);
          // `.func (.reg .f32 r) f(.reg .f32 a)`: the body names them without `%`.
          if (!m_.str(p.name).starts_with('%')) plain_registers_ = true;
        }
    std::size_t depth = 0;
    pending_branches_.clear();
    scoped_labels_.clear();
    block_stack_.assign(1, 0);
    std::uint32_t blocks = 0;
    for (;;) {
      token t = peek();
      if (t.kind == token_kind::end) fail(t, "unexpected end of input inside the body of '" +
                                                 std::string(m_.str(f.name)) + "'");
      if (t.is('{')) {
        next();
        ++depth;
        block_stack_.push_back(++blocks);
        open_scope(blocks);
        item(body_item_kind::block_open, 0);
      } else if (t.is('}')) {
        next();
        if (depth == 0) break;
        --depth;
        block_stack_.pop_back();
        close_scope();
        item(body_item_kind::block_close, 0);
      } else if (t.kind == token_kind::directive) {
        body_directive();
      } else if (t.is('@')) {
        instruction_stmt();
      } else if (t.kind == token_kind::ident) {
        // A label `name:` or an instruction.
        token id = next();
        if (peek().is(':')) {
          next();
          std::uint32_t n = intern(id.text);
          auto at = static_cast<std::uint32_t>(f.instructions.size());
          if (!scoped_labels_.emplace(label_key(n, block_stack_.back()), at).second)
            fail(id, "label '" + std::string(id.text.substr(0, 60)) + "' defined twice in one block");
          f.labels.emplace(n, at);
          item(body_item_kind::label, static_cast<std::uint32_t>(f.label_names.size()));
          f.label_names.push_back(n);
        } else {
          instruction_rest(id, false, false, 0);
        }
      } else {
        fail(t, "expected an instruction, label or declaration, found " + show(t));
      }
    }
    // Every branch target must be a label visible from the branch (innermost block outward).
    for (auto& [index, stack] : pending_branches_) {
      instruction& ins = f.instructions[index];
      const operand& o = ins.operands[0];
      bool ok = false;
      if (o.kind == operand_kind::symbol && o.value == 0) {
        for (std::size_t k = stack.size(); k-- > 0 && !ok;) {
          auto it = scoped_labels_.find(label_key(o.name, stack[k]));
          if (it != scoped_labels_.end()) ins.target = it->second, ok = true;
        }
      }
      if (!ok) {
        token at;
        at.line = ins.line;
        at.column = ins.column;
        fail(at, "branch target is not a label of '" + std::string(m_.str(f.name)) + "'");
      }
    }
    f_ = nullptr;
  }

  void item(body_item_kind k, std::uint32_t index) { f_->body.push_back({k, index}); }

  void body_directive() {
    token t = next();
    std::string_view d = t.text;
    function& f = *f_;
    if (d == ".reg" || d.starts_with(".reg.")) {
      reg_decl base;
      // `.reg.b16 hl, hu;` (no space: how the inline PTX of cuda_fp16.hpp and cuda_bf16.hpp
      // declares its temporaries, which ptxas accepts) lexes as one directive: its pieces after
      // `.reg` are the type (or .v2/.v4) that would otherwise follow.
      for (std::string_view rest = d.substr(4); !rest.empty();) {
        const std::size_t next_dot = rest.find('.', 1);
        const std::string_view piece = rest.substr(0, next_dot);
        rest = next_dot == std::string_view::npos ? std::string_view{} : rest.substr(next_dot);
        if (piece == ".v2" || piece == ".v4") base.vec = static_cast<std::uint32_t>(piece[2] - '0');
        else base.type = intern(piece);
      }
      for (;;) {
        token a = peek();
        if (a.kind != token_kind::directive) break;
        next();
        if (a.text == ".v2" || a.text == ".v4") base.vec = static_cast<std::uint32_t>(a.text[2] - '0');
        else if (a.text == ".align") integer(next());
        else base.type = intern(a.text);
      }
      if (base.type == 0) fail(peek(), "expected a register type after .reg");
      do {
        reg_decl r = base;
        token n = expect_ident("a register name");
        if (n.text[0] != '%' && n.text.find('.') != std::string_view::npos) fail(n, "malformed register name");
        if (n.text == "WARP_SZ") fail(n, "WARP_SZ is a predefined identifier (the warp size) and cannot be declared");
        std::uint32_t source = intern(n.text);
        if (accept('<')) {
          r.range = true;
          std::uint64_t c = integer(next());
          if (c > 0xffffffffULL) fail(n, "register range too large");
          r.count = static_cast<std::uint32_t>(c);
          expect('>', "after a register count");
        }
        r.name = declare_register(n, source, r.range, r.count);
        if (n.text[0] != '%') plain_registers_ = true;
        item(body_item_kind::reg_decl, static_cast<std::uint32_t>(f.regs.size()));
        f.regs.push_back(r);
      } while (accept(','));
      expect(';', "after a register declaration");
    } else if (d == ".loc") {
      loc_.file = static_cast<std::uint32_t>(integer(next()));
      loc_.line = static_cast<std::uint32_t>(integer(next()));
      loc_.column = static_cast<std::uint32_t>(integer(next()));
      loc_.function_name = 0;
      loc_.inlined_file = loc_.inlined_line = loc_.inlined_column = 0;
      while (accept(',')) {
        token k = expect_ident("function_name or inlined_at");
        if (k.text == "function_name") {
          loc_.function_name = intern(expect_ident("a label").text);
          if (accept('+')) integer(next());
        } else if (k.text == "inlined_at") {
          loc_.inlined_file = static_cast<std::uint32_t>(integer(next()));
          loc_.inlined_line = static_cast<std::uint32_t>(integer(next()));
          loc_.inlined_column = static_cast<std::uint32_t>(integer(next()));
        } else {
          fail(k, "unknown .loc attribute " + show(k));
        }
      }
      item(body_item_kind::loc, static_cast<std::uint32_t>(f.locs.size()));
      f.locs.push_back(loc_);
    } else if (d == ".pragma") {
      token s = next();
      if (s.kind != token_kind::string) fail(s, "expected a string after .pragma");
      item(body_item_kind::pragma, static_cast<std::uint32_t>(f.pragmas.size()));
      f.pragmas.push_back(intern(s.text));
      expect(';', "after .pragma");
    } else if (d == ".local" || d == ".shared" || d == ".param" || d == ".global" || d == ".const") {
      state_space sp{};
      is_space(d, sp);
      variable v = variable_decl_rest(sp, t, true);
      expect(';', "after a variable declaration");
      item(body_item_kind::variable, static_cast<std::uint32_t>(f.locals.size()));
      f.locals.push_back(std::move(v));
    } else if (d == ".callprototype") {
      // `label: .callprototype (.param .b32 _) _ (.param .b32 _);`: the signature an indirect
      // call names, kept verbatim (gpueq refuses indirect calls when one runs).
      token e = t;
      while (!e.is(';')) {
        e = next();
        if (e.kind == token_kind::end) fail(t, "unterminated .callprototype");
      }
      item(body_item_kind::prototype, static_cast<std::uint32_t>(f.prototypes.size()));
      f.prototypes.push_back(intern(lex_.source().substr(t.offset, e.offset + 1 - t.offset)));
    } else if (d == ".extern" || d == ".visible" || d == ".weak") {
      fail(t, "linkage " + show(t) + " is not allowed inside a function body");
    } else {
      fail(t, "unsupported directive " + show(t) + " in a function body");
    }
  }

  variable variable_decl_rest(state_space sp, const token& first, bool allow_init) {
    variable v;
    v.space = sp;
    v.line = first.line;
    v.column = first.column;
    for (;;) {
      token t = peek();
      if (t.kind != token_kind::directive) break;
      next();
      state_space sp2;
      std::string_view s = t.text;
      if (is_space(s, sp2)) {
        if (v.ptr) v.ptr_space = sp2;
        else fail(t, "two state spaces in one declaration");
      } else if (s == ".align") {
        auto a = static_cast<std::uint32_t>(integer(next()));
        if (v.ptr) v.ptr_align = a;
        else v.align = a;
      } else if (s == ".ptr") {
        v.ptr = true;
      } else if (s == ".v2" || s == ".v4" || s == ".v8") {
        v.vec = static_cast<std::uint32_t>(s[2] - '0');
      } else {
        v.type = intern(s);
      }
    }
    if (v.type == 0) fail(peek(), "expected a type in a declaration");
    v.name = intern(expect_ident("a variable name").text);
    while (accept('[')) {
      if (accept(']')) {
        v.dims.push_back(0);
        continue;
      }
      v.dims.push_back(integer(next()));
      expect(']', "after an array size");
    }
    if (peek().is('=')) {
      if (!allow_init) fail(peek(), "an initializer is not allowed here");
      next();
      v.has_init = true;
      initializer(v.init);
    }
    return v;
  }

  // --- instructions --------------------------------------------------------------------------
  void instruction_stmt() {
    next();  // '@'
    bool neg = accept('!');
    token p = expect_ident("a predicate register after '@'");
    operand g = register_operand(p);
    if (g.kind != operand_kind::reg) fail(p, "a guard must be a predicate register");
    token op = expect_ident("an instruction after the guard");
    instruction_rest(op, true, neg, g.name);
  }

  void instruction_rest(const token& op_tok, bool guarded, bool neg, std::uint32_t guard) {
    function& f = *f_;
    instruction ins;
    ins.line = op_tok.line;
    ins.column = op_tok.column;
    ins.loc = loc_;
    ins.inline_asm = op_tok.inline_asm;
    ins.guarded = guarded;
    ins.guard_negated = neg;
    ins.guard = guard;
    // Opcode and modifiers; the same spelling recurs thousands of times, so it is cached.
    std::string_view text = op_tok.text;
    auto cached = opcode_cache_.find(text);
    if (cached == opcode_cache_.end()) {
      auto found = match_opcode(text);
      if (!found) fail(op_tok, "unsupported instruction '" + std::string(text.substr(0, 80)) + "'");
      spelled sp;
      sp.op = found->op;
      // The rest: modifiers, each with its leading dot.
      std::size_t i = found->modifiers_at;
      while (i < text.size()) {
        std::size_t j = text.find('.', i + 1);
        if (j == std::string_view::npos) j = text.size();
        if (j == i + 1) fail(op_tok, "empty modifier in '" + std::string(text.substr(0, 80)) + "'");
        sp.mods.push_back(intern(text.substr(i, j - i)));
        i = j;
      }
      cached = opcode_cache_.emplace(text, std::move(sp)).first;
    }
    ins.op = cached->second.op;
    for (auto mod : cached->second.mods) ins.mods.push_back(mod);
    // Operands up to ';'.
    if (!peek().is(';')) {
      do ins.operands.push_back(operand_with_pair());
      while (accept(','));
    }
    expect(';', "at the end of an instruction");
    const opcode_info& oi = info(ins.op);
    if (ins.operands.size() < oi.min_operands || ins.operands.size() > oi.max_operands) {
      std::string want = oi.min_operands == oi.max_operands
                             ? std::to_string(oi.min_operands)
                             : std::to_string(oi.min_operands) + " to " + std::to_string(oi.max_operands);
      fail(op_tok, "'" + std::string(oi.name) + "' takes " + want + " operands, found " +
                       std::to_string(ins.operands.size()));
    }
    auto index = static_cast<std::uint32_t>(f.instructions.size());
    if (ins.op == opcode::bra) pending_branches_.emplace_back(index, block_stack_);
    item(body_item_kind::instruction, index);
    f.instructions.push_back(std::move(ins));
  }

  static std::uint64_t label_key(std::uint32_t name, std::uint32_t block) {
    return (static_cast<std::uint64_t>(block) << 32) | name;
  }

  bool seen_version_ = false;
  std::vector<std::uint32_t> block_stack_;
  std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> pending_branches_;
  boost::unordered_flat_map<std::uint64_t, std::uint32_t> scoped_labels_;
  function* f_ = nullptr;
  source_loc loc_;
  // Keyed by views into the source text (alive for the whole parse).
  struct spelled {
    opcode op;
    std::vector<std::uint32_t> mods;
  };
  boost::unordered_flat_map<std::string_view, spelled> opcode_cache_;
};

}  // namespace detail

// Parses PTX text. `file` names it in diagnostics. Throws parse_error (support::diagnostic_error).
GPUEQ_ENTRY module parse(std::string_view text, std::string file = "<input>");

// Reads and parses a file; a file that cannot be read (or a directory) is a diagnostic without a
// line.
GPUEQ_ENTRY module parse_file(const std::string& path);

}  // namespace gpueq::ptx

// The bodies of parse and parse_file: compiled here (header-only) or in gpueq::compiled
// (support/entry.hpp): each program that parses would otherwise compile the whole parser.
#if GPUEQ_ENTRY_BODIES
#include <gpueq/ptx/parser_entries.hpp>
#endif
