#!/usr/bin/env python3
"""Run corpus kernels on a GPU and compare its outputs with gpueq's float32 engine.

Two steps, on two machines; nothing here is needed to build or test gpueq.

  ./hardware.py prepare --gpueq ../../build/examples/gpueq --dir /tmp/hw PAIR.json...
      (any machine) For each pair and each of its kernels: writes seeded inputs as .npy, runs
      `gpueq run --domain float32 --inputs --out` on them and keeps gpueq's outputs and exit
      code, and writes a plan (cases.json) the second step reads.

  ./hardware.py launch --dir /tmp/hw [--repeat N] [--timeout S] [--report FILE]
      (a machine with an NVIDIA GPU and its driver) Loads each kernel's PTX with the driver
      (libcuda through ctypes; no CUDA toolkit, no numpy), encodes its tensor maps with
      cuTensorMapEncodeTiled, launches it on the same inputs (clusters through
      cuLaunchKernelEx) and compares every output element's bits with gpueq's. A pair whose
      spec expects a race or a deadlock is launched too (its kernel in a child process with a
      timeout, so a hang is a result, not a stuck script), repeated --repeat times.

Pure Python 3 (struct, ctypes); the .npy files are read and written here, in numpy's format
version 1.0, for the dtypes gpueq's specs use (bf16 tensors as float32 values, as gpueq does).
"""
import argparse
import ctypes
import hashlib
import json
import os
import random
import re
import struct
import subprocess
import sys
import time

# ---------------------------------------------------------------------------------------------
# dtypes and .npy files

# spec dtype -> (npy descr, struct code, bytes on the device). bf16 and fp8 tensors are float32
# values of their format in .npy files (gpueq's too), 2 and 1 bytes a value on the device.
DTYPES = {
    "f16": ("<f2", "e", 2), "bf16": ("<f4", "f", 2), "f32": ("<f4", "f", 4), "f64": ("<f8", "d", 8),
    "e4m3": ("<f4", "f", 1), "e5m2": ("<f4", "f", 1),
    "s8": ("<i1", "b", 1), "u8": ("<u1", "B", 1), "s16": ("<i2", "h", 2), "u16": ("<u2", "H", 2),
    "s32": ("<i4", "i", 4), "u32": ("<u4", "I", 4), "s64": ("<i8", "q", 8), "u64": ("<u8", "Q", 8),
}
FLOATS = {"f16", "bf16", "f32", "f64", "e4m3", "e5m2"}
# npy descr -> struct code (numpy writes one-byte types as "|i1" / "|u1")
NPY_CODES = {descr: code for descr, code, _ in DTYPES.values()}
NPY_CODES.update({"|i1": "b", "|u1": "B"})


def fp8_value(dtype, code):
    """The value of an fp8 code: e4m3 (bias 7, no infinities, S.1111.111 NaN) or e5m2 (bias 15)."""
    sign = -1.0 if code & 0x80 else 1.0
    if dtype == "e4m3":
        e, m = (code >> 3) & 0xF, code & 7
        if e == 15 and m == 7:
            return float("nan")
        return sign * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    e, m = (code >> 2) & 0x1F, code & 3
    if e == 31:
        return sign * float("inf") if m == 0 else float("nan")
    return sign * (m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))


FP8_CODES = {d: {fp8_value(d, c): c for c in range(255, -1, -1) if fp8_value(d, c) == fp8_value(d, c)}
             for d in ("e4m3", "e5m2")}  # value -> code (+0 wins over -0: codes go down to 0)


def fp8_code(dtype, v):
    if v != v:
        return 0x7F
    return FP8_CODES[dtype][v] if v != 0 else (0x80 if struct.pack("<f", v)[3] & 0x80 else 0)


def npy_write(path, dtype, shape, values):
    descr, code, _ = DTYPES[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), code), *values))


