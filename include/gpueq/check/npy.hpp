// Reading and writing numpy's .npy format (versions 1.0 to 3.0, little-endian, C order): a spec's
// given contents (`"contents": {"npy": FILE}`, check/contents.hpp) and `gpueq run`'s tensors in
// and out, as files any Python user can load with numpy.load. Only what gpueq needs: float16/32/64
// and (u)int8..64 arrays, as their elements' bits (read_bits) or converted to and from doubles.
// A file is read for one tensor of a spec and validated against it before anything is sized
// from the file: the header is parsed strictly (a dict with exactly descr, fortran_order and
// shape, at most numpy's own 10000 bytes), its dtype and shape must be the tensor's exactly (no
// silent conversion), and the data length must equal what the shape needs, checked against the
// file's size, so a short or lying file is an error, never a large allocation.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gpueq/check/dtype.hpp>
#include <gpueq/exec/floats.hpp>
#include <gpueq/support/diagnostics.hpp>

namespace gpueq::check::npy {

struct array {
  std::string descr;  // "<f4", "<i4", ...
  std::vector<std::uint64_t> shape;
  std::vector<double> values;
};

// The numpy dtype a tensor of type d is written and read as.
inline std::string descr_of(check::dtype d) {
  switch (d) {
    case check::dtype::f16: return "<f2";
    case check::dtype::f32: return "<f4";
    case check::dtype::f64: return "<f8";
    case check::dtype::s8: return "<i1";
    case check::dtype::u8: return "<u1";
    case check::dtype::s16: return "<i2";
    case check::dtype::u16: return "<u2";
    case check::dtype::s32: return "<i4";
    case check::dtype::u32: return "<u4";
    case check::dtype::s64: return "<i8";
    case check::dtype::u64: return "<u8";
    case check::dtype::bf16: return "<f4";  // numpy has no bfloat16: written widened to float32
    case check::dtype::e4m3:
    case check::dtype::e5m2: return "<f4";  // nor fp8: the same
  }
  return "<f4";
}

inline std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace detail {

// The header dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (128,), }: a Python
// literal, parsed strictly; `fail` throws with the file's name.
struct header_fields {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
};

template <class Fail>
header_fields parse_header(std::string_view h, Fail fail) {
  std::size_t i = 0;
  auto skip = [&] {
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t')) ++i;
  };
  auto expect = [&](char c, const char* what) {
    skip();
    if (i >= h.size() || h[i] != c) fail(std::string("malformed header: expected ") + what);
    ++i;
  };
  auto quoted = [&] {
    skip();
    if (i >= h.size() || (h[i] != '\'' && h[i] != '"')) fail("malformed header: expected a quoted string");
    char q = h[i++];
    std::size_t end = h.find(q, i);
    if (end == std::string_view::npos) fail("malformed header: unterminated string");
    std::string s(h.substr(i, end - i));
    i = end + 1;
    return s;
  };
  header_fields f;
  bool seen[3] = {false, false, false};
  expect('{', "'{'");
  while (true) {
    skip();
    if (i < h.size() && h[i] == '}') break;
    std::string key = quoted();
    expect(':', "':'");
    skip();
    if (key == "descr") {
      f.descr = quoted();
      seen[0] = true;
    } else if (key == "fortran_order") {
      if (h.substr(i, 4) == "True") f.fortran_order = true, i += 4;
      else if (h.substr(i, 5) == "False") i += 5;
      else fail("malformed header: fortran_order is True or False");
      seen[1] = true;
    } else if (key == "shape") {
      expect('(', "'(' to open the shape");
      while (true) {
        skip();
        if (i < h.size() && h[i] == ')') break;
        std::size_t j = i;
        while (j < h.size() && h[j] >= '0' && h[j] <= '9') ++j;
        if (j == i || j - i > 19) fail("malformed header: a shape extent is not a non-negative integer");
        f.shape.push_back(std::stoull(std::string(h.substr(i, j - i))));
        i = j;
        skip();
        if (i < h.size() && h[i] == ',') ++i;
        else if (i >= h.size() || h[i] != ')') fail("malformed header: expected ',' or ')' in the shape");
      }
      ++i;
      seen[2] = true;
    } else {
      fail("malformed header: unknown key '" + key.substr(0, 40) + "'");
    }
    skip();
    if (i < h.size() && h[i] == ',') ++i;
    else if (i >= h.size() || h[i] != '}') fail("malformed header: expected ',' or '}'");
  }
  ++i;
  while (i < h.size() && (h[i] == ' ' || h[i] == '\n')) ++i;
  if (i != h.size() || h.empty() || h.back() != '\n') fail("malformed header: it must end with the dict and a newline");
  if (!seen[0] || !seen[1] || !seen[2]) fail("malformed header: it needs descr, fortran_order and shape");
  return f;
}

}  // namespace detail

// numpy.load refuses headers longer than this by default (its max_header_size).
inline constexpr std::uint32_t max_header_bytes = 10000;

// A file's elements as they are stored: each element's bits (little-endian, `width` bytes).
struct bits_array {
  std::string descr;  // "<f4", "<i4", ...
  std::vector<std::uint64_t> shape;
  std::vector<std::uint64_t> bits;
};

// Reads `path` as one tensor (or scalar) of the spec: `type` and `shape` are what the spec
// declares ({} for a scalar, which takes shape () or (1,)); `what` names it in errors
// ("tensor 'x'"). The file's dtype must be `type`'s (descr_of) and its shape `shape`, exactly.
// Throws support::diagnostic_error naming the file.
inline bits_array read_bits(std::istream& in, std::uint64_t file_size, const std::string& path, check::dtype type,
                            const std::vector<std::uint64_t>& shape, const std::string& what) {
  auto fail = [&](const std::string& reason) -> void { throw support::diagnostic_error({path, {}, reason}); };
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail("not a .npy file");
  if (magic[6] < 1 || magic[6] > 3) fail("unsupported .npy version " + std::to_string(static_cast<int>(magic[6])));
  std::uint32_t header_len = 0;
  unsigned char b[4] = {0, 0, 0, 0};
  const unsigned len_bytes = magic[6] == 1 ? 2 : 4;
  in.read(reinterpret_cast<char*>(b), len_bytes);
  if (!in) fail("truncated header");
  header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
  const std::uint64_t data_start = 8 + len_bytes + std::uint64_t{header_len};
  if (header_len > max_header_bytes)
    fail("header of " + std::to_string(header_len) + " bytes (numpy's limit is " + std::to_string(max_header_bytes) + ")");
  if (data_start > file_size) fail("truncated header: it declares " + std::to_string(header_len) + " bytes");
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (!in) fail("truncated header");
  detail::header_fields h = detail::parse_header(header, fail);
  if (h.fortran_order) fail("Fortran order is not supported (save a C-ordered array)");

  // dtype and shape exactly as the spec declares them: a file of another type or shape is a
  // mistake to report, not something to convert.
  std::string want = descr_of(type);
  std::string got = h.descr;
  if (got.size() == 3 && (got[0] == '|' || got[0] == '=') && got[2] == '1') got[0] = '<';  // one byte: no byte order
  if (got != want)
    fail("dtype '" + h.descr.substr(0, 20) + "' does not match the spec's " + what + ": " + std::string(check::name(type)) +
         " is '" + want + "'");
  bool scalar_ok = shape.empty() && (h.shape.empty() || h.shape == std::vector<std::uint64_t>{1});
  if (h.shape != shape && !scalar_ok)
    fail("shape " + shape_text(h.shape) + " does not match the spec's " + what + ": " + shape_text(shape.empty() ? std::vector<std::uint64_t>{1} : shape));

  // The data: exactly the bytes the shape needs (the shape is the spec's, so its size is bounded),
  // compared with the file's size before anything is allocated.
  const unsigned width = static_cast<unsigned>(want[2] - '0');
  std::uint64_t n = 1;
  for (auto d : h.shape) n *= d;
  const std::uint64_t need = n * width, have = file_size - data_start;
  if (have != need)
    fail("holds " + std::to_string(have) + " bytes of data; shape " + shape_text(h.shape) + " of '" + want + "' needs " +
         std::to_string(need));
  bits_array a;
  a.descr = want;
  a.shape = h.shape;
  std::vector<unsigned char> raw(need);
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (!in) fail("fewer values than its shape holds");
  a.bits.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t v = 0;
    for (unsigned k = 0; k < width; ++k) v |= std::uint64_t{raw[i * width + k]} << (8 * k);
    a.bits[i] = v;
  }
  return a;
}

