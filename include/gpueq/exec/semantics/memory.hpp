// Memory (semantics of engine<D, O>, declared in exec/engine.hpp): the layout of the CTA's regions
// (tensors, module variables, shared and local memory) at setup, effective addresses and the region
// an address lands in (out-of-bounds reports name the array), loads (input elements materialize on
// first read, pieces of stored values are assembled), stores, the observer's access events, the
// final value of an output element, and the fast forms of ld and st with their per-instruction
// region hint.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// Lays out the regions: the launch's tensors, module-scope .global/.const/.shared variables, the
// kernel's own .shared and .local variables and dynamic shared memory, with their symbols; binds
// the kernel parameters' symbols; orders each window's regions for the search and marks those
// the fast forms find by their hint. Part of setup.
template <value_domain D, observer O>
inline void engine<D, O>::layout_memory(run_info& info) {
  // Global tensors first, so tensor i is region i.
  for (std::uint32_t i = 0; i < l_.tensors.size(); ++i) {
    const auto& t = l_.tensors[i];
    if (t.bytes() > region<real>::max_bytes)  // check::spec refuses such shapes (max_tensor_bytes)
      throw run_failure(run_error{error_kind::unsupported, 0, 0, false,
                                  "tensor " + t.name + ": " + std::to_string(t.bytes()) +
                                      " bytes, more than the 2^40 a tensor may have"});
    region<real> r;
    r.space = memory_space::global;
    r.name = t.name;
    r.base = (std::uint64_t{i} + 1) * address::global_stride;
    r.bytes = t.bytes();
    r.element_bytes = t.element_bytes;
    r.kind = t.kind;
    r.inputs = t.input;
    r.given = t.contents.get();
    r.output = t.output;
    r.tensor = i;
    r.shape = t.shape;
    regions_.push_back(std::move(r));
  }
  std::uint64_t next_global = (l_.tensors.size() + 1) * address::global_stride;
  // Module-scope variables (.global, .const, .shared) and the kernel's own .shared/.local.
  std::uint64_t shared_top = 0;
  auto add_variable = [&](const ptx::variable& v) {
    std::uint32_t el = static_cast<std::uint32_t>(std::max<std::uint32_t>(1, bytes(type_of(v.type))) * std::max<std::uint32_t>(1, v.vec));
    // nvcc declares `float s[64]` as `.align 4 .b8 s[256]`: the PTX does not say what the bytes
    // hold, so reports name such an array's places by byte offset (region::byte_indexed). The
    // alignment stands in for the element size only where a bulk copy reads unwritten bytes of it
    // (the width of its pieces); accesses are by byte range regardless.
    const bool as_bytes = el == 1;
    std::uint32_t named = as_bytes && v.align > 1 ? std::min<std::uint32_t>(v.align, 8) : el;
    std::uint64_t size = v.elements() * el;
    std::uint64_t align = std::max<std::uint64_t>(v.align ? v.align : el, 1);
    if (v.space == ptx::state_space::shared) {
      bool dynamic = v.dims.size() == 1 && v.dims[0] == 0;
      if (dynamic) {
        dynamic_symbols_.push_back(v.name);
        return;
      }
      shared_top = (shared_top + align - 1) / align * align;
      add_region(memory_space::shared, v, shared_top, size, named);
      regions_.back().byte_indexed = as_bytes;
      shared_top += size;
    } else if (v.space == ptx::state_space::global || v.space == ptx::state_space::constant) {
      add_region(v.space == ptx::state_space::global ? memory_space::global : memory_space::constant, v,
                 next_global, size, el);
      regions_.back().byte_indexed = as_bytes;
      initialize(regions_.back(), v, el);
      next_global += address::global_stride;
    } else if (v.space == ptx::state_space::local) {
      local_top_ = (local_top_ + align - 1) / align * align;
      symbols_[v.name] = symbol{symbol::kind::local, 0, local_top_};
      local_top_ += size;
    }
  };
  for (const auto& v : p_.module->globals) add_variable(v);
  for (const auto& v : p_.function->locals) add_variable(v);
  if (!dynamic_symbols_.empty() || l_.dynamic_shared_bytes) {
    // At 16 bytes, or the largest `.align` of its declarations (`.extern .shared .align 1024`:
    // the 128-byte TMA swizzle is a function of the address bits up to 1024, exec/tma.hpp).
    std::uint64_t align = 16;
    for (const auto* vs : {&p_.module->globals, &p_.function->locals})
      for (const auto& v : *vs)
        if (v.space == ptx::state_space::shared && v.dims.size() == 1 && v.dims[0] == 0)
          align = std::max<std::uint64_t>(align, v.align);
    shared_top = (shared_top + align - 1) / align * align;
    region<real> r;
    r.space = memory_space::shared;
    r.name = dynamic_symbols_.empty() ? std::string("dynamic shared") : support::readable_symbol(p_.str(dynamic_symbols_[0]));
    r.base = shared_top;
    r.bytes = l_.dynamic_shared_bytes;
    r.element_bytes = 4;
    r.byte_indexed = true;  // `.extern .shared .align 16 .b8 smem[]`: bytes of no declared type
    auto index = static_cast<std::uint32_t>(regions_.size());
    regions_.push_back(std::move(r));
    for (auto s : dynamic_symbols_) symbols_[s] = symbol{symbol::kind::region, index, 0};
    shared_top += l_.dynamic_shared_bytes;
  }
  shared_bytes_ = shared_top;
  for (std::uint32_t i = 0; i < p_.function->params.size(); ++i)
    symbols_[p_.function->params[i].name] = symbol{symbol::kind::param, i, 0};
  if (l_.params.size() != p_.function->params.size())
    fail(error_kind::unsupported, 0,
         "the launch binds " + std::to_string(l_.params.size()) + " parameters but the kernel has " +
             std::to_string(p_.function->params.size()));
  // CUtensorMap parameters: 128 bytes of constant memory holding the encoded map, which the
  // parameter's symbol addresses (`mov.b64 %rd, p; cvta.param.u64 ...` gives the map's address).
  for (std::uint32_t i = 0; i < l_.params.size(); ++i) {
    if (!l_.params[i].map) continue;
    const tensor_map_binding& b = l_.tensor_maps.at(l_.params[i].index);
    tma::tensor_map m = b.map;
    m.global_address = regions_.at(b.tensor).base;
    region<real> r;
    r.space = memory_space::constant;
    r.name = b.name;
    r.base = next_global;
    r.bytes = tma::map_bytes;
    r.element_bytes = 8;
    tma::encode(m, [&](tma::field_slot s, std::uint64_t bits) { r.store(s.offset, s.width, value::of_bits(bits)); });
    symbols_[p_.function->params[i].name] = symbol{symbol::kind::region, static_cast<std::uint32_t>(regions_.size()), 0};
    regions_.push_back(std::move(r));
    next_global += address::global_stride;
  }
  cluster_layout();  // a cluster run: each CTA's copy of the shared arrays (semantics/cluster.hpp)
  for (std::uint32_t i = 0; i < regions_.size(); ++i) {
    const auto& r = regions_[i];
    info.regions.push_back(region_desc{r.space, r.name, r.byte_indexed ? 1u : r.element_bytes, r.bytes,
                                       r.space == memory_space::global && r.inputs && !r.output, r.byte_indexed});
    if (r.space != memory_space::shared) global_order_.push_back(i);
    else if (i < first_copy_) shared_order_.push_back(i);  // (copies are reached through rank 0's)
  }
  auto by_base = [&](std::uint32_t a, std::uint32_t b) { return regions_[a].base < regions_[b].base; };
  std::sort(shared_order_.begin(), shared_order_.end(), by_base);
  std::sort(global_order_.begin(), global_order_.end(), by_base);
  // A region no other region of its window starts inside: an address within it is found by the
  // per-instruction hint without the search (locate_fast).
  windows_.assign(regions_.size(), fast_window{});
  for (const auto* order : {&shared_order_, &global_order_})
    for (std::uint32_t i : *order) {
      auto& r = regions_[i];
      bool clean = true;
      for (std::uint32_t j : *order)
        if (j != i && regions_[j].base >= r.base && regions_[j].base - r.base < r.bytes) clean = false;
      windows_[i] = fast_window{r.base, clean ? r.bytes : 0, &r, r.space == memory_space::shared};
    }
}