def npy_read_raw(path):
    """(descr, shape, raw bytes) of a version 1/2 .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(path + ": not a .npy file")
    if data[6] == 1:
        n, off = struct.unpack("<H", data[8:10])[0], 10
    else:
        n, off = struct.unpack("<I", data[8:12])[0], 12
    header = data[off:off + n].decode("latin1")
    descr = re.search(r"'descr':\s*'([^']+)'", header).group(1)
    shape = tuple(int(x) for x in re.search(r"'shape':\s*\(([^)]*)\)", header).group(1).replace(",", " ").split())
    return descr, shape, data[off + n:]


def npy_values(path):
    """The elements of a .npy file as Python numbers."""
    descr, shape, raw = npy_read_raw(path)
    code = NPY_CODES[descr]
    return list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(code), code), raw))


def bf16_round(x):
    """x rounded to bfloat16 (nearest, ties to even), as a Python float."""
    (bits,) = struct.unpack("<I", struct.pack("<f", x))
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def to_device_bytes(dtype, values):
    """The tensor's bytes as the kernel sees them."""
    if dtype in ("e4m3", "e5m2"):
        return bytes(fp8_code(dtype, v) for v in values)
    if dtype == "bf16":
        return b"".join(struct.pack("<f", v)[2:] for v in values)
    return struct.pack("<%d%s" % (len(values), DTYPES[dtype][1]), *values)


