// The kernel language: GPU kernels written as C++ per-thread bodies (thread ids, registers,
// global tensors, shared arrays, barriers, named barriers, warp shuffles, structured control
// flow) that lower to PTX text and then, through the PTX parser and the idiom lifter, to the
// very ptx::module nvcc's output becomes. So the scheduler, the race context and the checker
// run on these kernels unchanged, and every check of the parser applies to what we generate.
// Every instruction carries the C++ file:line:column of the call that emitted it (as `.file` /
// `.loc` line info), so race, deadlock and run-error reports point at the user's C++ source.
//
//   namespace kl = gpueq::dsl::kl;
//   kl::kernel k("scale");
//   auto x = k.tensor_f32("x"), y = k.tensor_f32("y");
//   auto s = k.shared_f32("s", 64);
//   kl::i32 t = k.tid_x();
//   s[t] = x[t] * 2.0f;                       // ld.global, mul, st.shared
//   k.sync();                                 // bar.sync 0
//   kl::if_(t < 32, [&] { y[t] = s[t] + s[t + 32]; });
//   ptx::module m = k.module();               // parsed and lifted; k.ptx() is the text
//
// Values are registers: `f32` (float data: + - * /, fma, exp, log, sqrt, rsqrt, tanh, max, min,
// abs, select), `i32` (32-bit signed index arithmetic: + - * / % & | ^ << >>, min, max) and
// `pred` (comparisons; && || !). Like C++ variables, copying a value copies the register
// (`mov`) and assigning to one overwrites its register, so `acc += v` in a loop accumulates.
// `s[i]` is a reference to an element: assigning to it stores; reading it (`f32 v = s[i];` or
// using it in an expression) loads at that point. Math functions lower to the instruction
// sequences nvcc emits (`exp` is `__expf`'s multiply by log2(e) then ex2.approx), which the
// lifter turns into the exact real functions.
//
// Source positions come from std::source_location default arguments; for operators, the
// position is captured when an operand converts to `arg`.
// A kernel object must outlive the values made from it; misuse (values of two kernels mixed,
// a moved-from value, a bad name, an out-of-range constant index or barrier operand) throws
// std::invalid_argument with a message.
#pragma once

#include <gpueq/ptx/ir.hpp>
#include <gpueq/ptx/lift.hpp>
#include <gpueq/ptx/parser.hpp>