template <value_domain D, observer O>
inline void engine<D, O>::add_region(memory_space space, const ptx::variable& v, std::uint64_t base, std::uint64_t size,
                                      std::uint32_t el) {
  region<real> r;
  r.space = space;
  r.name = support::readable_symbol(p_.str(v.name));
  r.base = base;
  r.bytes = size;
  r.element_bytes = el;
  auto index = static_cast<std::uint32_t>(regions_.size());
  regions_.push_back(std::move(r));
  symbols_[v.name] = symbol{symbol::kind::region, index, 0};
}

// Module .global/.const variables: their initializer, or zeros (static storage).
template <value_domain D, observer O>
inline void engine<D, O>::initialize(region<real>& r, const ptx::variable& v, std::uint32_t el) {
  std::uint64_t count = v.elements();
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t bits = 0;
    if (v.has_init && i < v.init.size()) bits = static_cast<std::uint64_t>(v.init[i].value);
    r.store(i * el, el, value::of_bits(bits));
  }
}

// The final value of an output tensor element (see the declaration in exec/engine.hpp).
template <value_domain D, observer O>
inline auto engine<D, O>::output(std::uint32_t tensor, std::uint64_t element) -> std::optional<value> {
  region<real>& r = regions_[tensor];
  std::uint64_t off = element * r.element_bytes;
  if (!r.written(off, r.element_bytes)) return std::nullopt;  // untouched, or only read
  if (const value* c = r.exact(off, r.element_bytes)) return *c;
  return assemble(r, off, r.element_bytes, 0, 0);
}

