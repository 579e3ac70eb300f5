// Reading and writing numpy's .npy format (version 1.0, little-endian, C order) for `gpueq run`:
// tensors in and out as files any Python user can load with numpy.load. Only what gpueq needs:
// float16/32/64 and (u)int8..64 arrays, converted to and from doubles.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gpueq/exec/floats.hpp>

namespace gpueq::cli::npy {

struct array {
  std::string descr;  // "<f4", "<i4", ...
  std::vector<std::uint64_t> shape;
  std::vector<double> values;
};

inline std::uint64_t elements(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

inline array read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + ": not a .npy file");
  std::uint32_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
  }
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (!in) throw std::runtime_error(path + ": truncated header");
  array a;
  auto field = [&](const std::string& key) {
    auto at = header.find("'" + key + "'");
    if (at == std::string::npos) throw std::runtime_error(path + ": header lacks '" + key + "'");
    return header.substr(header.find(':', at) + 1);
  };
  std::string d = field("descr");
  a.descr = d.substr(d.find('\'') + 1, 3);
  if (field("fortran_order").find("True") < field("fortran_order").find(',')) throw std::runtime_error(path + ": Fortran order is not supported");
  std::string sh = field("shape");
  sh = sh.substr(sh.find('(') + 1, sh.find(')') - sh.find('(') - 1);
  for (std::size_t i = 0; i < sh.size();) {
    while (i < sh.size() && (sh[i] == ' ' || sh[i] == ',')) ++i;
    if (i >= sh.size()) break;
    std::size_t j = i;
    while (j < sh.size() && sh[j] >= '0' && sh[j] <= '9') ++j;
    if (j == i) throw std::runtime_error(path + ": bad shape");
    a.shape.push_back(std::stoull(sh.substr(i, j - i)));
    i = j;
  }
  char kind = a.descr[1];
  unsigned width = static_cast<unsigned>(a.descr[2] - '0');
  if (a.descr[0] == '>' || !(width == 1 || width == 2 || width == 4 || width == 8) || (kind != 'f' && kind != 'i' && kind != 'u'))
    throw std::runtime_error(path + ": unsupported dtype " + a.descr);
  std::uint64_t n = elements(a.shape);
  std::vector<unsigned char> raw(n * width);
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (!in) throw std::runtime_error(path + ": fewer values than its shape holds");
  a.values.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t b = 0;
    for (unsigned k = 0; k < width; ++k) b |= std::uint64_t{raw[i * width + k]} << (8 * k);
    if (kind == 'f') a.values[i] = exec::floats::decode(b, width == 2 ? exec::rkind::f16 : width == 4 ? exec::rkind::f32 : exec::rkind::f64);
    else if (kind == 'u') a.values[i] = static_cast<double>(b);
    else a.values[i] = static_cast<double>(width == 8 ? static_cast<std::int64_t>(b) : static_cast<std::int64_t>(b << (64 - 8 * width)) >> (64 - 8 * width));
  }
  return a;
}

inline void write(const std::string& path, const std::string& descr, const std::vector<std::uint64_t>& shape,
                  const std::vector<double>& values) {
  std::string sh = "(";
  for (auto d : shape) sh += std::to_string(d) + ", ";
  if (shape.size() > 1) sh.resize(sh.size() - 1);
  sh += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path + ": cannot write");
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
      b = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    }
    for (unsigned k = 0; k < width; ++k) out.put(static_cast<char>((b >> (8 * k)) & 0xff));
  }
  if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace gpueq::cli::npy
