// Tensor cores (semantics of engine<D, O>, declared in exec/engine.hpp): mma.sync (m16n8k4/8/16),
// ldmatrix, stmatrix, movmatrix and wmma (m16n16k16) as warp collectives over fragments
// (exec/fragments.hpp gives the lane layouts). Products accumulate in k order over the domain, as f32 fused multiply-adds.
#pragma once

#include <gpueq/exec/engine.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

inline fragments::element_type element_of(vtype t) {
  switch (t) {
    case vtype::bf16: case vtype::bf16x2: return fragments::element_type::bf16;
    case vtype::tf32: return fragments::element_type::tf32;
    case vtype::f32: return fragments::element_type::f32;
    default: return fragments::element_type::f16;
  }
}

// Element `index` of a lane's fragment registers (two halves per register for 16-bit types).
template <value_domain D, observer O>
inline auto engine<D, O>::fragment_element(std::uint32_t u, const std::vector<const xoperand*>& regs,
    std::uint32_t index, rkind k, bool half) -> real {
  if (!half) return to_real(read(u, *regs[index]), k, u);
  value v = read(u, *regs[index / 2]);
  if (v.t == value::tag::packed) return index % 2 ? v.r2 : v.r;
  std::uint64_t b = to_bits(v, u);
  return guarded([&] { return d_.from_float(index % 2 ? (b >> 16) & 0xffff : b & 0xffff, k); }, u);
}

template <value_domain D, observer O>
inline void engine<D, O>::mma(const xinstr& x, const std::vector<std::uint32_t>& members) {
  // mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c
  using fragments::operand;
  if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "mma.sync needs all 32 lanes", pc_[members.front()]);
  fragments::mma_shape shape = x.has(flag::m16n8k16) ? fragments::mma_shape::m16n8k16
                               : x.has(flag::m16n8k8) ? fragments::mma_shape::m16n8k8
                                                      : fragments::mma_shape::m16n8k4;
  if (x.types.size() != 4 || !x.has(flag::row) || !x.has(flag::col))
    fail_at(error_kind::unsupported, members.front(), "this mma form (expected .row.col with d, a, b, c types)");
  vtype td = x.types[0], ta = x.types[1], tc = x.types[3];
  if (ta == vtype::e4m3 || ta == vtype::e5m2 || x.types[2] == vtype::e4m3 || x.types[2] == vtype::e5m2)
    fail_at(error_kind::unsupported, members.front(), "mma.sync on fp8 (.e4m3/.e5m2) operands is not modelled yet");
  fragments::element_type ab = element_of(ta);
  if (!fragments::mma_supported(shape, ab) || td != vtype::f32 || tc != vtype::f32)
    fail_at(error_kind::unsupported, members.front(), "this mma shape or type");
  rkind kab = *rkind_of(ta);
  bool half = ab != fragments::element_type::tf32;
  auto ea = fragments::mma_extent(shape, operand::a), eb = fragments::mma_extent(shape, operand::b),
       ec = fragments::mma_extent(shape, operand::c);
  std::vector<real> A(ea.rows * ea.cols), B(eb.rows * eb.cols), C(ec.rows * ec.cols);
  auto ra = regs_of(x.ops[1]), rb = regs_of(x.ops[2]), rc = regs_of(x.ops[3]);
  for (auto u : members) {
    std::uint32_t lane = u % warp_size;
    for (std::uint32_t i = 0; i < fragments::mma_elements_per_lane(shape, operand::a); ++i) {
      auto at = fragments::mma_element(shape, operand::a, ab, lane, i);
      A[at.row * ea.cols + at.col] = fragment_element(u, ra, i, kab, half);
    }
    for (std::uint32_t i = 0; i < fragments::mma_elements_per_lane(shape, operand::b); ++i) {
      auto at = fragments::mma_element(shape, operand::b, ab, lane, i);
      B[at.row * eb.cols + at.col] = fragment_element(u, rb, i, kab, half);
    }
    for (std::uint32_t i = 0; i < fragments::mma_elements_per_lane(shape, operand::c); ++i) {
      auto at = fragments::mma_element(shape, operand::c, ab, lane, i);
      C[at.row * ec.cols + at.col] = to_real(read(u, *rc[i]), rkind::f32, u);
    }
  }
  std::vector<real> Dm = product(A, B, C, ec.rows, ec.cols, ea.cols, members.front());
  auto rd = regs_of(x.ops[0]);
  for (auto u : members) {
    std::uint32_t lane = u % warp_size;
    for (std::uint32_t i = 0; i < fragments::mma_elements_per_lane(shape, operand::c); ++i) {
      auto at = fragments::mma_element(shape, operand::c, ab, lane, i);
      write(u, *rd[i], value::of_real(Dm[at.row * ec.cols + at.col], rkind::f32));
    }
  }
}