// An output element's cell as a finished domain value (integer tensors by width and signedness).
template <value_domain D, observer O>
inline typename D::result engine<D, O>::output_value(std::uint32_t tensor, const value& c) {
  const tensor_binding& t = l_.tensors[tensor];
  if (t.kind == rkind::integer && c.t == value::tag::bits) return d_.finish(d_.from_int(element_integer(t, c.bits)));
  if (c.t == value::tag::packed) {  // read after the run: no instruction to name, the tensor instead
    if (auto r = packed_number(c, t.kind, 0)) return d_.finish(*r);
    throw run_failure(run_error{error_kind::not_structured, 0, 0, false,
                                "output tensor " + t.name + ": " + packed_number_error(c.k)});
  }
  return d_.finish(to_real(c, t.kind, 0));
}

// A kernel parameter's value: a tensor's base address (with the tensor as provenance), or a
// scalar's bits, or a symbolic scalar input. Part of setup.
template <value_domain D, observer O>
inline auto engine<D, O>::param_value(std::uint32_t i) -> value {
  const param_binding& b = l_.params[i];
  if (!b.fields.empty() || b.map) return value{};  // a struct: its fields are read one by one (param_field); a map: its region
  return bound_value(b.tensor, b.index, type_of(p_.function->params[i].type));
}

// A tensor's base address or scalar `index` as a value of PTX type t.
template <value_domain D, observer O>
inline auto engine<D, O>::bound_value(bool tensor, std::uint32_t index, vtype t) -> value {
  if (tensor) {
    value v = value::of_bits(regions_[index].base);
    v.provenance = index + 1;
    return v;
  }
  const scalar_binding& s = l_.scalars[index];
  if (s.symbolic) {
    input_ref in{static_cast<std::uint32_t>(l_.tensors.size() + index), s.name, 0, {},
                 rkind_of(t).value_or(rkind::f32)};
    return value::of_real(guarded([&] { return d_.input(in); }, 0), in.kind);
  }
  if (auto k = rkind_of(t)) return value::of_bits(floats::encode(floats::round_to(s.value, *k), *k));
  return value::of_bits(static_cast<std::uint64_t>(static_cast<std::int64_t>(s.value)));
}

// Bytes [offset, offset + width) of struct parameter i: the field there, read whole.
template <value_domain D, observer O>
inline auto engine<D, O>::param_field(std::uint32_t t, std::uint32_t i, std::uint64_t offset, std::uint32_t width) -> value {
  const param_binding& b = l_.params[i];
  for (std::size_t f = 0; f < b.fields.size(); ++f) {
    const field_binding& fb = b.fields[f];
    if (fb.offset != offset || fb.bytes != width) continue;
    return param_fields_[i][f];
  }
  std::string fields;
  for (const field_binding& fb : b.fields)
    fields += (fields.empty() ? "" : ", ") +
              (fb.tensor ? l_.tensors[fb.index].name : l_.scalars[fb.index].name) + " at " + std::to_string(fb.offset) + " (" +
              std::to_string(fb.bytes) + " bytes)";
  fail_at(error_kind::unsupported, t,
          "a read of bytes " + std::to_string(offset) + " to " + std::to_string(offset + width - 1) + " of struct parameter '" +
              std::string(p_.str(p_.function->params[i].name)) + "', which are not one field of the spec (fields: " + fields + ")");
}