def device_bits(dtype, raw):
    """Per-element bit patterns (ints) of a tensor's device bytes, for an exact comparison."""
    size = DTYPES[dtype][2]
    code = {1: "B", 2: "H", 4: "I", 8: "Q"}[size]
    return list(struct.unpack("<%d%s" % (len(raw) // size, code), raw))


def npy_bits(dtype, path):
    """gpueq's output file as device bit patterns (bf16 narrowed from its float32 values)."""
    descr, shape, raw = npy_read_raw(path)
    if dtype == "bf16":
        vals = struct.unpack("<%df" % (len(raw) // 4), raw)
        return [struct.unpack("<I", struct.pack("<f", v))[0] >> 16 for v in vals]
    if dtype in ("e4m3", "e5m2"):
        return [fp8_code(dtype, v) for v in struct.unpack("<%df" % (len(raw) // 4), raw)]
    return device_bits(dtype, raw)


def bits_to_float(dtype, b):
    if dtype in ("e4m3", "e5m2"):
        return fp8_value(dtype, b)
    if dtype == "f16":
        return struct.unpack("<e", struct.pack("<H", b))[0]
    if dtype == "bf16":
        return struct.unpack("<f", struct.pack("<I", b << 16))[0]
    if dtype == "f32":
        return struct.unpack("<f", struct.pack("<I", b))[0]
    if dtype == "f64":
        return struct.unpack("<d", struct.pack("<Q", b))[0]
    return None


# ---------------------------------------------------------------------------------------------
# contents generators (examples/kernels/README.md, "contents")

M64, GAMMA = (1 << 64) - 1, 0x9E3779B97F4A7C15


def splitmix(seed, i):
    x = (seed + (i + 1) * GAMMA) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def contents_values(spec_dir, tensor, c, n):
    if c == "zeros":
        return [0] * n
    if "constant" in c:
        v = c["constant"]
        return [float(v.replace("+", "")) if isinstance(v, str) else v] * n
    if "iota" in c:
        start, step = c["iota"].get("start", 0), c["iota"].get("step", 1)
        return [start + step * i for i in range(n)]
    if "random_int" in c:
        lo, hi, seed = c["random_int"]["min"], c["random_int"]["max"], c["random_int"]["seed"]
        span = (hi - lo + 1) & M64
        return [lo + (splitmix(seed, i) % span if span else splitmix(seed, i)) for i in range(n)]
    if "permutation" in c:
        a = list(range(n))
        for k in range(n - 1):
            i = n - 1 - k
            j = splitmix(c["permutation"]["seed"], k) % (i + 1)
            a[i], a[j] = a[j], a[i]
        return a
    if "npy" in c:
        return npy_values(os.path.join(spec_dir, c["npy"]))
    raise ValueError("tensor %s: contents %r not understood" % (tensor, c))


# ---------------------------------------------------------------------------------------------
# prepare: inputs, gpueq's float32 outputs, the plan

def elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def random_values(rng, dtype, n):
    if dtype in ("e4m3", "e5m2"):  # uniform over the format's values in [-1, 1]
        vals = sorted(v for v in FP8_CODES[dtype] if abs(v) <= 1)
        return [rng.choice(vals) for _ in range(n)]
    if dtype in FLOATS:
        v = [rng.uniform(-1, 1) for _ in range(n)]
        if dtype == "f16":
            v = list(struct.unpack("<%de" % n, struct.pack("<%de" % n, *v)))
        elif dtype in ("bf16",):
            v = [bf16_round(x) for x in v]
        elif dtype == "f32":
            v = list(struct.unpack("<%df" % n, struct.pack("<%df" % n, *v)))
        return v
    lo = -8 if dtype.startswith("s") else 0
    return [rng.randint(lo, 8) for _ in range(n)]


def prepare(args):
    os.makedirs(args.dir, exist_ok=True)
    cases = []
    for pair_path in args.pairs:
        spec = json.load(open(pair_path))
        spec_dir = os.path.dirname(os.path.abspath(pair_path))
        name = os.path.splitext(os.path.splitext(os.path.basename(pair_path))[0])[0]
        family = os.path.basename(spec_dir)
        tensors = spec.get("tensors", {})
        scalars = spec.get("scalars", {})
        rng = random.Random("%s/%s/%d" % (family, name, args.seed))
        sides = [s for s in ("reference", "candidate") if s in spec and "ptx" in spec[s]]
        if "kernel" in spec:
            sides = ["kernel"]
        case_dir = os.path.join(args.dir, family + "__" + name)
        in_dir = os.path.join(case_dir, "in")
        os.makedirs(in_dir, exist_ok=True)
        # One set of inputs for both kernels of the pair.
        for t, d in tensors.items():
            n = elements(d["shape"])
            if "contents" in d:
                # Given contents: gpueq makes them itself; the launch reads them from given/.
                os.makedirs(os.path.join(case_dir, "given"), exist_ok=True)
                vals = contents_values(spec_dir, t, d["contents"], n)
                npy_write(os.path.join(case_dir, "given", t + ".npy"), d["dtype"], d["shape"], vals)
            elif d.get("role", "input") in ("input", "inout"):
                npy_write(os.path.join(in_dir, t + ".npy"), d["dtype"], d["shape"], random_values(rng, d["dtype"], n))
        symbolic = {}
        for s, v in scalars.items():
            if isinstance(v, dict) and v.get("symbolic"):
                # In [0, 1], not [-1, 1]: such scalars are epsilons and scales, and a negative
                # epsilon makes a normalization NaN on both sides, which compares nothing.
                symbolic[s] = abs(random_values(rng, v["dtype"], 1)[0])
                npy_write(os.path.join(in_dir, s + ".npy"), v["dtype"], [], [symbolic[s]])
        for side in sides:
            k = spec[side]
            if k.get("ctas", "all") != "all":
                # gpueq runs only the listed CTAs, the GPU the whole grid: their outputs are not
                # comparable element by element, so the kernel is left out, and said so.
                print("%-60s %-9s left out: the spec runs a subset of the grid (\"ctas\")" % (family + "/" + name, side))
                continue
            out_dir = os.path.join(case_dir, "gpueq_" + side)
            cmd = [args.gpueq, "run", "--domain", "float32", "--inputs", in_dir, "--out", out_dir, pair_path]
            if side != "kernel":
                cmd[2:2] = ["--side", side]
            t0 = time.time()
            p = subprocess.run(cmd, capture_output=True, text=True)
            secs = time.time() - t0
            ptx_path = os.path.join(spec_dir, k["ptx"])
            cases.append({
                "pair": family + "/" + name, "side": side, "dir": case_dir, "expect": spec.get("expect"),
                "culprit": spec.get("culprit"), "ptx": os.path.relpath(ptx_path, args.dir),
                "ptx_abs": ptx_path, "entry": k["entry"], "params": k["params"],
                "grid": k.get("grid", [1]), "block": k["block"], "cluster": k.get("cluster"),
                "dynamic_shared_bytes": k.get("dynamic_shared_bytes", 0),
                "tensors": tensors, "scalars": scalars, "structs": spec.get("structs", {}),
                "tensor_maps": spec.get("tensor_maps", {}), "symbolic": symbolic,
                "gpueq_exit": p.returncode, "gpueq_message": (p.stdout.strip().splitlines() or [""])[0][:300],
                "gpueq_seconds": round(secs, 3),
            })
            print("%-60s %-9s gpueq exit %d  %.2f s" % (family + "/" + name, side, p.returncode, secs), flush=True)
    # The PTX travels with the plan (the plan names it relative to --dir).
    ptx_dir = os.path.join(args.dir, "ptx")
    os.makedirs(ptx_dir, exist_ok=True)
    for c in cases:
        base = c["pair"].split("/")[0] + "__" + os.path.basename(c["ptx_abs"])
        with open(c["ptx_abs"], "rb") as src, open(os.path.join(ptx_dir, base), "wb") as dst:
            dst.write(src.read())
        c["ptx"] = os.path.join("ptx", base)
        c["dir"] = os.path.relpath(c["dir"], args.dir)
        del c["ptx_abs"]
    json.dump(cases, open(os.path.join(args.dir, "cases.json"), "w"), indent=1)
    print("%d kernels prepared in %s" % (len(cases), args.dir))


# ---------------------------------------------------------------------------------------------
# launch: the CUDA driver API through ctypes

class CudaError(Exception):
    pass


class Driver:
    def __init__(self):
        self.lib = ctypes.CDLL(os.environ.get("GPUEQ_LIBCUDA", "libcuda.so.1"))  # a stand-in, for testing this script
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        name = ctypes.create_string_buffer(256)
        self.lib.cuDeviceGetName(name, 256, dev)
        self.name = name.value.decode()
        self.lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        self.lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        self.lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        self.lib.cuMemsetD8_v2.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t]
        self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]

    def check(self, rc, what):
        if rc != 0:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(s))
            raise CudaError("%s: error %d (%s)" % (what, rc, s.value.decode() if s.value else "?"))

    def load(self, ptx):
        """The module, with the JIT's error log in the exception when it fails."""
        mod = ctypes.c_void_p()
        log = ctypes.create_string_buffer(16384)
        opts = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p).value, 16384)
        rc = self.lib.cuModuleLoadDataEx(ctypes.byref(mod), ctypes.c_char_p(ptx + b"\0"), 2, opts, vals)
        if rc != 0:
            raise CudaError("cuModuleLoadDataEx: error %d: %s" % (rc, log.value.decode(errors="replace")[:600]))
        return mod

    def alloc(self, nbytes, data=None):
        p = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), max(nbytes, 16)), "cuMemAlloc")
        self.check(self.lib.cuMemsetD8_v2(p.value, 0, max(nbytes, 16)), "cuMemsetD8")
        if data:
            self.check(self.lib.cuMemcpyHtoD_v2(p.value, data, len(data)), "cuMemcpyHtoD")
        return p.value

    def read(self, ptr, nbytes):
        buf = ctypes.create_string_buffer(nbytes)
        self.check(self.lib.cuMemcpyDtoH_v2(buf, ptr, nbytes), "cuMemcpyDtoH")
        return buf.raw