// D = A·B + C over the domain, accumulating in k order (f32, round to nearest in float32).
template <value_domain D, observer O>
inline auto engine<D, O>::product(const std::vector<real>& A, const std::vector<real>& B, const std::vector<real>& C,
    std::uint32_t m, std::uint32_t n, std::uint32_t k, std::uint32_t t) -> std::vector<real> {
  std::vector<real> Dm(std::size_t{m} * n);
  if constexpr (requires { D::f32_product(A.data(), B.data(), C.data(), Dm.data(), m, n, k); })
    if (D::f32_product(A.data(), B.data(), C.data(), Dm.data(), m, n, k)) return Dm;
  for (std::uint32_t i = 0; i < m; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      real acc = C[i * n + j];
      for (std::uint32_t q = 0; q < k; ++q) {
        if constexpr (requires { D::template f32_plain<aop::fma>(0.0, 0.0, 0.0); }) {
          double r = D::template f32_plain<aop::fma>(A[i * k + q], B[q * n + j], acc);
          if (!std::isnan(r)) {  // (a NaN comes from arith, as in fast_float_finish)
            acc = r;
            continue;
          }
        }
        real xs[3] = {A[i * k + q], B[q * n + j], acc};
        acc = guarded([&] { return d_.arith(aop::fma, xs, rkind::f32, float_mode{}); }, t);
      }
      Dm[i * n + j] = acc;
    }
  return Dm;
}

template <value_domain D, observer O>
inline void engine<D, O>::ldmatrix(const xinstr& x, const std::vector<std::uint32_t>& members) {
  // ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 d, [a]: lanes 8i..8i+7 give the row
  // addresses of matrix i; lane l receives, per matrix r, the two halves ldmatrix_element names.
  if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "ldmatrix needs all 32 lanes", pc_[members.front()]);
  std::uint32_t count = x.has(flag::x4) ? 4 : x.has(flag::x2) ? 2 : 1;
  bool trans = x.has(flag::trans);
  std::vector<address_value> row_address(count * 8);
  for (std::uint32_t lane = 0; lane < count * 8; ++lane) {
    std::uint32_t u = members[lane];
    row_address[lane] = effective_address(u, x.ops[1]);
  }
  // Read every row (8 halves) once; each lane's read is observed as its own access.
  std::vector<value> halves(count * 64);
  for (std::uint32_t lane = 0; lane < count * 8; ++lane) {
    std::uint32_t u = members[lane];
    address_value addr = row_address[lane];
    check_alignment(u, addr.at, 16);
    place p = locate(u, x.has_space ? x.space : ptx::state_space::shared, addr, 16);
    observe(u, p, 16, access_kind::read, pc_[u]);
    for (std::uint32_t c = 0; c < 8; ++c) halves[lane * 8 + c] = load_cell(u, *p.r, p.offset + 2 * c, 2);
  }
  for (auto u : members) {
    std::uint32_t lane = u % warp_size;
    auto rd = regs_of(x.ops[0]);
    for (std::uint32_t r = 0; r < count; ++r) {
      value parts[2];
      for (std::uint32_t h = 0; h < 2; ++h) {
        auto at = fragments::ldmatrix_element(trans, lane, h);
        std::uint32_t src_lane = fragments::ldmatrix_row_source(r, at.row);
        parts[h] = halves[src_lane * 8 + at.col];
      }
      write(u, *rd[r], pack(u, {parts[0], parts[1]}, 2));
    }
  }
}

// stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}{.shared{::cta}}.b16 [p], {r...}: ldmatrix's layout
// the other way (fragments::stmatrix_source). Lane 8i + j supplies the address of row j of matrix
// i and that row's 16-byte write is observed as its access (as ldmatrix observes its reads), with
// the row's eight halves as the value; the halves come from the lanes that hold them. Every
// register is read before anything is written. Without a state space the address is generic and
// must fall in shared memory (the ISA leaves anything else undefined).
template <value_domain D, observer O>
inline void engine<D, O>::stmatrix(const xinstr& x, const std::vector<std::uint32_t>& members) {
  const std::uint32_t u0 = members.front();
  if (members.size() != warp_size) fail(error_kind::barrier, u0, "stmatrix needs all 32 lanes", pc_[u0]);
  const std::uint32_t count = x.has(flag::x4) ? 4 : x.has(flag::x2) ? 2 : x.has(flag::x1) ? 1 : 0;
  if (!x.has(flag::m8n8) || x.type != vtype::b16 || count == 0)
    fail_at(error_kind::unsupported, u0, "this stmatrix form (expected .m8n8 with .x1, .x2 or .x4 and .b16)");
  const bool trans = x.has(flag::trans);
  if (x.has_space && x.space != ptx::state_space::shared)
    fail_at(error_kind::unsupported, u0, "stmatrix stores to shared memory only");
  // Every lane's source halves, register r, half h at [(lane * count + r) * 2 + h].
  std::vector<value> halves(std::size_t{warp_size} * count * 2);
  for (auto u : members) {
    const std::uint32_t lane = u % warp_size;
    auto rs = regs_of(x.ops[1]);
    if (rs.size() != count)
      fail_at(error_kind::unsupported, u, "stmatrix .x" + std::to_string(count) + " stores from " +
                                              std::to_string(count) + " registers, not " + std::to_string(rs.size()));
    for (std::uint32_t r = 0; r < count; ++r) {
      value v = read(u, *rs[r]);
      for (std::uint32_t h = 0; h < 2; ++h) halves[(lane * count + r) * 2 + h] = piece(u, v, h, 2);
    }
  }
  for (std::uint32_t m = 0; m < count; ++m)
    for (std::uint32_t row = 0; row < fragments::ldmatrix_rows; ++row) {
      const std::uint32_t u = members[fragments::ldmatrix_row_source(m, row)];
      address_value addr = effective_address(u, x.ops[0]);
      check_alignment(u, addr.at, 16);
      place p = locate(u, x.has_space ? x.space : ptx::state_space::generic, addr, 16);
      if (p.r->space != memory_space::shared)
        fail_at(error_kind::unsupported, u,
                "stmatrix to " + std::string(name(p.r->space)) + " memory (it stores to shared memory only)");
      value row_values[fragments::ldmatrix_cols];
      value_identity ids[fragments::ldmatrix_cols];
      for (std::uint32_t col = 0; col < fragments::ldmatrix_cols; ++col) {
        const fragments::slot from = fragments::stmatrix_source(trans, {row, col});
        row_values[col] = halves[(from.lane * count + m) * 2 + from.index];
        ids[col] = identity_of(row_values[col]);
      }
      observe(u, p, 16, access_kind::write, pc_[u], sequences_.of(ids));
      for (std::uint32_t col = 0; col < fragments::ldmatrix_cols; ++col)
        p.r->store(p.offset + 2 * col, 2, std::move(row_values[col]));
    }
}