template <value_domain D, observer O>
inline auto engine<D, O>::effective_address(std::uint32_t t, const xoperand& a) -> address_value {
  if (a.k != xoperand::kind::address) fail_at(error_kind::unsupported, t, "memory operand is not an address");
  if (a.base_symbol) {
    auto it = symbols_.find(a.sym);
    if (it != symbols_.end() && it->second.k == symbol::kind::param) return {a.imm, 0};  // offset in the parameter
    if (!a.sym) return {a.imm, 0};
    return {symbol_address(t, a.sym, a.imm), symbol_provenance(a.sym)};
  }
  const value& base = reg(t, a.reg);
  if (base.t == value::tag::empty) [[unlikely]] undefined_read(t, a.reg, base);  // an undefined address
  return {to_bits(base, t) + a.imm, base.t == value::tag::bits ? base.provenance : 0};
}

template <value_domain D, observer O>
inline auto engine<D, O>::locate(std::uint32_t t, ptx::state_space space, address_value where_to,
    std::uint32_t width) -> place {
  std::uint64_t addr = where_to.at;
  if (space == ptx::state_space::generic) {
    if (addr >= address::local_window && addr < address::local_window + address::window_size) {
      space = ptx::state_space::local;
      addr -= address::local_window;
    } else if (addr >= address::shared_window && addr < address::shared_window + address::window_size) {
      space = ptx::state_space::shared;
      addr -= address::shared_window;
    } else {
      space = ptx::state_space::global;
    }
  }
  std::uint32_t rank = 0;  // a cluster run: the CTA whose shared memory it is
  if (clustered_ && space == ptx::state_space::shared) rank = cluster_rank_of(t, addr);
  if (space == ptx::state_space::local) {
    if (addr + width > local_top_)
      fail_at(error_kind::out_of_bounds, t, "local memory access at offset " + std::to_string(addr) + " outside the " +
                                                std::to_string(local_top_) + "-byte local depot");
    auto& lr = locals_[t];
    if (!lr) {
      lr = std::make_unique<region<real>>();
      lr->space = memory_space::local;
      lr->name = "local";
      lr->bytes = local_top_;
      lr->byte_indexed = true;
    }
    return place{lr.get(), ~0u, addr};
  }
  const auto& order = space == ptx::state_space::shared ? shared_order_ : global_order_;
  // The region whose base is the largest not above addr.
  auto it = std::upper_bound(order.begin(), order.end(), addr,
                             [&](std::uint64_t a, std::uint32_t index) { return a < regions_[index].base; });
  std::uint32_t from = where_to.provenance;
  auto past_end = [&](const region<real>& r, std::int64_t off, const std::string& lands) {
    std::uint32_t unit = r.element_bytes > 1 ? r.element_bytes : std::max<std::uint32_t>(width, 1);
    fail_at(error_kind::out_of_bounds, t,
            std::string(space == ptx::state_space::shared ? "shared" : "global") + " access to " + r.name + "[" +
                std::to_string(off / static_cast<std::int64_t>(unit)) + "] (byte " + std::to_string(off) + ", " +
                std::to_string(width) + " bytes) outside the array (" + std::to_string(r.bytes / unit) +
                " elements of " + std::to_string(unit) + " bytes)" + lands);
  };
  if (it != order.begin()) {
    std::uint32_t i = *(it - 1);
    region<real>& r = regions_[i];
    if (addr - r.base + width <= r.bytes) {
      // In bounds of r; but an address computed from another array is still out of that one's
      // bounds, even where the GPU tolerates it because the arrays are adjacent.
      if (from && from - 1 != i && from - 1 < regions_.size() && regions_[from - 1].space == r.space)
        past_end(regions_[from - 1], static_cast<std::int64_t>(addr - regions_[from - 1].base),
                 "; the address lies in " + r.name);
      return cluster_place(place{&r, i, addr - r.base}, rank);
    }
    if (addr - r.base < r.bytes + 4096) past_end(r, static_cast<std::int64_t>(addr - r.base), "");
  }
  if (from && from - 1 < regions_.size())
    past_end(regions_[from - 1], static_cast<std::int64_t>(addr - regions_[from - 1].base), "");
  fail_at(error_kind::out_of_bounds, t,
          std::string(space == ptx::state_space::shared ? "shared" : "global") + " access at address 0x" + hex(addr) +
              " is in no " + (space == ptx::state_space::shared ? "shared array" : "tensor"));
}

template <value_domain D, observer O>
inline void engine<D, O>::observe(std::uint32_t t, const place& p, std::uint32_t width, access_kind kind,
    std::uint32_t pc, value_identity identity, atomic_op op, bool async_visible) {
  if (p.index == ~0u) return;
  if (p.r->space != memory_space::global && p.r->space != memory_space::shared) return;
  o_.on_access(access{t, p.index, p.offset, width, kind, pc, identity, op, async_visible});
}