# CUtensorMapDataType by element dtype
TMAP_DTYPE = {"u8": 0, "s8": 0, "e4m3": 0, "e5m2": 0, "u16": 1, "s16": 1, "u32": 2, "s32": 3, "u64": 4, "s64": 5,
              "f16": 6, "f32": 7, "f64": 8, "bf16": 9}
SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
INTERLEAVE = {"none": 0, "16B": 1, "32B": 2}
L2 = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
OOB = {"zero": 0, "nan_request_zero_fma": 1}


def aligned(nbytes, align):
    raw = ctypes.create_string_buffer(nbytes + align)
    off = (-ctypes.addressof(raw)) % align
    return raw, ctypes.addressof(raw) + off


def encode_tensor_map(drv, tm, tensors, ptrs):
    t = tensors[tm["tensor"]]
    dtype = tm.get("dtype", t["dtype"])
    esize = DTYPES[dtype][2]
    dims = tm.get("global_dims", list(reversed(t["shape"])))
    rank = len(dims)
    strides = tm.get("global_strides")
    if strides is None:
        strides, s = [], esize
        for d in dims[:-1]:
            s *= d
            strides.append(s)
    box = tm["box"]
    estr = tm.get("element_strides", [1] * rank)
    keep, addr = aligned(128, 64)
    rc = drv.lib.cuTensorMapEncodeTiled(
        ctypes.c_void_p(addr), TMAP_DTYPE[dtype], ctypes.c_uint32(rank), ctypes.c_void_p(ptrs[tm["tensor"]]),
        (ctypes.c_uint64 * rank)(*dims), (ctypes.c_uint64 * max(rank - 1, 1))(*(strides or [0])),
        (ctypes.c_uint32 * rank)(*box), (ctypes.c_uint32 * rank)(*estr),
        INTERLEAVE[tm.get("interleave", "none")], SWIZZLE[tm.get("swizzle", "none")],
        L2[tm.get("l2_promotion", "none")], OOB[tm.get("oob_fill", "zero")])
    drv.check(rc, "cuTensorMapEncodeTiled(%s)" % tm["tensor"])
    return keep, ctypes.string_at(addr, 128)