// movmatrix.sync.aligned.m8n8.trans.b16 d, a: a warp-wide transpose of one 8x8 matrix of halves
// in the row fragment layout (fragments::movmatrix_source); no memory is touched.
template <value_domain D, observer O>
inline void engine<D, O>::movmatrix(const xinstr& x, const std::vector<std::uint32_t>& members) {
  const std::uint32_t u0 = members.front();
  if (members.size() != warp_size) fail(error_kind::barrier, u0, "movmatrix needs all 32 lanes", pc_[u0]);
  if (!x.has(flag::m8n8) || !x.has(flag::trans) || x.type != vtype::b16 || x.types.size() != 1)
    fail_at(error_kind::unsupported, u0, "this movmatrix form (expected movmatrix.sync.aligned.m8n8.trans.b16)");
  std::vector<value> halves(std::size_t{warp_size} * 2);
  for (auto u : members) {
    value v = read(u, x.ops[1]);
    for (std::uint32_t h = 0; h < 2; ++h) halves[(u % warp_size) * 2 + h] = piece(u, v, h, 2);
  }
  for (auto u : members) {
    const std::uint32_t lane = u % warp_size;
    value parts[2];
    for (std::uint32_t h = 0; h < 2; ++h) {
      const fragments::slot from = fragments::movmatrix_source(lane, h);
      parts[h] = halves[from.lane * 2 + from.index];
    }
    write(u, x.ops[0], pack(u, {parts[0], parts[1]}, 2));
  }
}

// wmma m16n16k16: fragments are whole-warp objects (the layout among lanes is unspecified by
// PTX; fragments.hpp fixes one, used consistently by load, mma and store).
template <value_domain D, observer O>
inline auto engine<D, O>::wmma_kind_of(const xinstr& x, std::uint32_t u) -> wmma_kind {
  if (!x.has(flag::m16n16k16)) fail_at(error_kind::unsupported, u, "wmma shapes other than m16n16k16");
  fragments::operand which = x.has(flag::a) ? fragments::operand::a : x.has(flag::b) ? fragments::operand::b : fragments::operand::c;
  vtype t = x.type;
  fragments::element_type et = element_of(t);
  if (!fragments::wmma_supported(which, et)) fail_at(error_kind::unsupported, u, "this wmma fragment type");
  return {which, et, rkind_of(t).value_or(rkind::f32)};
}