// The same from the file at `path`, which must be a regular file.
inline bits_array read_bits(const std::string& path, check::dtype type, const std::vector<std::uint64_t>& shape,
                            const std::string& what) {
  auto fail = [&](const std::string& reason) -> void { throw support::diagnostic_error({path, {}, reason}); };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("is a directory, not a .npy file");
  if (!std::filesystem::exists(path, ec)) fail("cannot open: no such file");
  if (!std::filesystem::is_regular_file(path, ec)) fail("is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open");
  const std::uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) fail("cannot read its size");
  return read_bits(in, file_size, path, type, shape, what);
}

// The value of an element's bits, stored as numpy type `descr` ("<f4", "<i2", ...).
inline double value_of(std::uint64_t bits, const std::string& descr) {
  const char kind = descr[1];
  const unsigned width = static_cast<unsigned>(descr[2] - '0');
  if (kind == 'f') return exec::floats::decode(bits, width == 2 ? exec::rkind::f16 : width == 4 ? exec::rkind::f32 : exec::rkind::f64);
  if (kind == 'u') return static_cast<double>(bits);
  return static_cast<double>(width == 8 ? static_cast<std::int64_t>(bits)
                                        : static_cast<std::int64_t>(bits << (64 - 8 * width)) >> (64 - 8 * width));
}