// Exact (observer.hpp): the bits themselves, the domain's exact identity, or a sequence number.
template <value_domain D, observer O>
inline value_identity engine<D, O>::identity_of(const value& v) {
  auto of_real = [&](const real& r) {
    auto id = d_.identity(r);
    return id ? value_identity{value_identity::kind::real, *id} : value_identity{};
  };
  switch (v.t) {
    case value::tag::bits: return {value_identity::kind::bits, v.bits};
    case value::tag::real: return of_real(v.r);
    case value::tag::packed: {
      value_identity halves[2] = {of_real(v.r), of_real(v.r2)};
      return sequences_.of(halves);
    }
    default: return {};
  }
}

// Reads [offset, offset + width) of a region as one cell.
template <value_domain D, observer O>
inline auto engine<D, O>::load_cell(std::uint32_t t, region<real>& r, std::uint64_t offset,
    std::uint32_t width) -> value {
  if (const value* c = r.exact(offset, width)) return *c;
  return load_pieces(t, r, offset, width);
}

template <value_domain D, observer O>
auto engine<D, O>::load_pieces(std::uint32_t t, region<real>& r, std::uint64_t offset,
    std::uint32_t width) -> value {
  if (r.any_empty(offset, width)) {
    if (!r.inputs && !r.given) {
      if (r.space == memory_space::constant) return value::of_bits(0);
      // Another thread may still write it: the load waits (engine_options::reads_wait_for_writes).
      if (read_waits_ && options_.reads_wait_for_writes &&
          (r.space == memory_space::shared || r.space == memory_space::global))
        throw read_wait{};
      std::string what = r.space == memory_space::global ? "output tensor " + r.name + " before any thread writes it"
                         : r.space == memory_space::shared ? "uninitialized shared memory " + r.name
                                                           : std::string("uninitialized local memory");
      fail_at(error_kind::uninitialized, t,
              "read of " + what + " (" +
                  (r.byte_indexed ? std::string() : "element " + std::to_string(offset / r.element_bytes) + ", ") +
                  "byte " + std::to_string(offset) + ")");
    }
    // Unwritten elements of an input tensor are inputs, those of a tensor with given contents
    // hold their bits: materialize the ones the read touches.
    std::uint64_t first = offset / r.element_bytes, last = (offset + width - 1) / r.element_bytes;
    for (std::uint64_t e = first; e <= last; ++e) {
      if (r.any_slot(e * r.element_bytes, r.element_bytes)) continue;  // (not fresh)
      if (r.given) {
        r.store(e * r.element_bytes, r.element_bytes, value::of_bits(r.given->bits(e)), true);
        continue;
      }
      input_ref in{r.tensor, r.name, e, r.shape, r.kind};
      r.store(e * r.element_bytes, r.element_bytes, value::of_real(guarded([&] { return d_.input(in); }, t), r.kind),
              true);
    }
    if (const value* c = r.exact(offset, width)) return *c;
  }
  return assemble(r, offset, width, t, 1);
}

// A read that covers pieces of stored values: two halves make a packed word; a half of a packed
// word is a half; otherwise concrete bytes are put together.
template <value_domain D, observer O>
inline auto engine<D, O>::assemble(region<real>& r, std::uint64_t offset, std::uint32_t width, std::uint32_t t,
    int in_thread) -> value {
  // (A first byte never written has slot 0, which names no value: the byte loop reports it.)
  if (const std::uint32_t s0 = r.slot(offset)) {
    const auto& first = r.value(s0);
    // Two 16-bit floats read as 32 bits, or two fp8 values as 16 bits: a packed pair.
    // (Each half read must hold its value in every byte: a later store may have covered a part.)
    const std::uint32_t half = width / 2;
    if ((width == 4 || width == 2) && first.width == half && first.offset == offset &&
        r.slot(offset + half - 1) == r.slot(offset)) {
      std::uint32_t s2 = r.slot(offset + half);
      if (s2 && r.slot(offset + width - 1) == s2) {
        const auto& second = r.value(s2);
        if (second.offset == offset + half && second.width == half && first.value.t == value::tag::real &&
            second.value.t == value::tag::real && first.value.k != rkind::integer && first.value.k == second.value.k &&
            bytes(first.value.k) == width / 2)
          return value::of_packed(first.value.r, second.value.r, first.value.k);
      }
    }
    if ((width == 2 || width == 1) && first.width == 2 * width && r.slot(offset + width - 1) == r.slot(offset) &&
        first.value.t == value::tag::packed &&
        bytes(first.value.k) == width && (offset - first.offset) % width == 0)
      return value::of_real(offset == first.offset ? first.value.r : first.value.r2, first.value.k);
  }
  std::uint64_t bits = 0;
  for (std::uint32_t b = 0; b < width; ++b) {
    std::uint32_t s = r.slot(offset + b);
    if (!s) fail_at(error_kind::uninitialized, t, "read of partly written memory in " + r.name);
    const auto& sv = r.value(s);
    if (in_thread == 0 && is_symbolic(sv.value))
      throw run_failure(run_error{error_kind::not_structured, 0, 0, false,
                                  r.name + ": an output element holds pieces of symbolic values"});
    std::uint64_t vb = to_bits(sv.value, t);
    bits |= ((vb >> (8 * (offset + b - sv.offset))) & 0xff) << (8 * b);
  }
  return value::of_bits(bits);
}