template <value_domain D, observer O>
inline void engine<D, O>::wmma_load(const xinstr& x, const std::vector<std::uint32_t>& members) {
  if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "wmma needs all 32 lanes", pc_[members.front()]);
  std::uint32_t u0 = members.front();
  wmma_kind wk = wmma_kind_of(x, u0);
  auto layout = x.has(flag::col) ? fragments::matrix_layout::col : fragments::matrix_layout::row;
  address_value base = effective_address(u0, x.ops[1]);
  std::uint32_t stride = x.ops.size() > 2 ? static_cast<std::uint32_t>(to_bits(read(u0, x.ops[2]), u0)) : 16;
  for (auto u : members)
    if (effective_address(u, x.ops[1]).at != base.at) fail_at(error_kind::unsupported, u, "wmma.load with different addresses per lane");
  std::uint32_t eb = bytes(wk.k);
  bool half = eb == 2;
  auto space = x.has_space ? x.space : ptx::state_space::generic;
  for (auto u : members) {
    std::uint32_t lane = u % warp_size;
    auto rd = regs_of(x.ops[0]);
    std::uint32_t per_lane = fragments::wmma_elements_per_lane(wk.which, wk.t);
    std::vector<value> elems(per_lane);
    for (std::uint32_t i = 0; i < per_lane; ++i) {
      auto at = fragments::wmma_element(wk.which, wk.t, lane, i);
      address_value addr{base.at + fragments::wmma_memory_offset(layout, at, stride) * eb, base.provenance};
      place p = locate(u, space, addr, eb);
      observe(u, p, eb, access_kind::read, pc_[u]);
      elems[i] = load_cell(u, *p.r, p.offset, eb);
    }
    if (half)
      for (std::uint32_t r = 0; r < rd.size(); ++r) write(u, *rd[r], pack(u, {elems[2 * r], elems[2 * r + 1]}, 2));
    else
      for (std::uint32_t r = 0; r < rd.size(); ++r) write(u, *rd[r], elems[r]);
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::wmma_store(const xinstr& x, const std::vector<std::uint32_t>& members) {
  if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "wmma needs all 32 lanes", pc_[members.front()]);
  std::uint32_t u0 = members.front();
  if (x.type != vtype::f32) fail_at(error_kind::unsupported, u0, "wmma.store of a non-f32 fragment");
  auto layout = x.has(flag::col) ? fragments::matrix_layout::col : fragments::matrix_layout::row;
  address_value base = effective_address(u0, x.ops[0]);
  std::uint32_t stride = x.ops.size() > 2 ? static_cast<std::uint32_t>(to_bits(read(u0, x.ops[2]), u0)) : 16;
  auto space = x.has_space ? x.space : ptx::state_space::generic;
  for (auto u : members) {
    std::uint32_t lane = u % warp_size;
    auto rs = regs_of(x.ops[1]);
    for (std::uint32_t i = 0; i < rs.size(); ++i) {
      auto at = fragments::wmma_element(fragments::operand::c, fragments::element_type::f32, lane, i);
      address_value addr{base.at + fragments::wmma_memory_offset(layout, at, stride) * 4, base.provenance};
      place p = locate(u, space, addr, 4);
      value v = read(u, *rs[i]);
      observe(u, p, 4, access_kind::write, pc_[u], identity_of(v));
      p.r->store(p.offset, 4, v);
    }
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::wmma_mma(const xinstr& x, const std::vector<std::uint32_t>& members) {
  // wmma.mma.sync.aligned.alayout.blayout.m16n16k16.f32.f32 d, a, b, c (f16 a/b)
  using fragments::operand;
  if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "wmma needs all 32 lanes", pc_[members.front()]);
  if (!x.has(flag::m16n16k16) || x.types.size() != 2 || x.types[0] != vtype::f32 || x.types[1] != vtype::f32)
    fail_at(error_kind::unsupported, members.front(), "this wmma.mma form (f16 inputs, f32 accumulators expected)");
  auto et = fragments::element_type::f16;
  std::vector<real> A(256), B(256), C(256);
  auto ra = regs_of(x.ops[1]), rb = regs_of(x.ops[2]), rc = regs_of(x.ops[3]);
  for (auto u : members) {
    std::uint32_t lane = u % warp_size;
    for (std::uint32_t i = 0; i < fragments::wmma_elements_per_lane(operand::a, et); ++i) {
      auto at = fragments::wmma_element(operand::a, et, lane, i);
      A[at.row * 16 + at.col] = fragment_element(u, ra, i, rkind::f16, true);
    }
    for (std::uint32_t i = 0; i < fragments::wmma_elements_per_lane(operand::b, et); ++i) {
      auto at = fragments::wmma_element(operand::b, et, lane, i);
      B[at.row * 16 + at.col] = fragment_element(u, rb, i, rkind::f16, true);
    }
    for (std::uint32_t i = 0; i < rc.size(); ++i) {
      auto at = fragments::wmma_element(operand::c, fragments::element_type::f32, lane, i);
      C[at.row * 16 + at.col] = to_real(read(u, *rc[i]), rkind::f32, u);
    }
  }
  std::vector<real> Dm = product(A, B, C, 16, 16, 16, members.front());
  auto rd = regs_of(x.ops[0]);
  for (auto u : members) {
    std::uint32_t lane = u % warp_size;
    for (std::uint32_t i = 0; i < rd.size(); ++i) {
      auto at = fragments::wmma_element(operand::c, fragments::element_type::f32, lane, i);
      write(u, *rd[i], value::of_real(Dm[at.row * 16 + at.col], rkind::f32));
    }
  }
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
