// The async proxy (semantics of engine<D, O>, declared in exec/engine.hpp): TMA tensor copies
// (cp.async.bulk.tensor, tile mode, 1-5 D), bulk copies (cp.async.bulk), their reductions
// (cp.reduce.async.bulk(.tensor), .add), bulk groups (cp.async.bulk.commit_group/wait_group),
// proxy fences (fence.proxy.*), and tensor maps in memory (tensormap.replace,
// tensormap.cp_fenceproxy; a CUtensorMap parameter is laid out by layout_memory). PTX ISA 9.0,
// "Data Movement and Conversion Instructions: cp.async.bulk / cp.async.bulk.tensor /
// cp.reduce.async.bulk", "tensormap.replace", "membar/fence" (proxy fences); the geometry of a
// tensor copy (coordinates, out-of-bounds fill, swizzle) is exec/tma.hpp's.
//
// The model (README, "Semantics"; docs/ARCHITECTURE.md, "Synchronization"):
// - Each issuing thread t has one virtual agent, n + t (run_info::agents), that makes the copy's
//   accesses: its global reads and shared writes (a load), its shared reads and global writes or
//   atomic adds (a store or reduction), each element observed as an access of the agent.
// - A copy's accesses happen, and its values land, when it issues; what orders them is the
//   synchronization, not the time: at the issue the agent acquires its thread's clock (an
//   `async_issue` instance), or, for a copy that reads shared memory, only the thread's view
//   that proxy fences made visible (`proxy_fence`, race/async_proxy.hpp). A load then registers
//   its agent on the mbarrier with complete_tx of the box's bytes, so a thread that waits on the
//   phase is ordered after the copy, and a thread that reads the destination without waiting
//   races with it (RAW, naming the copy's line and the read's). A store's or reduction's agent
//   registers on `async_done`, which the thread's cp.async.bulk.wait_group acquires.
// - fence.proxy.async registers the thread on its `proxy_fence`; the other proxy fences
//   (.tensormap::generic, .alias) order nothing that gpueq models and have no effect.
// - Multicast (.multicast::cluster, a load into shared memory with an mbarrier, in a cluster run):
//   the copy lands at the same CTA-relative offset in the shared memory of every CTA its ctaMask
//   names, and completes its bytes on the mbarrier at the same offset in each of those CTAs (PTX
//   ISA, cp.async.bulk(.tensor)); one agent, the issuing thread's, makes every destination's writes.
// - Not modelled, refused with a message: the im2col modes, prefetch of tensors into L2
//   (cp.async.bulk.prefetch), reductions other than .add.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// Whether the kernel has an instruction of the async proxy (then the observer gets an agent per
// thread, run_info::agents).
template <value_domain D, observer O>
inline bool engine<D, O>::uses_async_proxy() const {
  using op = ptx::opcode;
  for (const xinstr& x : p_.code)
    if (x.op == op::cp_async_bulk || x.op == op::cp_async_bulk_tensor || x.op == op::cp_reduce_async_bulk ||
        x.op == op::cp_async_mbarrier_arrive || x.op == op::wgmma_mma_async ||
        (x.op == op::fence && has_mod(x, ".proxy")))
      return true;
  return false;
}

// A modifier no flag stands for (xinstr::unknown_mods), by spelling.
template <value_domain D, observer O>
inline bool engine<D, O>::has_mod(const xinstr& x, std::string_view m) const {
  for (std::uint32_t id : x.unknown_mods)
    if (p_.str(id) == m) return true;
  return false;
}

// fence / fence.proxy.*: a plain fence orders nothing a race-free CTA needs (barriers do);
// fence.proxy.async is the thread's proxy fence; the tensormap and alias proxy fences have no
// effect in gpueq's model.
template <value_domain D, observer O>
inline void engine<D, O>::fence(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  bool proxy = false, async = false;
  for (std::uint32_t id : x.unknown_mods) {
    std::string_view m = p_.str(id);
    if (m == ".proxy") proxy = true;
    else if (m == ".async") async = true;
    else if (m != ".tensormap::generic" && m != ".alias")
      fail_at(error_kind::unsupported, t, "modifier " + std::string(m));
  }
  if (!proxy || !async) return;
  barrier_key key{barrier_kind::proxy_fence, t};
  std::uint32_t g = ++proxy_[t].fences;
  barrier_registration r{t, false, pc};
  o_.on_barrier_register(r, key, g, 0);
  o_.on_barrier_complete(barrier_instance{key, g, 1, std::span<const barrier_registration>(&r, 1)});
}