PARAM_RE = re.compile(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+(?:\.ptr\s+(?:\.\w+\s+)*)?(?:\.align\s+\d+\s+)?(\w+)(?:\[(\d+)\])?")
SIZES = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "f16": 2, "u32": 4, "s32": 4, "b32": 4,
         "f32": 4, "u64": 8, "s64": 8, "b64": 8, "f64": 8}


def entry_params(ptx, entry):
    """[(ptx type, bytes, alignment)] of the entry's .params, in order."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        return []
    out = []
    for line in m.group(1).split(","):
        p = PARAM_RE.search(line)
        if p:
            align, ty, _, count = p.groups()
            n = SIZES[ty] * (int(count) if count else 1)
            out.append((ty, n, int(align) if align else SIZES[ty]))
    return out


def scalar_bytes(value, ptx_type):
    """A scalar spec value as the .param's bytes (a typed scalar's dtype wins over the PTX type)."""
    if isinstance(value, dict):
        dt = value["dtype"]
        v = value["value"] if "value" in value else value["__sym"]
        return to_device_bytes(dt, [v])
    # A PTX type names its struct code as a spec dtype does (.f32, .s32, .u64, ...); .bN is
    # unsigned, or signed for a negative value.
    bits = {"b8": "u8", "b16": "u16", "b32": "s32" if value < 0 else "u32", "b64": "s64" if value < 0 else "u64"}
    code = DTYPES[bits.get(ptx_type, ptx_type)][1]
    if code not in "fde" and value != int(value):
        raise ValueError("scalar %r for a .%s parameter" % (value, ptx_type))
    return struct.pack("<" + code, value if code in "fde" else int(value))


def launch_case(drv, case, base):
    """Launches one kernel; returns {tensor: raw bytes} of its outputs."""
    ptx = open(os.path.join(base, case["ptx"]), "rb").read()
    mod = drv.load(ptx)
    fn = ctypes.c_void_p()
    drv.check(drv.lib.cuModuleGetFunction(ctypes.byref(fn), mod, case["entry"].encode()), "cuModuleGetFunction")
    params = entry_params(ptx.decode(errors="replace"), case["entry"])
    if len(params) != len(case["params"]):
        raise ValueError("%d .params in the PTX, %d in the spec" % (len(params), len(case["params"])))
    tensors, scalars = case["tensors"], dict(case["scalars"])
    for s, v in case["symbolic"].items():
        scalars[s] = {"dtype": scalars[s]["dtype"], "__sym": v}
    ptrs, sizes = {}, {}
    for t, d in tensors.items():
        n = elements(d["shape"])
        sizes[t] = n * DTYPES[d["dtype"]][2]
        data = None
        for sub in ("in", "given"):
            path = os.path.join(base, case["dir"], sub, t + ".npy")
            if os.path.exists(path):
                data = to_device_bytes(d["dtype"], npy_values(path))
        ptrs[t] = drv.alloc(sizes[t], data)
    keep = []
    blobs = []
    for name, (ty, size, align) in zip(case["params"], params):
        if name in tensors:
            b = struct.pack("<Q", ptrs[name])
        elif name in case["tensor_maps"]:
            k, b = encode_tensor_map(drv, case["tensor_maps"][name], tensors, ptrs)
            keep.append(k)
        elif name in scalars:
            b = scalar_bytes(scalars[name], ty)
        elif name in case["structs"]:
            buf = bytearray(size)
            for f in case["structs"][name]["fields"]:
                fb = (struct.pack("<Q", ptrs[f["name"]]) if f["name"] in tensors
                      else scalar_bytes(scalars[f["name"]], "f32" if isinstance(scalars[f["name"]], float) else "s32"))
                buf[f["offset"]:f["offset"] + len(fb)] = fb
            b = bytes(buf)
        else:
            raise ValueError("parameter %s: not a tensor, scalar, struct or tensor map" % name)
        if len(b) < size:
            b = b + bytes(size - len(b))
        raw, addr = aligned(max(size, 8), max(align, 8))
        ctypes.memmove(addr, b, len(b))
        keep.append(raw)
        blobs.append(addr)
    argv = (ctypes.c_void_p * max(len(blobs), 1))(*blobs)
    grid = (list(case["grid"]) + [1, 1])[:3]
    block = (list(case["block"]) + [1, 1])[:3]
    smem = case["dynamic_shared_bytes"]
    if smem:
        drv.check(drv.lib.cuFuncSetAttribute(fn, 8, smem), "cuFuncSetAttribute(max dynamic shared)")
    cluster = case.get("cluster")
    ptx_text = ptx.decode(errors="replace")
    fixed_cluster = re.search(r"\.entry\s+" + re.escape(case["entry"]) + r"\s*\([^)]*\)\s*(?:\.\w+[^{]*)?\.reqnctapercluster", ptx_text, re.S)
    if cluster and not fixed_cluster:
        c = (list(cluster) + [1, 1])[:3]

        class Attr(ctypes.Structure):
            _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint32 * 16)]

        class Config(ctypes.Structure):
            _fields_ = [("gx", ctypes.c_uint), ("gy", ctypes.c_uint), ("gz", ctypes.c_uint),
                        ("bx", ctypes.c_uint), ("by", ctypes.c_uint), ("bz", ctypes.c_uint),
                        ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                        ("attrs", ctypes.POINTER(Attr)), ("nattrs", ctypes.c_uint)]
        a = Attr()
        a.id = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        a.value[0], a.value[1], a.value[2] = c
        cfg = Config(*grid, *block, smem, None, ctypes.pointer(a), 1)
        drv.check(drv.lib.cuLaunchKernelEx(ctypes.byref(cfg), fn, argv, None), "cuLaunchKernelEx")
    else:
        drv.check(drv.lib.cuLaunchKernel(fn, *[ctypes.c_uint(x) for x in grid + block], ctypes.c_uint(smem),
                                         None, argv, None), "cuLaunchKernel")
    drv.check(drv.lib.cuCtxSynchronize(), "cuCtxSynchronize")
    out = {}
    for t, d in tensors.items():
        if d.get("role", "input") in ("output", "inout"):
            out[t] = drv.read(ptrs[t], sizes[t])
    for p in ptrs.values():
        drv.lib.cuMemFree_v2(p)
    drv.lib.cuModuleUnload(mod)
    return out


def compare(case, base, outputs):
    """Per output tensor: elements, bit-equal elements, largest |difference| and ulps (floats)."""
    res = {}
    for t, raw in outputs.items():
        dtype = case["tensors"][t]["dtype"]
        hw = device_bits(dtype, raw)
        path = os.path.join(base, case["dir"], "gpueq_" + case["side"], t + ".npy")
        r = {"elements": len(hw)}
        if len(hw) <= 16:  # small outputs (probes, reductions): the hardware's values themselves
            r["hardware"] = list(struct.unpack("<%d%s" % (len(hw), DTYPES[dtype][1]), raw)) if dtype not in ("bf16", "e4m3", "e5m2") else [
                bits_to_float(dtype, b) for b in hw]
        if not os.path.exists(path):
            r["error"] = "gpueq wrote no output"
            res[t] = r
            continue
        ref = npy_bits(dtype, path)
        nan = lambda b: dtype in FLOATS and bits_to_float(dtype, b) != bits_to_float(dtype, b)
        # NaN against NaN counts as equal (the payloads differ: the GPU's canonical NaN is 0x7fffffff)
        equal = sum(1 for a, b in zip(hw, ref) if a == b or (nan(a) and nan(b)))
        r["bit_equal"] = equal
        if equal != len(hw):
            first = next(i for i, (a, b) in enumerate(zip(hw, ref)) if a != b and not (nan(a) and nan(b)))
            r["first_difference"] = first
            if dtype in FLOATS:
                diffs = [abs(bits_to_float(dtype, a) - bits_to_float(dtype, b)) for a, b in zip(hw, ref)
                         if a != b and not (nan(a) and nan(b))]
                r["max_abs_difference"] = max((d for d in diffs if d == d), default=float("nan"))
                sign = 8 * DTYPES[dtype][2] - 1
                ulps = [abs(a - b) for a, b in zip(hw, ref) if a != b and (a ^ b) >> sign == 0 and not (nan(a) or nan(b))]
                r["max_ulps"] = max(ulps) if ulps else None  # None: some pair differs in sign
                r["hardware_at_first"] = bits_to_float(dtype, hw[first])
                r["gpueq_at_first"] = bits_to_float(dtype, ref[first])
        res[t] = r
    return res


def launch_one(args):
    """Child process: one case, --repeat launches; prints one JSON line."""
    base = args.dir
    case = json.load(open(os.path.join(base, "cases.json")))[args.index]
    drv = Driver()
    runs = []
    for _ in range(args.repeat):
        t0 = time.time()
        out = launch_case(drv, case, base)
        runs.append({"seconds": round(time.time() - t0, 4), "compare": compare(case, base, out),
                     "digest": {t: hashlib.sha1(v).hexdigest() for t, v in out.items()}})
    print(json.dumps({"device": drv.name, "runs": runs}))


def run_child(args, cases, i, timeout):
    c = cases[i]
    repeat = args.repeat if c["expect"] in ("race", "deadlock") else 1
    cmd = [sys.executable, os.path.abspath(__file__), "launch-one", "--dir", args.dir, "--index", str(i),
           "--repeat", str(repeat)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if p.returncode == 0 and p.stdout.strip():
            r = json.loads(p.stdout.strip().splitlines()[-1])
            r["status"] = "ran"
        else:
            r = {"status": "failed", "error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1][:600]}
    except subprocess.TimeoutExpired:
        r = {"status": "timeout", "error": "no result in %d s (a hang)" % timeout}
    r.update({"pair": c["pair"], "side": c["side"], "expect": c["expect"], "gpueq_exit": c["gpueq_exit"],
              "gpueq_message": c["gpueq_message"], "seconds": round(time.time() - t0, 2)})
    return r


def racecheck(args, cases, i):
    """compute-sanitizer's racecheck over one launch: its summary and its first reports."""
    cmd = ["compute-sanitizer", "--tool", "racecheck", "--print-limit", "4", sys.executable,
           os.path.abspath(__file__), "launch-one", "--dir", args.dir, "--index", str(i)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.racecheck_timeout)
    except subprocess.TimeoutExpired:
        return {"summary": "timeout after %d s" % args.racecheck_timeout, "lines": []}
    lines = [l for l in (p.stdout + p.stderr).splitlines() if l.startswith("=========")]
    summary = next((l for l in lines if "SUMMARY" in l), "exit %d, no summary" % p.returncode)
    return {"summary": summary.strip("= "), "lines": lines[:24]}