#include <bit>
#include <cctype>
#include <concepts>
#include <cstdint>
#include <map>
#if __has_include(<source_location>)
#include <source_location>
#endif
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpueq::dsl::kl {

// Where in the user's C++ an instruction comes from: std::source_location where the library
// has it, else the compiler builtins (clang 14 with libstdc++ 12 lacks std::source_location).
struct site {
  const char* file;
  unsigned line, column;
#if defined(__cpp_lib_source_location)
  constexpr site(std::source_location l = std::source_location::current())
      : file(l.file_name()), line(l.line()), column(l.column()) {}
#else
  constexpr site(const char* f = __builtin_FILE(), unsigned l = __builtin_LINE(), unsigned c = 0)
      : file(f), line(l), column(c) {}
#endif
};

// The two data types of registers: what PTX spells their operations with.
struct f32_tag {
  static constexpr std::string_view type = ".f32", mov = "mov.f32", reg = "%f", memory = ".f32";
};
struct s32_tag {
  static constexpr std::string_view type = ".s32", mov = "mov.u32", reg = "%r", memory = ".u32";
};

class kernel;
template <class T>
class val;
template <class T>
class elem_ref;
template <class T>
class array;
class pred;
using f32 = val<f32_tag>;
using i32 = val<s32_tag>;

namespace detail {
[[noreturn]] inline void misuse(const std::string& what) { throw std::invalid_argument("gpueq kernel language: " + what); }

inline std::string f32_immediate(float v) {
  static constexpr char hex[] = "0123456789ABCDEF";
  auto bits = std::bit_cast<std::uint32_t>(v);
  std::string s = "0f";
  for (int i = 7; i >= 0; --i) s += hex[(bits >> (4 * i)) & 0xf];
  return s;
}
}  // namespace detail

// An operand: a register of a kernel, or an immediate (k == nullptr), with the call site of
// the expression it appears in. Every operator and function takes its operands as `arg`, so a
// literal, a value and an element reference (loaded on conversion) are all accepted.
template <class T>
struct arg {
  kernel* k = nullptr;
  std::string text;  // "%f3", "0f3F800000", "-5"
  site at;

  arg(const val<T>& v, site s = {});
  arg(elem_ref<T>&& r, site s = {});
  template <class N>
    requires(std::integral<N> && !std::same_as<N, bool>)
  arg(N n, site s = {}) : at(s) {
    if constexpr (std::same_as<T, f32_tag>) text = detail::f32_immediate(static_cast<float>(n));
    else {
      if (static_cast<long long>(n) < INT32_MIN || static_cast<long long>(n) > 0xffffffffLL)
        detail::misuse("integer constant " + std::to_string(n) + " does not fit in 32 bits");
      text = std::to_string(static_cast<std::int32_t>(static_cast<std::uint32_t>(n)));
    }
  }
  template <std::floating_point F>
    requires std::same_as<T, f32_tag>
  arg(F f, site s = {}) : text(detail::f32_immediate(static_cast<float>(f))), at(s) {}

  bool immediate() const { return k == nullptr; }
};

// A predicate register (the result of a comparison). Copies share the register; predicates are
// not assignable.
class pred {
 public:
  pred(const pred&) = default;
  pred& operator=(const pred&) = delete;
  kernel& owner() const { return *k_; }
  const std::string& reg() const { return reg_; }
  site at() const { return at_; }

 private:
  friend class kernel;
  pred(kernel* k, std::string r, site s) : k_(k), reg_(std::move(r)), at_(s) {}
  kernel* k_;
  std::string reg_;
  site at_;
};

// A register holding an f32 or i32 value. See the header comment for copy/assign semantics.
template <class T>
class val {
 public:
  val(const val& o, site s = {});
  val(val&& o) noexcept : k_(o.k_), reg_(std::move(o.reg_)), at_(o.at_) { o.k_ = nullptr; }
  val& operator=(const val& o) { return assign(arg<T>(o, o.at_)); }
  val& operator=(val&& o) { return assign(arg<T>(o, o.at_)); }
  val& operator=(arg<T> o) { return assign(o); }
  val& operator=(elem_ref<T>&& r) { return assign(arg<T>(std::move(r), at_)); }
  val& operator+=(arg<T> o);
  val& operator-=(arg<T> o);
  val& operator*=(arg<T> o);
  val& operator/=(arg<T> o);

  kernel& owner() const {
    if (!k_) detail::misuse("use of a moved-from value");
    return *k_;
  }
  const std::string& reg() const {
    owner();
    return reg_;
  }
  site at() const { return at_; }

 private:
  friend class kernel;
  val(kernel* k, std::string r, site s) : k_(k), reg_(std::move(r)), at_(s) {}
  val& assign(const arg<T>& o);
  val& compound(std::string_view op, const arg<T>& o);
  kernel* k_;
  std::string reg_;
  site at_;
};

// A reference to one element of a global tensor or a shared array, made by `a[i]`. Assigning
// stores; converting to a value (or using it as an operand) loads. Only usable as a temporary,
// so a load cannot silently move past a barrier: `auto r = s[i];` compiles but cannot be used.
template <class T>
class elem_ref {
 public:
  elem_ref(const elem_ref&) = delete;
  elem_ref& operator=(const elem_ref&) = delete;
  void operator=(elem_ref&& o) &&;
  void operator=(arg<T> v) &&;
  void operator+=(arg<T> v) &&;
  void operator-=(arg<T> v) &&;
  void operator*=(arg<T> v) &&;
  operator val<T>() &&;  // NOLINT: the load

 private:
  friend class array<T>;
  friend struct arg<T>;
  elem_ref(const array<T>* a, arg<s32_tag> i) : a_(a), index_(std::move(i)) {}
  val<T> load() const;
  const array<T>* a_;
  arg<s32_tag> index_;
};

// A global tensor (a kernel parameter) or a shared array of f32 or i32 elements.
template <class T>
class array {
 public:
  elem_ref<T> operator[](arg<s32_tag> i) const { return elem_ref<T>(this, std::move(i)); }
  val<T> load(arg<s32_tag> i) const;
  void store(arg<s32_tag> i, arg<T> v) const;
  const std::string& name() const { return name_; }
  bool shared() const { return shared_; }
  std::uint64_t size() const { return size_; }  // 0 for a global tensor (its size is the launch's)
  kernel& owner() const { return *k_; }

 private:
  friend class kernel;
  friend class elem_ref<T>;
  array(kernel* k, std::string n, bool sh, std::uint64_t size, std::string base)
      : k_(k), name_(std::move(n)), shared_(sh), size_(size), base_(std::move(base)) {}
  // The address operand `[...]` of element i, emitting the index arithmetic.
  std::string address(const arg<s32_tag>& i) const;
  kernel* k_;
  std::string name_;
  bool shared_;
  std::uint64_t size_;
  std::string base_;  // shared: the symbol; global: the 64-bit register holding the base address
};

// A kernel being written. Not copyable or movable: values point at it.
class kernel {
 public:
  explicit kernel(std::string name, site s = {}) : name_(std::move(name)), start_(s) {
    check_name(name_, "kernel");
  }
  kernel(const kernel&) = delete;
  kernel& operator=(const kernel&) = delete;

  // ---- parameters, in order (tensors are 64-bit addresses, scalars 32-bit values) ------------
  array<f32_tag> tensor_f32(const std::string& n, site s = {}) { return tensor<f32_tag>(n, s); }
  array<s32_tag> tensor_i32(const std::string& n, site s = {}) { return tensor<s32_tag>(n, s); }
  f32 scalar_f32(const std::string& n, site s = {}) { return scalar<f32_tag>(n, ".f32", s); }
  i32 scalar_i32(const std::string& n, site s = {}) { return scalar<s32_tag>(n, ".u32", s); }
  // Parameter names in order: what check::kernel_spec::params lists.
  const std::vector<std::string>& params() const { return param_names_; }
  const std::string& name() const { return name_; }

  // ---- shared memory ----------------------------------------------------------------------
  array<f32_tag> shared_f32(const std::string& n, std::uint64_t elements, site s = {}) {
    return shared<f32_tag>(n, elements, s);
  }
  array<s32_tag> shared_i32(const std::string& n, std::uint64_t elements, site s = {}) {
    return shared<s32_tag>(n, elements, s);
  }

  // ---- registers ----------------------------------------------------------------------------
  // A fresh variable holding v: `auto acc = k.var(0.0f);`, `auto i = k.var(0);`.
  template <class N>
    requires std::floating_point<N>
  f32 var(N v, site s = {}) {
    return copy_of(arg<f32_tag>(v, s), s);
  }
  template <class N>
    requires(std::integral<N> && !std::same_as<N, bool>)
  i32 var(N v, site s = {}) {
    return copy_of(arg<s32_tag>(v, s), s);
  }
  template <class T>
  val<T> var(const val<T>& v, site s = {}) {
    return copy_of(arg<T>(v, s), s);
  }

  // ---- thread and block ids -----------------------------------------------------------------
  i32 tid_x(site s = {}) { return special("%tid.x", s); }
  i32 tid_y(site s = {}) { return special("%tid.y", s); }
  i32 tid_z(site s = {}) { return special("%tid.z", s); }
  i32 ntid_x(site s = {}) { return special("%ntid.x", s); }
  i32 ntid_y(site s = {}) { return special("%ntid.y", s); }
  i32 ctaid_x(site s = {}) { return special("%ctaid.x", s); }
  i32 ctaid_y(site s = {}) { return special("%ctaid.y", s); }
  i32 nctaid_x(site s = {}) { return special("%nctaid.x", s); }
  i32 lane(site s = {}) { return special("%laneid", s); }

  // ---- synchronization ----------------------------------------------------------------------
  // bar.sync id[, count]: count 0 means every thread of the CTA (__syncthreads for id 0).
  void sync(unsigned id = 0, unsigned count = 0, site s = {}) {
    check_barrier(id, count, false);
    emit(s, "bar.sync " + std::to_string(id) + (count ? ", " + std::to_string(count) : std::string()) + ";");
  }
  void sync(site s) { sync(0, 0, s); }
  // bar.arrive id, count: register at a named barrier without waiting (the producer side).
  void arrive(unsigned id, unsigned count, site s = {}) {
    check_barrier(id, count, true);
    emit(s, "bar.arrive " + std::to_string(id) + ", " + std::to_string(count) + ";");
  }
  // bar.warp.sync mask (__syncwarp).
  void syncwarp(std::uint32_t mask = 0xffffffffu, site s = {}) { emit(s, "bar.warp.sync " + hex(mask) + ";"); }
  // The thread exits here (`return;` in CUDA).
  void ret(site s = {}) { emit(s, "ret;"); }

  // ---- structured control flow, lowered to predicated branches ------------------------------
  template <class Then>
  void if_(const pred& p, Then&& then, site s = {}) {
    own(p.owner());
    std::string end = label();
    emit(s, "@!" + p.reg() + " bra " + end + ";");
    std::forward<Then>(then)();
    place(end);
  }
  template <class Then, class Else>
  void if_(const pred& p, Then&& then, Else&& otherwise, site s = {}) {
    own(p.owner());
    std::string other = label(), end = label();
    emit(s, "@!" + p.reg() + " bra " + other + ";");
    std::forward<Then>(then)();
    emit(s, "bra " + end + ";");
    place(other);
    std::forward<Else>(otherwise)();
    place(end);
  }
  // while (cond()) body(); cond is re-evaluated (its instructions re-run) at every iteration.
  template <class Cond, class Body>
  void while_(Cond&& cond, Body&& body, site s = {}) {
    std::string top = label(), end = label();
    place(top);
    pred p = std::forward<Cond>(cond)();
    own(p.owner());
    emit(s, "@!" + p.reg() + " bra " + end + ";");
    std::forward<Body>(body)();
    emit(s, "bra " + top + ";");
    place(end);
  }
  // for (i = begin; i < end; i += step) body(i), with constant or register bounds; `i` is the
  // loop's own register (read it, do not keep a reference past the loop).
  template <class Body>
  void for_(arg<s32_tag> begin, arg<s32_tag> end, Body&& body, int step = 1, site s = {}) {
    if (step <= 0) detail::misuse("for_ needs a positive step (write a while_ for other loops)");
    i32 i = copy_of(begin, s);
    while_([&] { return compare("lt", arg<s32_tag>(i, s), end); },
           [&] {
             body(static_cast<const i32&>(i));
             i.compound("add", arg<s32_tag>(step, s));
           },
           s);
  }

  // ---- output -------------------------------------------------------------------------------
  // The kernel as PTX text (valid PTX: `ptxas` accepts it), with line info for the C++ source.
  std::string ptx() const;
  // The kernel parsed and idiom-lifted: what exec::decode, race and check take. Its only
  // function (index 0) is the kernel.
  ptx::module module() const {
    ptx::module m = ptx::parse(ptx(), name_ + ".ptx");
    ptx::lift(m);
    return m;
  }

  // ---- the emitter (used by values and arrays; rarely needed directly) ----------------------
  void emit(const site& s, std::string text) { body_.push_back({std::move(text), s, false}); }
  void own(const kernel& k) const {
    if (&k != this) detail::misuse("a value of kernel '" + k.name_ + "' used in kernel '" + name_ + "'");
  }
  template <class T>
  val<T> fresh(site s) {
    return val<T>(this, next_reg(T::reg), s);
  }
  pred fresh_pred(site s) { return pred(this, next_reg("%p"), s); }
  std::string fresh_wide() { return next_reg("%rd"); }
  template <class T>
  val<T> copy_of(const arg<T>& a, site s) {
    val<T> r = fresh<T>(s);
    emit(s, std::string(T::mov) + " " + r.reg_ + ", " + a.text + ";");
    return r;
  }
  // The operand as a register: immediates are moved into one (for instructions and operand
  // positions that take registers only).
  template <class T>
  std::string in_register(const arg<T>& a) {
    if (!a.immediate()) return a.text;
    return copy_of(a, a.at).reg_;
  }
  template <class T>
  pred compare(std::string_view cmp, const arg<T>& a, const arg<T>& b) {
    pred p = fresh_pred(a.at);
    emit(a.at, "setp." + std::string(cmp) + std::string(T::type) + " " + p.reg_ + ", " + in_register(a) + ", " + b.text + ";");
    return p;
  }
  static std::string hex(std::uint32_t v) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s = "0x";
    for (int i = 7; i >= 0; --i) s += digits[(v >> (4 * i)) & 0xf];
    return s;
  }

 private:
  template <class T>
  friend class val;
  struct line {
    std::string text;
    site at;
    bool label;
  };

  static void check_name(const std::string& n, const char* what) {
    bool ok = !n.empty() && (std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_');
    for (char c : n) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok) detail::misuse(std::string(what) + " name '" + n + "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  }
  void declare(const std::string& n, const char* what) {
    check_name(n, what);
    if (n == name_ || symbols_.count(n)) detail::misuse(std::string(what) + " name '" + n + "' is already used in kernel '" + name_ + "'");
    symbols_[n] = what;
  }
  template <class T>
  array<T> tensor(const std::string& n, site s) {
    declare(n, "tensor");
    std::string base = fresh_wide();
    prologue_.push_back({"ld.param.u64 " + base + ", [" + n + "];", s, false});
    params_.push_back(".param .u64 " + n);
    param_names_.push_back(n);
    return array<T>(this, n, false, 0, base);
  }
  template <class T>
  val<T> scalar(const std::string& n, std::string_view ptx_type, site s) {
    declare(n, "scalar");
    val<T> v = fresh<T>(s);
    prologue_.push_back({"ld.param" + std::string(ptx_type) + " " + v.reg_ + ", [" + n + "];", s, false});
    params_.push_back(".param " + std::string(ptx_type) + " " + n);
    param_names_.push_back(n);
    return v;
  }
  template <class T>
  array<T> shared(const std::string& n, std::uint64_t elements, site s) {
    declare(n, "shared array");
    if (elements == 0 || elements > (std::uint64_t{1} << 20))
      detail::misuse("shared array '" + n + "' needs between 1 and 2^20 elements");
    shared_decls_.push_back(".shared .align 4 " + std::string(T::type) + " " + n + "[" +
                            std::to_string(elements) + "];");
    (void)s;
    return array<T>(this, n, true, elements, n);
  }
  i32 special(const char* reg, site s) {
    i32 r = fresh<s32_tag>(s);
    emit(s, "mov.u32 " + r.reg_ + ", " + reg + ";");
    return r;
  }
  static void check_barrier(unsigned id, unsigned count, bool arrive) {
    if (id >= 16) detail::misuse("barrier id " + std::to_string(id) + " is not in 0..15");
    if (arrive && count == 0) detail::misuse("arrive needs a thread count (a positive multiple of 32)");
    if (count % 32 != 0) detail::misuse("barrier thread count " + std::to_string(count) + " is not a multiple of 32");
  }
  std::string label() { return "$L__kl" + std::to_string(labels_++); }
  void place(const std::string& l) { body_.push_back({l + ":", site{}, true}); }
  std::string next_reg(std::string_view cls) { return std::string(cls) + std::to_string(++counts_[std::string(cls)]); }

  std::string name_;
  site start_;
  std::vector<std::string> params_, param_names_, shared_decls_;
  std::map<std::string, const char*> symbols_;
  std::vector<line> prologue_, body_;
  std::map<std::string, unsigned> counts_;
  unsigned labels_ = 0;
};

// ---- values --------------------------------------------------------------------------------

template <class T>
arg<T>::arg(const val<T>& v, site s) : k(&v.owner()), text(v.reg()), at(s) {}

template <class T>
arg<T>::arg(elem_ref<T>&& r, site s) : at(s) {
  val<T> v = r.load();
  k = &v.owner();
  text = v.reg();
}

template <class T>
val<T>::val(const val& o, site s) : k_(&o.owner()), reg_(), at_(s) {
  reg_ = k_->copy_of(arg<T>(o, s), s).reg_;
}

template <class T>
val<T>& val<T>::assign(const arg<T>& o) {
  kernel& k = owner();
  if (o.k) k.own(*o.k);
  if (o.text != reg_) k.emit(o.at, std::string(T::mov) + " " + reg_ + ", " + o.text + ";");
  return *this;
}

template <class T>
val<T>& val<T>::compound(std::string_view op, const arg<T>& o) {
  kernel& k = owner();
  if (o.k) k.own(*o.k);
  std::string mn(op);
  if (op == "mul" && std::same_as<T, s32_tag>) mn = "mul.lo";
  if (op == "div" && std::same_as<T, f32_tag>) mn = "div.rn";
  k.emit(o.at, mn + std::string(T::type) + " " + reg_ + ", " + reg_ + ", " + o.text + ";");
  return *this;
}
template <class T>
val<T>& val<T>::operator+=(arg<T> o) {
  return compound("add", o);
}
template <class T>
val<T>& val<T>::operator-=(arg<T> o) {
  return compound("sub", o);
}
template <class T>
val<T>& val<T>::operator*=(arg<T> o) {
  return compound("mul", o);
}
template <class T>
val<T>& val<T>::operator/=(arg<T> o) {
  return compound("div", o);
}

// ---- PTX text --------------------------------------------------------------------------------

inline std::string kernel::ptx() const {
  // .file indices, one per C++ file that emitted something.
  std::map<std::string, unsigned> files;
  auto file_of = [&](const char* f) {
    std::string p = f ? f : "";
    for (char& c : p)
      if (c == '"' || c == '\\') c = '/';
    auto it = files.find(p);
    if (it == files.end()) it = files.emplace(p, static_cast<unsigned>(files.size() + 1)).first;
    return it->second;
  };
  std::string body;
  unsigned last_file = 0, last_line = 0, last_col = 0;
  site last = start_;
  auto put = [&](const line& l) {
    if (l.label) {
      body += l.text + "\n";
      return;
    }
    unsigned f = file_of(l.at.file);
    if (f != last_file || l.at.line != last_line || l.at.column != last_col) {
      body += "\t.loc\t" + std::to_string(f) + " " + std::to_string(l.at.line) + " " + std::to_string(l.at.column) + "\n";
      last_file = f, last_line = l.at.line, last_col = l.at.column;
    }
    last = l.at;
    body += "\t" + l.text + "\n";
  };
  for (auto& l : prologue_) put(l);
  for (auto& l : body_) put(l);
  put({"ret;", last, false});

  std::string out = "//\n// Generated by the gpueq kernel language (gpueq/dsl/kernel.hpp)\n//\n\n"
                    ".version 8.0\n.target sm_80\n.address_size 64\n\n";
  std::vector<const std::string*> by_index(files.size());
  for (auto& [p, i] : files) by_index[i - 1] = &p;
  for (std::size_t i = 0; i < by_index.size(); ++i) out += ".file\t" + std::to_string(i + 1) + " \"" + *by_index[i] + "\"\n";
  out += "\n.visible .entry " + name_ + "(";
  for (std::size_t i = 0; i < params_.size(); ++i) out += (i ? ",\n\t" : "\n\t") + params_[i];
  out += params_.empty() ? ")\n{\n" : "\n)\n{\n";
  for (auto& [cls, n] : counts_) {
    std::string_view type = cls == "%p" ? ".pred" : cls == "%f" ? ".f32" : cls == "%rd" ? ".b64" : ".b32";
    out += "\t.reg " + std::string(type) + " \t" + cls + "<" + std::to_string(n + 1) + ">;\n";
  }
  for (auto& d : shared_decls_) out += "\t" + d + "\n";
  out += "\n" + body + "}\n";
  return out;
}

}  // namespace gpueq::dsl::kl

// The operations on values (arithmetic, math functions, conversions, comparisons, control flow,
// warp shuffles) and the arrays' loads and stores: dsl/kernel_ops.hpp, which needs the classes
// above complete.
#include <gpueq/dsl/kernel_ops.hpp>