// The agent of thread t starts a copy: it acquires the thread's clock, or only the fenced view of
// it when the copy reads shared memory.
template <value_domain D, observer O>
inline void engine<D, O>::async_issue(std::uint32_t t, std::uint32_t pc, bool reads_shared) {
  const std::uint32_t agent = n_ + t;
  if (reads_shared) {
    o_.on_barrier_acquire(barrier_registration{agent, true, pc}, barrier_key{barrier_kind::proxy_fence, t},
                          proxy_[t].fences);
    return;
  }
  barrier_key key{barrier_kind::async_issue, t};
  std::uint32_t g = ++proxy_[t].issues;
  std::array<barrier_registration, 2> regs{barrier_registration{t, false, pc}, barrier_registration{agent, true, pc}};
  for (const auto& r : regs) o_.on_barrier_register(r, key, g, 0);
  o_.on_barrier_complete(barrier_instance{key, g, 2, regs});
}

// The agent of thread t has made a bulk-group copy's accesses: a generation the thread's
// wait_group acquires.
template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::async_done(std::uint32_t t, std::uint32_t pc) {
  barrier_key key{barrier_kind::async_done, t};
  std::uint32_t g = ++proxy_[t].done;
  barrier_registration r{n_ + t, false, pc};
  o_.on_barrier_register(r, key, g, 0);
  o_.on_barrier_complete(barrier_instance{key, g, 1, std::span<const barrier_registration>(&r, 1)});
  return g;
}

// The tensor map at an address operand (a CUtensorMap parameter, or one built in global memory),
// read field by field in gpueq's layout (exec/tma.hpp), each read observed as observer_thread's.
template <value_domain D, observer O>
inline tma::tensor_map engine<D, O>::read_map(std::uint32_t t, const xoperand& a, std::uint32_t observer_thread,
                                               std::uint32_t pc) {
  address_value at = effective_address(t, a);
  check_alignment(t, at.at, 64);
  place p = locate(t, ptx::state_space::generic, at, tma::map_bytes);
  observe(observer_thread, p, tma::map_bytes, access_kind::read, pc);
  return tma::decode([&](tma::field_slot s) -> std::uint64_t {
    std::uint64_t bits = to_bits(load_cell(t, *p.r, p.offset + s.offset, s.width), t);
    return s.width == 8 ? bits : bits & ((std::uint64_t{1} << (8 * s.width)) - 1);
  });
}

// One element (or piece) of a copy: `width` bytes from `from` to `to`, observed as the agent's
// read and write; a reduction adds into `to` (kind k; integers by their bits) as an atomic add.
template <value_domain D, observer O>
inline void engine<D, O>::bulk_move(std::uint32_t t, std::uint32_t agent, std::uint32_t pc, const place& from,
                                    const place& to, std::uint32_t width, bool reduce, rkind k) {
  value v = load_cell(t, *from.r, from.offset, width);
  observe(agent, from, width, access_kind::read, pc);
  if (reduce) {
    value old = load_cell(t, *to.r, to.offset, width);
    observe(agent, to, width, access_kind::atomic, pc, {}, atomic_op::add);
    if (k != rkind::integer || is_symbolic(old) || is_symbolic(v)) {  // data through the domain
      real xs[2] = {to_real(old, k, t), to_real(v, k, t)};
      v = value::of_real(guarded([&] { return d_.arith(aop::add, xs, k, float_mode{}); }, t), k);
    } else {
      std::uint64_t mask = width == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * width)) - 1;
      v = value::of_bits((to_bits(old, t) + to_bits(v, t)) & mask);
    }
    to.r->store(to.offset, width, std::move(v));
    return;
  }
  observe(agent, to, width, access_kind::write, pc, identity_of(v));
  to.r->store(to.offset, width, std::move(v));
}