def launch(args):
    import concurrent.futures
    cases = json.load(open(os.path.join(args.dir, "cases.json")))
    t_all = time.time()
    # Each kernel in its own process (a fault or a hang stays there); several at once, and the
    # pairs expected to deadlock last, one at a time, since a hung launch holds its timeout.
    hang = [i for i, c in enumerate(cases) if c["expect"] == "deadlock"]
    rest = [i for i, c in enumerate(cases) if c["expect"] != "deadlock"]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for i, r in zip(rest, pool.map(lambda i: run_child(args, cases, i, args.timeout), rest)):
            results[i] = r
            print(summary_line(r), flush=True)
    for i in hang:
        results[i] = run_child(args, cases, i, args.hang_timeout)
        print(summary_line(results[i]), flush=True)
    # The hardware's own race detector (shared memory only) on the pairs expected to race.
    if args.racecheck:
        racy = [i for i, c in enumerate(cases) if c["expect"] == "race"]
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs // 2)) as pool:
            for i, r in zip(racy, pool.map(lambda i: racecheck(args, cases, i), racy)):
                results[i]["racecheck"] = r
                print("racecheck %-50s %-9s %s" % (cases[i]["pair"], cases[i]["side"], r["summary"]), flush=True)
    results = [results[i] for i in range(len(cases))]
    totals = {}
    for r in results:
        k = classify(r)
        totals[k] = totals.get(k, 0) + 1
    print("totals: " + ", ".join("%s %d" % kv for kv in sorted(totals.items())) +
          " (%d kernels, %.0f s)" % (len(results), time.time() - t_all))
    if args.report:
        json.dump({"totals": totals, "results": results}, open(args.report, "w"), indent=1)


