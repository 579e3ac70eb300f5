// How one kernel is launched for a run: grid and block shape, which CTA to run, dynamic shared
// memory, and what each kernel parameter is bound to (a tensor with its element type, shape and
// role, a scalar that is a concrete number or a symbolic real, or a struct of such fields; the
// contents the host gave a tensor, if any). Plain data: check/ builds it from a pair spec, tests
// and library users build it directly.
#pragma once

#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/tma.hpp>
#include <gpueq/exec/values.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpueq::exec {

using dim3 = std::array<std::uint32_t, 3>;

// Contents the host gave a tensor before the launch (check/contents.hpp makes them from a spec's
// "contents"): element i's bits as memory holds them. The engine puts an element's bits in
// memory when it is first read, where it would otherwise read a symbolic input (input and inout
// tensors) or report an uninitialized read (output and scratch tensors), so such data are
// concrete in every domain: an index loaded from them is an integer, and the addresses and
// branches computed from it stay concrete.
struct given_contents {
  std::function<std::uint64_t(std::uint64_t)> bits;
};

struct tensor_binding {
  std::string name;
  rkind kind = rkind::f32;          // element format; rkind::integer for integer tensors
  std::uint32_t element_bytes = 4;  // element size in memory (integer tensors: 1, 2, 4 or 8)
  bool is_signed = true;            // integer tensors
  std::vector<std::uint64_t> shape;
  bool input = true;    // initial contents are inputs (input and inout tensors)
  bool output = false;  // final contents are results (output and inout tensors)
  // Given initial contents; none: unwritten elements are inputs when `input`, else uninitialized.
  std::shared_ptr<const given_contents> contents;

  std::uint64_t elements() const {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  std::uint64_t bytes() const { return elements() * element_bytes; }
};

// The integer `bytes` bytes of memory hold: `bits` cut to that width, sign-extended when signed.
inline std::int64_t integer_of_bits(std::uint64_t bits, std::uint32_t bytes, bool is_signed) {
  const unsigned w = 8 * bytes;
  if (w < 64) {
    bits &= (std::uint64_t{1} << w) - 1;
    if (is_signed && (bits >> (w - 1)) & 1) bits |= ~((std::uint64_t{1} << w) - 1);
  }
  return static_cast<std::int64_t>(bits);
}
// The integer an integer tensor's element with these bits holds.
inline std::int64_t element_integer(const tensor_binding& t, std::uint64_t bits) {
  return integer_of_bits(bits, t.element_bytes, t.is_signed);
}

// What element e of launch tensor ti (= t) holds before any thread writes it, as a value of
// domain d: its given contents, else the domain's input. An inout element no CTA wrote ends with
// it, and atomics of several CTAs on one element start from it (check/run.hpp).
template <value_domain D>
typename D::real initial_value(D& d, const tensor_binding& t, std::uint32_t ti, std::uint64_t e) {
  if (!t.contents) return d.input(input_ref{ti, t.name, e, t.shape, t.kind});
  const std::uint64_t bits = t.contents->bits(e);
  if (t.kind == rkind::integer) return d.from_int(element_integer(t, bits));
  return d.from_float(bits, t.kind);
}

struct scalar_binding {
  std::string name;
  bool symbolic = false;  // a symbolic real (alpha, beta): a domain input with no indices
  double value = 0;       // concrete: converted to the parameter's PTX type
};

// A field of a by-value struct parameter: `bytes` bytes at byte `offset` of the parameter, a
// tensor's base address (8 bytes) or a scalar of type `type`.
struct field_binding {
  std::uint64_t offset = 0;
  std::uint32_t bytes = 8;
  bool tensor = true;
  std::uint32_t index = 0;  // into tensors or scalars
  vtype type = vtype::u64;  // a scalar's type
};

// A CUtensorMap parameter (`.param .align 64 .b8 p[128]`, CUDA's `const __grid_constant__
// CUtensorMap`): the map the host encoded with cuTensorMapEncodeTiled over tensors[tensor]. The
// engine sets its global address to the tensor's base and lays the map out as 128 bytes of
// constant memory in gpueq's encoding (exec/tma.hpp), which the parameter's symbol addresses.
struct tensor_map_binding {
  std::string name;  // for reports: the spec's name of the map
  std::uint32_t tensor = 0;
  tma::tensor_map map;
};

// Parameter i of the kernel is tensors[index] or scalars[index], or, when `fields` is not empty,
// a struct passed by value (`.param .align 8 .b8 p[N]`) made of those fields, or, with `map`,
// tensor_maps[index].
struct param_binding {
  bool tensor = true;
  std::uint32_t index = 0;
  std::vector<field_binding> fields;
  bool map = false;
  // A constructor rather than aggregate initialization, so that `{true, i}` (a plain parameter,
  // the form from before struct parameters) still initializes every member.
  param_binding() = default;
  param_binding(bool is_tensor, std::uint32_t i, std::vector<field_binding> struct_fields = {})
      : tensor(is_tensor), index(i), fields(std::move(struct_fields)) {}
};

struct launch {
  dim3 grid{1, 1, 1}, block{1, 1, 1};
  dim3 cta{0, 0, 0};  // the CTA this run executes; with a cluster, the cluster's first CTA
  // A thread-block cluster shape (`__cluster_dims__`): {0, 0, 0} for none (each run is one CTA,
  // the implicit 1x1x1 cluster of a launch without clusters); otherwise one run executes every
  // CTA of the cluster whose first CTA is `cta` (exec/semantics/cluster.hpp).
  dim3 cluster{0, 0, 0};
  std::uint64_t dynamic_shared_bytes = 0;
  std::vector<tensor_binding> tensors;
  std::vector<scalar_binding> scalars;
  std::vector<param_binding> params;
  std::vector<tensor_map_binding> tensor_maps;

  std::uint32_t threads() const { return block[0] * block[1] * block[2]; }  // of one CTA
  bool clustered() const { return cluster[0] != 0; }
  std::uint32_t cluster_ctas() const { return clustered() ? cluster[0] * cluster[1] * cluster[2] : 1; }
};

}  // namespace gpueq::exec