// The agent's complete_tx of `bytes` on the mbarrier at `addr` (a load's landing).
template <value_domain D, observer O>
inline void engine<D, O>::bulk_complete_tx(std::uint32_t t, std::uint32_t agent, address_value addr,
                                           std::uint32_t pc, std::uint64_t tx) {
  check_alignment(t, addr.at, 8);
  place p = locate(t, ptx::state_space::shared, addr, 8);
  if (p.index == ~0u || p.r->space != memory_space::shared)
    fail_at(error_kind::barrier, t, "an mbarrier object must be in shared memory");
  observe(agent, p, 8, access_kind::atomic, pc, {}, atomic_op::other);
  barrier_key key{barrier_kind::mbarrier, (std::uint64_t{p.index} << 32) | p.offset};
  mbarrier_state& m = mbarriers_[key];
  if (!m.valid)
    fail_at(error_kind::barrier, t,
            resource_name(key) + (m.invalidated ? " was invalidated" : " is used before mbarrier.init") + " (the copy's completion)");
  if (tx > static_cast<std::uint64_t>(max_mbarrier_count))
    fail_at(error_kind::barrier, t, "a copy of " + std::to_string(tx) + " bytes exceeds an mbarrier's transaction count");
  mbarrier_register(agent, key, m, pc);
  mbarrier_tx(t, key, m, -static_cast<std::int64_t>(tx));
  mbarrier_try_complete(t, key, m);
}