def classify(r):
    if r["status"] != "ran":
        return r["status"]
    if r["gpueq_exit"] != 0:
        return "gpueq-stopped"
    runs = r["runs"]
    exact = all(v.get("bit_equal") == v["elements"] for run in runs for v in run["compare"].values())
    if exact:
        return "bit-equal"
    return "differs"


def summary_line(r):
    k = classify(r)
    s = "%-58s %-9s %-13s" % (r["pair"], r["side"], k)
    if r["status"] == "ran":
        parts = []
        for t, v in r["runs"][0]["compare"].items():
            if "bit_equal" in v and v["bit_equal"] != v["elements"]:
                parts.append("%s %d/%d equal, max |d| %s, max ulps %s" % (t, v["bit_equal"], v["elements"],
                                                                           v.get("max_abs_difference"), v.get("max_ulps")))
        for t, v in r["runs"][0]["compare"].items():
            if "hardware" in v and len(v["hardware"]) <= 8:
                parts.append("%s on the GPU: %s" % (t, v["hardware"]))
        if len(r["runs"]) > 1:
            digests = {json.dumps(run["digest"], sort_keys=True) for run in r["runs"]}
            parts.append("%d launches, %d distinct outputs" % (len(r["runs"]), len(digests)))
        if r["gpueq_exit"] != 0:
            parts.append("gpueq exit %d: %s" % (r["gpueq_exit"], r["gpueq_message"][:120]))
        s += " " + "; ".join(parts)
    else:
        s += " " + r.get("error", "")
    return s