// A tensor's (or scalar's) values as doubles: read_bits, then each element's value_of.
inline array values_of(bits_array b) {
  array a;
  a.descr = std::move(b.descr);
  a.shape = std::move(b.shape);
  a.values.reserve(b.bits.size());
  for (std::uint64_t v : b.bits) a.values.push_back(value_of(v, a.descr));
  return a;
}
inline array read(std::istream& in, std::uint64_t file_size, const std::string& path, check::dtype type,
                  const std::vector<std::uint64_t>& shape, const std::string& what) {
  return values_of(read_bits(in, file_size, path, type, shape, what));
}
inline array read(const std::string& path, check::dtype type, const std::vector<std::uint64_t>& shape,
                  const std::string& what) {
  return values_of(read_bits(path, type, shape, what));
}

// The bits of an integer element: v truncated toward zero and clamped to the 64-bit range of its
// kind (u64 values past 2^63 and s64 values that rounded up to 2^63 are not converted through a
// range they leave: that is undefined), then cut to the element's width by the caller.
inline std::uint64_t integer_bits(double v, char kind) {
  if (std::isnan(v)) return 0;
  if (kind == 'u' && v >= 0x1p63) return v >= 0x1p64 ? UINT64_MAX : static_cast<std::uint64_t>(v);
  if (v >= 0x1p63) return static_cast<std::uint64_t>(INT64_MAX);
  if (v < -0x1p63) return static_cast<std::uint64_t>(INT64_MIN);
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
}

inline void write(std::ostream& out, const std::string& descr, const std::vector<std::uint64_t>& shape,
                  const std::vector<double>& values) {
  std::string sh = "(";
  for (auto d : shape) sh += std::to_string(d) + ", ";
  if (shape.size() > 1) sh.resize(sh.size() - 1);
  sh += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  out.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header;
  char kind = descr[1];
  unsigned width = static_cast<unsigned>(descr[2] - '0');
  for (double v : values) {
    std::uint64_t b;
    if (kind == 'f') {
      exec::rkind k = width == 2 ? exec::rkind::f16 : width == 4 ? exec::rkind::f32 : exec::rkind::f64;
      b = exec::floats::encode(exec::floats::round_to(v, k), k);
    } else {
      b = integer_bits(v, kind);
    }
    for (unsigned k = 0; k < width; ++k) out.put(static_cast<char>((b >> (8 * k)) & 0xff));
  }
}

inline void write(const std::string& path, const std::string& descr, const std::vector<std::uint64_t>& shape,
                  const std::vector<double>& values) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw support::diagnostic_error({path, {}, "cannot write"});
  write(out, descr, shape, values);
  if (!out) throw support::diagnostic_error({path, {}, "write failed"});
}

}  // namespace gpueq::check::npy