template <value_domain D, observer O>
inline void engine<D, O>::bulk_copy(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  using op = ptx::opcode;
  const std::uint32_t agent = n_ + t;
  // Modifiers: the destination's state space comes first, the source's second.
  std::vector<ptx::state_space> spaces;
  for (std::uint32_t id : p_.function->instructions[pc].mods) {
    std::string_view m = p_.str(id);
    if (m == ".global") spaces.push_back(ptx::state_space::global);
    else if (m.starts_with(".shared")) spaces.push_back(ptx::state_space::shared);
  }
  bool tensor = x.op == op::cp_async_bulk_tensor || (x.op == op::cp_reduce_async_bulk && has_mod(x, ".tensor"));
  bool reduce = x.op == op::cp_reduce_async_bulk;
  std::uint32_t dims = 0;
  bool with_mbarrier = false, bulk_group = false, multicast = false;
  for (std::uint32_t id : x.unknown_mods) {
    std::string_view m = p_.str(id);
    if (m.size() == 3 && m[0] == '.' && m[1] >= '1' && m[1] <= '5' && m[2] == 'd') dims = static_cast<std::uint32_t>(m[1] - '0');
    else if (m == ".mbarrier::complete_tx::bytes") with_mbarrier = true;
    else if (m == ".bulk_group") bulk_group = true;
    else if (m == ".tile" || m == ".tensor") continue;
    else if (m == ".multicast::cluster") multicast = true;
    else if (m.starts_with(".im2col"))
      fail_at(error_kind::unsupported, t, "the im2col tensor copy modes are not modelled (tile mode only)");
    else fail_at(error_kind::unsupported, t, "modifier " + std::string(m));
  }
  if (reduce && !x.has(flag::add)) fail_at(error_kind::unsupported, t, "bulk reductions other than .add are not modelled");
  if (spaces.size() != 2) fail_at(error_kind::unsupported, t, "a bulk copy needs a destination and a source state space");
  const bool to_shared = spaces[0] == ptx::state_space::shared, from_shared = spaces[1] == ptx::state_space::shared;
  if (with_mbarrier == bulk_group)
    fail_at(error_kind::unsupported, t, "a bulk copy completes through an mbarrier or a bulk group, one of them");
  if (reduce && to_shared) fail_at(error_kind::unsupported, t, "bulk reductions into shared memory are not modelled");
  if (multicast && (!to_shared || !with_mbarrier || reduce))
    fail_at(error_kind::unsupported, t, "multicast is a copy into shared memory completed on an mbarrier");
  async_issue(t, pc, from_shared);

  // Where a load lands: its destination and mbarrier, or with multicast the same CTA-relative
  // offsets in each CTA of the ctaMask (the operand after the mbarrier). `dst` is the shared-memory
  // box of a tensor copy (its destination, or a store's source), a bulk copy's destination.
  struct destination {
    address_value dst, mbar;
  };
  std::vector<destination> dests;
  const xoperand& dst_op = tensor ? (to_shared ? x.ops[0] : x.ops[1]) : x.ops[0];
  const std::size_t mbar_index = tensor ? 2 : 3;
  if (with_mbarrier && x.ops.size() <= mbar_index) fail_at(error_kind::unsupported, t, "a bulk copy without its mbarrier operand");
  dests.push_back({effective_address(t, dst_op), with_mbarrier ? effective_address(t, x.ops[mbar_index]) : address_value{}});
  if (multicast) {
    if (x.ops.size() <= mbar_index + 1) fail_at(error_kind::unsupported, t, "a multicast copy without its ctaMask operand");
    const std::uint64_t mask = to_bits(read(t, x.ops[mbar_index + 1]), t) & 0xffffu;
    const std::uint64_t offset_bits = (std::uint64_t{1} << rank_shift) - 1;
    const address_value d0 = dests[0].dst, m0 = dests[0].mbar;
    dests.clear();
    for (std::uint32_t r = 0; r < 16; ++r) {
      if (!(mask >> r & 1)) continue;
      if (r >= cluster_ctas_)
        fail_at(error_kind::out_of_bounds, t,
                "the multicast ctaMask 0x" + hex(mask) + " names CTA rank " + std::to_string(r) + ", outside the cluster of " +
                    std::to_string(cluster_ctas_));
      const std::uint64_t rank_bits = std::uint64_t{r + 1} << rank_shift;
      dests.push_back({{(d0.at & offset_bits) | rank_bits, d0.provenance}, {(m0.at & offset_bits) | rank_bits, m0.provenance}});
    }
  }

  std::uint64_t tx_bytes = 0;  // what the copy completes on its mbarrier
  if (tensor) {
    // [dst], [map, {coords}], [mbar]  (load)   |   [map, {coords}], [src]  (store, reduction)
    const xoperand& mapop = to_shared ? x.ops[1] : x.ops[0];
    if (mapop.elems.size() != 1 || mapop.elems[0].k != xoperand::kind::vector)
      fail_at(error_kind::unsupported, t, "a tensor copy names its map and coordinates as [map, {c0, ...}]");
    tma::tensor_map map = read_map(t, mapop, agent, pc);
    std::vector<std::int32_t> coords;
    for (const xoperand& c : mapop.elems[0].elems)
      coords.push_back(static_cast<std::int32_t>(to_bits(read(t, c), t) & 0xffffffffu));
    if (dims && dims != coords.size())
      fail_at(error_kind::unsupported, t, "." + std::to_string(dims) + "d copy with " + std::to_string(coords.size()) + " coordinates");
    rkind k = rkind::integer;
    switch (map.type) {
      case tma::element_type::f16: k = rkind::f16; break;
      case tma::element_type::bf16: k = rkind::bf16; break;
      case tma::element_type::f64: k = rkind::f64; break;
      case tma::element_type::f32: case tma::element_type::f32_ftz: case tma::element_type::tf32:
      case tma::element_type::tf32_ftz: k = rkind::f32; break;
      default: break;
    }
    try {
      tma::box_shape shape = tma::shape(map);
      for (const destination& dest : dests) {
        place base = locate(t, ptx::state_space::shared, dest.dst, static_cast<std::uint32_t>(shape.shared_bytes));
        const std::uint32_t w = shape.element_bytes;
        const auto shared_address = static_cast<std::uint32_t>(base.r->base + base.offset);
        tma::for_each_element(map, coords, shared_address, [&](const tma::element& e) {
          place sh{base.r, base.index, base.offset + e.shared_offset};
          if (!e.in_bounds) {
            if (!to_shared) return;  // a store or reduction skips elements outside the tensor
            value fill = value::of_bits(tma::fill_bits(map));
            observe(agent, sh, w, access_kind::write, pc, identity_of(fill));
            sh.r->store(sh.offset, w, std::move(fill));
            return;
          }
          place gl = locate(t, ptx::state_space::global, {map.global_address + e.global_offset, 0}, w);
          if (to_shared) bulk_move(t, agent, pc, gl, sh, w, false, k);
          else bulk_move(t, agent, pc, sh, gl, w, reduce, k);
        });
      }
      tx_bytes = shape.transaction_bytes;
    } catch (const tma::map_error& e) {
      fail_at(e.which() == tma::map_error::kind::invalid ? error_kind::out_of_bounds : error_kind::unsupported, t,
              e.what());
    }
  } else {
    // [dst], [src], size {, [mbar]}: size bytes, a multiple of 16, both addresses 16-byte aligned.
    address_value s = effective_address(t, x.ops[1]);
    const std::uint64_t size = to_bits(read(t, x.ops[2]), t) & 0xffffffffu;
    if (size % 16 != 0) fail_at(error_kind::misaligned, t, "a bulk copy's size, " + std::to_string(size) + " bytes, is not a multiple of 16");
    check_alignment(t, s.at, 16);
    const auto n = static_cast<std::uint32_t>(size);
    place from = locate(t, spaces[1], s, n);
    // In pieces: a reduction's elements (its type), else the cells the source holds (a value a
    // kernel stored whole is moved whole, so symbolic data needs no splitting), or a tensor's
    // elements where nothing was stored.
    const rkind k = rkind_of(x.type).value_or(rkind::integer);
    const std::uint32_t typed = reduce ? exec::bytes(x.type) : 0;
    if (reduce && (typed == 0 || size % typed != 0))
      fail_at(error_kind::unsupported, t, "a bulk reduction whose size is not a multiple of its elements");
    for (const destination& dest : dests) {
      check_alignment(t, dest.dst.at, 16);
      place to = locate(t, spaces[0], dest.dst, n);
      for (std::uint64_t off = 0; off < size;) {
        std::uint32_t w = typed;
        if (!w) {
          const std::uint64_t at = from.offset + off;
          w = std::max<std::uint32_t>(1, std::min<std::uint32_t>(8, from.r->element_bytes));
          if (std::uint32_t slot = from.r->slot(at)) {
            const auto& sv = from.r->value(slot);
            // A value a later store covers in part is not moved whole: byte by byte until the
            // later value's own place.
            w = sv.offset == at && sv.intact && sv.width <= size - off ? sv.width : 1;
          }
          if (off + w > size || (at % w) != 0) w = 1;
        }
        bulk_move(t, agent, pc, place{from.r, from.index, from.offset + off}, place{to.r, to.index, to.offset + off}, w,
                  reduce, k);
        off += w;
      }
    }
    tx_bytes = size;
  }
  if (with_mbarrier) {
    for (const destination& dest : dests) bulk_complete_tx(t, agent, dest.mbar, pc, tx_bytes);
  } else {
    proxy_[t].pending.push_back(bulk_pending{proxy_[t].committed, async_done(t, pc)});
  }
}