# What in a kernel lets a GPU's float32 result differ from gpueq's float32 engine while both are
# right (README, "Semantics"): the instruction patterns, in the order they are reported.
LICENCES = [
    ("approximate instructions", re.compile(r"\b(?:ex2|lg2|rcp|rsqrt|sqrt|sin|cos|tanh|div)\.approx|\bdiv\.full")),
    ("tensor-core MMA", re.compile(r"\b(?:mma\.sync|wgmma\.mma_async|wmma\.mma)")),
    ("float atomics", re.compile(r"\b(?:atom|red)(?:\.\w+)*\.add(?:\.\w+)*\.f(?:16|32|64)")),
    ("mul and add without a rounding mode (ptxas may fuse them)", re.compile(r"\bmul\.f32\b")),
]


def entry_body(ptx, entry):
    """The entry's text and that of every function it calls (transitively)."""
    funcs = {m.group(1): m.start() for m in re.finditer(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", ptx)}
    def body(name):
        at = funcs.get(name)
        if at is None:
            return ""
        start = ptx.find("{", at)
        depth, i = 0, start
        while i < len(ptx):
            depth += {"{": 1, "}": -1}.get(ptx[i], 0)
            if depth == 0:
                break
            i += 1
        return ptx[start:i + 1]
    seen, todo, text = set(), [entry], ""
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        b = body(f)
        text += b
        todo += re.findall(r"\bcall(?:\.uni)?\s+(?:\([^)]*\),\s*)?([\w$]+)", b)
    return text


def summarize(args):
    """The launch report, each kernel whose outputs differ with what in it may explain it."""
    cases = json.load(open(os.path.join(args.dir, "cases.json")))
    report = json.load(open(args.report))
    rows = {}
    for c, r in zip(cases, report["results"]):
        k = classify(r)
        if k == "differs":
            culprit = c.get("culprit") or "candidate"
            if c["expect"] in ("race", "deadlock") and culprit in (c["side"], "both"):
                why = ["the kernel expected to race"]
            else:
                text = entry_body(open(os.path.join(args.dir, c["ptx"])).read(), c["entry"])
                why = [name for name, pat in LICENCES if pat.search(text)] or ["NOTHING THAT EXPLAINS IT"]
            k = "differs: " + ", ".join(why)
        rows.setdefault(k, []).append("%s (%s)" % (c["pair"], c["side"]))
    for k in sorted(rows):
        print("%4d  %s" % (len(rows[k]), k))
        if args.verbose or "NOTHING" in k:
            for x in rows[k]:
                print("        " + x)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--gpueq", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("pairs", nargs="+")
    p = sub.add_parser("launch")
    p.add_argument("--dir", required=True)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--timeout", type=int, default=30)
    p.add_argument("--jobs", type=int, default=8)
    p.add_argument("--hang-timeout", type=int, default=10, help="for the pairs expected to deadlock")
    p.add_argument("--racecheck", action="store_true", help="also run compute-sanitizer racecheck on the racy pairs")
    p.add_argument("--racecheck-timeout", type=int, default=90)
    p.add_argument("--report")
    p = sub.add_parser("launch-one")
    p.add_argument("--dir", required=True)
    p.add_argument("--index", type=int, required=True)
    p.add_argument("--repeat", type=int, default=1)
    p = sub.add_parser("summarize")
    p.add_argument("--dir", required=True)
    p.add_argument("--report", required=True)
    p.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    {"prepare": prepare, "launch": launch, "launch-one": launch_one, "summarize": summarize}[args.cmd](args)


if __name__ == "__main__":
    main()