template <value_domain D, observer O>
inline void engine<D, O>::check_alignment(std::uint32_t t, std::uint64_t addr, std::uint32_t width) {
  if (width > 1 && addr % width != 0)
    fail_at(error_kind::misaligned, t,
            "a " + std::to_string(width) + "-byte access at address 0x" + hex(addr) + " is not aligned to its width");
}

template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::access_width(const xinstr& x) const { return bytes(x.type); }

template <value_domain D, observer O>
inline void engine<D, O>::load(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  const xoperand& dst = x.ops[0];
  address_value addr = effective_address(t, x.ops[1]);
  std::uint32_t w = access_width(x);
  std::uint32_t n = dst.elements();
  if (x.space == ptx::state_space::param) {
    const xoperand& a = x.ops[1];
    auto it = symbols_.find(a.sym);
    if (!a.base_symbol || it == symbols_.end() || it->second.k != symbol::kind::param)
      fail_at(error_kind::unsupported, t, "a parameter read other than of a kernel parameter by name");
    std::uint32_t i = it->second.index;
    if (!l_.params[i].fields.empty()) {  // a struct passed by value: each element reads one field
      for (std::uint32_t e = 0; e < n; ++e) write(t, dst.element(e), param_field(t, i, a.imm + std::uint64_t{e} * w, w));
      return;
    }
    if (a.imm != 0 || n != 1) fail_at(error_kind::unsupported, t, "a parameter read other than a whole scalar parameter");
    return write(t, dst, params_[i]);
  }
  check_alignment(t, addr.at, w * n);
  place p = locate(t, x.has_space ? x.space : ptx::state_space::generic, addr, w * n);
  // Every element is read before anything is observed or written, so that a load that waits for
  // a write (read_wait) has changed nothing when it runs again.
  if (n > 8) fail_at(error_kind::unsupported, t, "a vector of more than 8 elements");
  std::array<value, 8> vs;
  read_waits_ = true;
  for (std::uint32_t i = 0; i < n; ++i) vs[i] = load_cell(t, *p.r, p.offset + std::uint64_t{i} * w, w);
  read_waits_ = false;
  observe(t, p, w * n, access_kind::read, pc);
  for (std::uint32_t i = 0; i < n; ++i) {
    value& v = vs[i];
    if (v.t == value::tag::bits && is_signed(x.type)) v.bits = static_cast<std::uint64_t>(sext(v.bits, x.type));
    else if (v.t == value::tag::bits) v.bits &= mask_of(x.type);
    write(t, dst.element(i), std::move(v));
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::store(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  const xoperand& src = x.ops[1];
  address_value addr = effective_address(t, x.ops[0]);
  std::uint32_t w = access_width(x);
  std::uint32_t n = src.elements();
  if (x.space == ptx::state_space::param) fail_at(error_kind::unsupported, t, "a store to parameter space");
  check_alignment(t, addr.at, w * n);
  place p = locate(t, x.has_space ? x.space : ptx::state_space::generic, addr, w * n);
  if (p.r->space == memory_space::constant) fail_at(error_kind::unsupported, t, "a store to constant memory");
  std::vector<value> vs;
  std::vector<value_identity> ids;
  for (std::uint32_t i = 0; i < n; ++i) {
    value v = read(t, src.element(i));
    if (v.t == value::tag::bits) v.bits &= mask_of(x.type);
    // A pair stored narrower than itself (st.u32 of a 64-bit word pair, st.u16 of an f16x2) keeps
    // its low half, or the bits of its low bytes (to_bits fails on symbolic halves).
    if (v.t == value::tag::packed && w != 2 * bytes(v.k))
      v = w == bytes(v.k) ? value::of_real(v.r, v.k) : value::of_bits(to_bits(v, t) & mask_of(x.type));
    if (v.t == value::tag::predicate) fail_at(error_kind::not_structured, t, "a store of a symbolic predicate");
    ids.push_back(identity_of(v));
    vs.push_back(std::move(v));
  }
  observe(t, p, w * n, access_kind::write, pc, sequences_.of(ids));
  for (std::uint32_t i = 0; i < n; ++i) p.r->store(p.offset + std::uint64_t{i} * w, w, std::move(vs[i]));
}

// The region of a fast load or store: the region this instruction touched last when the address
// lies inside it (and was derived from it or from no array), else the generic search, which
// also reports an access outside every array.
template <value_domain D, observer O>
inline auto engine<D, O>::locate_fast(std::uint32_t t, std::uint32_t pc, ptx::state_space space, address_value a,
    std::uint32_t width) -> place {
  std::uint64_t addr = a.at;
  bool shared = space == ptx::state_space::shared;
  if (space == ptx::state_space::generic) {
    if (addr >= address::local_window && addr < address::local_window + address::window_size)
      return locate(t, space, a, width);
    shared = addr >= address::shared_window && addr < address::shared_window + address::window_size;
    if (shared) addr -= address::shared_window;
  }
  std::uint32_t i = hint_[pc];
  if (i != ~0u) {
    const fast_window& w = windows_[i];
    if (w.shared == shared && addr - w.base + width <= w.bytes && addr >= w.base && (a.provenance == 0 || a.provenance == i + 1))
      return place{w.r, i, addr - w.base};
  }
  place p = locate(t, space, a, width);
  if (p.index != ~0u) hint_[pc] = p.index;
  return p;
}

template <value_domain D, observer O>
inline bool engine<D, O>::fast_load(std::uint32_t t, lane_regs regs, const fast_form& f, std::uint32_t pc) {
  address_value addr;
  if (!fast_address(regs, f, pc, addr)) return false;
  std::uint32_t w = f.width, all = w * f.n;
  if (addr.at & (all - 1)) return false;  // misaligned: the generic path reports it
  place p = locate_fast(t, pc, f.space, addr, all);
  // As in load: read every element before observing or writing (a waiting load changes nothing).
  read_waits_ = true;
  if (f.n == 1) {
    value v = load_cell(t, *p.r, p.offset, w);
    read_waits_ = false;
    observe(t, p, all, access_kind::read, pc);
    if (v.t == value::tag::bits) v.bits = cut(v.bits, f.t_shift, f.t_signed);
    regs[f.dst[0]] = std::move(v);
    return true;
  }
  value vs[4];
  for (std::uint32_t i = 0; i < f.n; ++i) vs[i] = load_cell(t, *p.r, p.offset + std::uint64_t{i} * w, w);
  read_waits_ = false;
  observe(t, p, all, access_kind::read, pc);
  for (std::uint32_t i = 0; i < f.n; ++i) {
    value& v = vs[i];
    if (v.t == value::tag::bits) v.bits = cut(v.bits, f.t_shift, f.t_signed);
    regs[f.dst[i]] = std::move(v);
  }
  return true;
}

// Warp-wide fast loads (warp_lanes): fast_load's work for the lanes of one warp, in lane order,
// in one pass: each lane's place, its stored values, its read event and its registers. It stops
// at the first lane that does not read whole stored values in the instruction's hinted region (a
// guard, an address outside that region or in local memory, a misaligned one, a read of pieces,
// an unwritten byte other than an input element's): that lane and the ones after it go through
// fast_load one by one. An input element read for the first time is materialized (load_pieces)
// in its lane's turn, as fast_load would. A lane's base register is read before its destination
// is written, as in fast_load; the registers written are each lane's own.
template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::warp_load(std::uint32_t first, std::uint32_t end, std::uint32_t pc,
    std::uint32_t& ran) {
  const fast_form& f = p_.fast[pc];
  const std::uint32_t hinted = hint_[pc];
  if (f.guarded || hinted == ~0u) return first;
  const fast_window& win = windows_[hinted];
  region<real>& r = *win.r;
  const std::uint32_t w = f.width, n = f.n, all = w * n;
  value* regs = warp_regs(first);
  // A symbol's address is every lane's (fast_address); otherwise each lane's base register.
  const address_value fixed = f.absolute ? fixed_[pc] : address_value{};
  if (f.absolute && !fixed.provenance) return first;
  const value* base = f.absolute ? nullptr : regs + std::size_t{f.base} * warp_size;
  const bool generic = f.space == ptx::state_space::generic;
  const bool window_shared = win.shared;
  // An address in another state space than the window's, or one past it: [win.base, win.base +
  // limit] holds the accesses that fit (off = addr - win.base wraps past limit below the base).
  if ((!generic && window_shared != (f.space == ptx::state_space::shared)) || win.bytes < all) return first;
  const std::uint64_t limit = win.bytes - all;
  auto materializable = [&](std::uint64_t off) {
    return (r.inputs || r.given) && w == r.element_bytes && off % w == 0 && !r.any_slot(off, w);
  };
  std::uint32_t slots[4];
  std::uint64_t last_off = ~std::uint64_t{0};  // the last lane's place, whose slots[] are found
  std::uint32_t t = first;
  const bool whole = warp_whole_;
  for (; t < end; ++t) {
    if (!whole && status_[t] == status::exited) continue;
    const std::uint32_t lane = t - first;
    address_value a = fixed;
    if (base) {
      const value& b = base[lane];
      if (b.t != value::tag::bits) break;
      a = {b.bits + f.offset, b.provenance};
    }
    if (a.provenance != 0 && a.provenance != hinted + 1) break;
    std::uint64_t addr = a.at;
    if (addr & (all - 1)) break;
    if (generic) {
      const bool shared = addr >= address::shared_window && addr < address::shared_window + address::window_size;
      if (shared) addr -= address::shared_window;
      else if (addr >= address::local_window && addr < address::local_window + address::window_size) break;
      if (window_shared != shared) break;
    }
    const std::uint64_t off = addr - win.base;
    if (off > limit) break;
    std::uint32_t e = 0;
    // A lane that reads where the lane before it read (a broadcast: a row of a tile that a group
    // of lanes shares) reads the same values: nothing between the two changed the region. (A
    // cache of the last eight places measured slower: bench_exec, 2026-11-29.)
    if (off == last_off) e = n;
    for (; e < n; ++e) {
      const std::uint64_t at = off + std::uint64_t{e} * w;
      std::uint32_t s = r.slot(at);
      if (s == 0 && materializable(at)) {
        try {
          load_pieces(t, r, at, w);
          s = r.slot(at);
        } catch (const run_failure&) {
          // not ready: fast_load meets the same error in this lane's turn
        }
      }
      if (s == 0) break;
      const auto& sv = r.value(s);
      if (sv.offset != at || sv.width != w || !sv.intact) break;
      slots[e] = s;
    }
    if (e != n) break;
    last_off = off;
    observe(t, place{&r, hinted, off}, all, access_kind::read, pc);
    for (e = 0; e < n; ++e) {
      value v = r.value(slots[e]).value;
      if (v.t == value::tag::bits) v.bits = cut(v.bits, f.t_shift, f.t_signed);
      regs[std::size_t{f.dst[e]} * warp_size + lane] = std::move(v);
    }
    pc_[t] = pc + 1;
    ++ran;
  }
  return t;
}

template <value_domain D, observer O>
inline bool engine<D, O>::fast_store(std::uint32_t t, lane_regs regs, const fast_form& f, std::uint32_t pc) {
  address_value addr;
  if (!fast_address(regs, f, pc, addr)) return false;
  for (std::uint32_t i = 0; i < f.n; ++i)
    if (!f.is_imm(i) && (regs[f.src[i]].t == value::tag::empty || regs[f.src[i]].t == value::tag::predicate ||
                         (regs[f.src[i]].t == value::tag::packed && f.width != 2 * bytes(regs[f.src[i]].k))))
      return false;  // (a pair stored narrower than itself: store's rule)
  std::uint32_t w = f.width, all = w * f.n;
  if (addr.at & (all - 1)) return false;
  place p = locate_fast(t, pc, f.space, addr, all);
  if (p.r->space == memory_space::constant) return false;
  value vs[4];
  value_identity ids[4];
  for (std::uint32_t i = 0; i < f.n; ++i) {
    vs[i] = f.is_imm(i) ? value::of_bits(f.imms[i]) : regs[f.src[i]];
    if (vs[i].t == value::tag::bits) vs[i].bits = (vs[i].bits << f.t_shift) >> f.t_shift;
    ids[i] = identity_of(vs[i]);
  }
  observe(t, p, all, access_kind::write, pc, sequences_.of(std::span<const value_identity>(ids, f.n)));
  for (std::uint32_t i = 0; i < f.n; ++i) p.r->store(p.offset + std::uint64_t{i} * w, w, std::move(vs[i]));
  return true;
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