// cp.async.bulk.commit_group closes the thread's open bulk group; cp.async.bulk.wait_group(.read)
// N retires every committed group but the newest N: the thread acquires the async_done
// generation of the last copy retired (its accesses, and every earlier copy's).
template <value_domain D, observer O>
inline void engine<D, O>::bulk_wait(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  async_proxy_state& s = proxy_[t];
  for (std::uint32_t id : x.unknown_mods)
    if (p_.str(id) != ".read") fail_at(error_kind::unsupported, t, "modifier " + std::string(p_.str(id)));
  if (x.op == ptx::opcode::cp_async_bulk_commit_group) {
    ++s.committed;
    return;
  }
  const std::uint64_t keep = to_bits(read(t, x.ops[0]), t);
  std::uint32_t last = 0;
  std::vector<bulk_pending> rest;
  for (const bulk_pending& b : s.pending) {
    if (b.group < s.committed && b.group + keep < s.committed) last = std::max(last, b.done);
    else rest.push_back(b);
  }
  s.pending = std::move(rest);
  if (last) o_.on_barrier_acquire(barrier_registration{t, true, pc}, barrier_key{barrier_kind::async_done, t}, last);
}

// tensormap.replace.tile.<field>{.space}.b1024.<type> [map], {ord,} new_val: one field of a map in
// memory; tensormap.cp_fenceproxy.<dst>.<src>... [dst], [src], 128: a map copied whole (its fields;
// with .sync.aligned a warp collective, copied once by the first member after all arrived).
template <value_domain D, observer O>
inline void engine<D, O>::tensormap_op(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  ptx::state_space space = x.has_space ? x.space : ptx::state_space::generic;
  if (x.op == ptx::opcode::tensormap_cp_fenceproxy) {
    std::vector<ptx::state_space> spaces;
    for (std::uint32_t id : p_.function->instructions[pc].mods) {
      std::string_view m = p_.str(id);
      if (m == ".global") spaces.push_back(ptx::state_space::global);
      else if (m.starts_with(".shared")) spaces.push_back(ptx::state_space::shared);
    }
    for (std::uint32_t id : x.unknown_mods) {
      std::string_view m = p_.str(id);
      if (m != ".tensormap::generic")
        fail_at(error_kind::unsupported, t, "modifier " + std::string(m));
    }
    if (spaces.size() != 2) fail_at(error_kind::unsupported, t, "tensormap.cp_fenceproxy needs .global and .shared::cta");
    if ((to_bits(read(t, x.ops[2]), t) & 0xffffffffu) != tma::map_bytes)
      fail_at(error_kind::unsupported, t, "tensormap.cp_fenceproxy copies 128 bytes");
    address_value d = effective_address(t, x.ops[0]), s = effective_address(t, x.ops[1]);
    check_alignment(t, d.at, 64);
    check_alignment(t, s.at, 64);
    place to = locate(t, spaces[0], d, tma::map_bytes), from = locate(t, spaces[1], s, tma::map_bytes);
    // The fields of gpueq's layout, then whatever bytes past them the source holds (a map that
    // was zeroed first, as Triton's are): the copy is the whole 128 bytes.
    std::vector<std::pair<tma::field_slot, value>> fields;
    // A map another thread is still writing: wait, as a load does (not in the warp-collective
    // form, which runs when the warp's members have all arrived: try_collective).
    read_waits_ = !x.has(flag::aligned);
    std::uint32_t end = 0;
    tma::encode(tma::tensor_map{}, [&](tma::field_slot f, std::uint64_t) {
      fields.push_back({f, load_cell(t, *from.r, from.offset + f.offset, f.width)});
      end = std::max(end, f.offset + f.width);
    });
    read_waits_ = false;
    for (std::uint32_t b = end; b < tma::map_bytes; ++b)
      if (from.r->slot(from.offset + b)) fields.push_back({tma::field_slot{b, 1}, load_cell(t, *from.r, from.offset + b, 1)});
    observe(t, from, tma::map_bytes, access_kind::read, pc);
    observe(t, to, tma::map_bytes, access_kind::write, pc);
    for (auto& [f, v] : fields) to.r->store(to.offset + f.offset, f.width, std::move(v));
    return;
  }
  std::optional<tma::field> field;
  for (std::uint32_t id : x.unknown_mods) {
    std::string_view m = p_.str(id);
    if (m == ".tile" || m == ".b1024") continue;
    if (auto f = m.size() > 1 ? tma::parse_field(m.substr(1)) : std::nullopt; f && !field) field = f;
    else fail_at(error_kind::unsupported, t, "modifier " + std::string(m) + " (tile-mode tensormap.replace fields only)");
  }
  if (!field) fail_at(error_kind::unsupported, t, "tensormap.replace names no field");
  std::optional<std::uint32_t> ord;
  if (x.ops.size() == 3) ord = static_cast<std::uint32_t>(to_bits(read(t, x.ops[1]), t) & 0xffffffffu);
  std::uint64_t v = to_bits(read(t, x.ops.back()), t) & mask_of(x.type);
  tma::tensor_map scratch;
  try {
    tma::replace(scratch, *field, ord, v);
  } catch (const tma::map_error& e) {
    fail_at(error_kind::out_of_bounds, t, e.what());
  }
  tma::field_slot slot = tma::slot_of(*field, ord.value_or(0));
  address_value a = effective_address(t, x.ops[0]);
  a.at += slot.offset;
  place p = locate(t, space, a, slot.width);
  if (p.r->space == memory_space::constant) fail_at(error_kind::unsupported, t, "a tensormap.replace in constant memory");
  value bits = value::of_bits(tma::stored(scratch, *field, ord.value_or(0)));
  observe(t, p, slot.width, access_kind::write, pc, identity_of(bits));
  p.r->store(p.offset, slot.width, std::move(bits));
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
