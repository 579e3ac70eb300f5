#!/usr/bin/env python3
"""Tests of examples/kernels/hardware.py, the GPU comparison harness, without a GPU.

  harness_test.py GPUEQ FAKE_LIBCUDA SOURCE_DIR

Its pure parts against values computed here by hand (the .npy format, bfloat16 rounding, the
contents generators against examples/kernels/README.md's published splitmix64 outputs), then
`prepare` with the real gpueq on three corpus kernels' pairs and `launch` against
tests/hardware/fake_libcuda.cpp, a stand-in driver that logs what it is asked: the module, the
tensor maps (shape, strides, box, swizzle), the launch shape and every parameter's bytes.
"""
import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ beside the harness in the source tree

GPUEQ, FAKE, SRC = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("hardware", os.path.join(SRC, "examples/kernels/hardware.py"))
hw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hw)
HARNESS = os.path.join(SRC, "examples/kernels/hardware.py")
K = os.path.join(SRC, "examples/kernels")

passed = failed = 0


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAILED: %s %s" % (what, detail))


tmp = tempfile.mkdtemp(prefix="gpueq-hardware-test-")

# --- .npy files: a header numpy reads (magic, version 1.0, 64-byte aligned header), data after it.
p = os.path.join(tmp, "a.npy")
hw.npy_write(p, "f16", [2, 3], [0.5, -1.0, 2.0, 0.0, 65504.0, -0.25])
data = open(p, "rb").read()
check("npy magic", data[:8] == b"\x93NUMPY\x01\x00")
check("npy header aligned", (10 + struct.unpack("<H", data[8:10])[0]) % 64 == 0)
descr, shape, raw = hw.npy_read_raw(p)
check("npy f16 header", (descr, shape) == ("<f2", (2, 3)), (descr, shape))
check("npy f16 data", raw == struct.pack("<6e", 0.5, -1.0, 2.0, 0.0, 65504.0, -0.25))
hw.npy_write(p, "s32", [], [-7])
check("npy scalar", hw.npy_read_raw(p)[1] == () and hw.npy_values(p) == [-7])
hw.npy_write(p, "u8", [3], [1, 2, 255])
check("npy u8", hw.npy_values(p) == [1, 2, 255])

# --- bfloat16: 7 fraction bits; round to nearest, ties to even.
check("bf16 exact", hw.bf16_round(1.5) == 1.5)
check("bf16 tie down to even", hw.bf16_round(1 + 2 ** -8) == 1.0)            # halfway 1 | 1+2^-7
check("bf16 tie up to even", hw.bf16_round(1 + 3 * 2 ** -8) == 1 + 2 ** -6)  # halfway 1+2^-7 | 1+2^-6
check("bf16 above half", hw.bf16_round(1 + 2 ** -8 + 2 ** -12) == 1 + 2 ** -7)
check("bf16 device bytes", hw.to_device_bytes("bf16", [1.0, -2.0]) == bytes.fromhex("803f00c0"))

# --- fp8: e4m3 1.0 = 0 0111 000, 448 = 0 1111 110 (its largest), -0.5 = 1 0110 000; e5m2 57344 =
# 0 11110 11 (its largest), -inf = 1 11111 00, 2^-16 = 0 00000 01 (its smallest subnormal).
check("e4m3 codes", hw.to_device_bytes("e4m3", [1.0, 448.0, -0.5]) == bytes([0x38, 0x7E, 0xB0]))
check("e5m2 codes", hw.to_device_bytes("e5m2", [57344.0, float("-inf"), 2.0 ** -16]) == bytes([0x7B, 0xFC, 0x01]))
check("fp8 values", [hw.fp8_value("e4m3", 0x7F) != hw.fp8_value("e4m3", 0x7F), hw.fp8_value("e5m2", 0x7C)] ==
      [True, float("inf")])

# --- contents: splitmix64 seeded with 1234567, first outputs as published in the corpus README.
check("splitmix64", [hw.splitmix(1234567, i) for i in range(3)] ==
      [6457827717110365317, 3203168211198807973, 9817491932198370423])
perm = hw.contents_values(K, "t", {"permutation": {"seed": 5}}, 100)
check("permutation", sorted(perm) == list(range(100)) and perm != list(range(100)))
check("iota", hw.contents_values(K, "t", {"iota": {"start": 3, "step": -2}}, 4) == [3, 1, -1, -3])
ri = hw.contents_values(K, "t", {"random_int": {"min": -2, "max": 2, "seed": 9}}, 200)
check("random_int range", min(ri) == -2 and max(ri) == 2)

# --- the .param list of an entry: (type, bytes, alignment).
ptx = open(os.path.join(K, "hopper/tma_tile.ptx")).read()
check("params of a TMA kernel", hw.entry_params(ptx, "tma_tile_ok") == [("b8", 128, 128), ("b8", 128, 128)],
      hw.entry_params(ptx, "tma_tile_ok"))
ptx = open(os.path.join(K, "triton/matmul_desc_sm90a_w4.ptx")).read()
check("params of a Triton kernel", [t for t, _, _ in hw.entry_params(ptx, "matmul_desc")] ==
      ["u64"] * 3 + ["u32"] * 3 + ["u64"] * 2)

# --- prepare: gpueq's float32 outputs for each kernel of three pairs, and one cluster launch.
# The TMA pair, its naive kernel given a cluster shape its PTX does not fix (cuLaunchKernelEx).
tma_spec = os.path.join(tmp, "tma_tile_cluster.pair.json")
pair = json.load(open(os.path.join(K, "hopper/tma_tile_naive_vs_tma.pair.json")))
for side in ("reference", "candidate"):
    pair[side]["ptx"] = os.path.join(K, "hopper", pair[side]["ptx"])
pair["reference"]["cluster"] = [2]
json.dump(pair, open(tma_spec, "w"))
work = os.path.join(tmp, "run")
pairs = [tma_spec, os.path.join(K, "realworld/saxpy_plain_vs_struct.pair.json"),
         os.path.join(K, "hopper/cluster_sum_naive_vs_cluster.pair.json")]
r = subprocess.run([sys.executable, HARNESS, "prepare", "--gpueq", GPUEQ, "--dir", work] + pairs,
                   capture_output=True, text=True)
check("prepare runs", r.returncode == 0, r.stderr[-2000:])
cases = json.load(open(os.path.join(work, "cases.json")))
check("six kernels", [(c["pair"].split("/")[-1], c["side"]) for c in cases] == [
    ("tma_tile_cluster", "reference"), ("tma_tile_cluster", "candidate"),
    ("saxpy_plain_vs_struct", "reference"), ("saxpy_plain_vs_struct", "candidate"),
    ("cluster_sum_naive_vs_cluster", "reference"), ("cluster_sum_naive_vs_cluster", "candidate")])
check("gpueq ran them", all(c["gpueq_exit"] == 0 for c in cases), [c["gpueq_message"] for c in cases])
a = hw.npy_values(os.path.join(work, cases[2]["dir"], "in", "a.npy"))[0]
check("symbolic scalar in [0, 1]", 0 <= a <= 1, a)


def launch_one(i, param_bytes):
    log = os.path.join(tmp, "log%d.txt" % i)
    env = dict(os.environ, GPUEQ_LIBCUDA=FAKE, GPUEQ_FAKE_CUDA_LOG=log, GPUEQ_FAKE_CUDA_PARAM_BYTES=param_bytes)
    r = subprocess.run([sys.executable, HARNESS, "launch-one", "--dir", work, "--index", str(i)],
                       capture_output=True, text=True, env=env)
    check("launch-one %d runs" % i, r.returncode == 0, r.stderr[-2000:])
    return open(log).read().splitlines(), (json.loads(r.stdout) if r.returncode == 0 else {})


# The TMA kernel: x is [32][64] f32, so the maps are 64 x 32 elements, rows 256 bytes apart,
# boxes 32 x 16; x's map swizzles 128B (3), y's none; two CTAs by two of 128 threads.
lines, _ = launch_one(1, "16,16")
check("module and entry", lines[:2] == [lines[0], "function tma_tile_ok"] and lines[0].startswith("load "), lines)
check("x's tensor map", "tensor_map dtype 7 rank 2 dims 64 32 strides 256 box 32 16 element_strides 1 1 "
      "interleave 0 swizzle 3 l2 0 oob 0 aligned" in lines, lines)
check("y's tensor map", "tensor_map dtype 7 rank 2 dims 64 32 strides 256 box 32 16 element_strides 1 1 "
      "interleave 0 swizzle 0 l2 0 oob 0 aligned" in lines, lines)
launch = [l for l in lines if l.startswith("launch")]
check("TMA launch shape", len(launch) == 1 and launch[0].startswith("launch grid 2 2 1 block 128 1 1 shared 0 "), launch)

# The struct parameter: {x, y, n = 200 (s32), a (f32)} at offsets 0, 8, 16, 20, 24 bytes.
lines, result = launch_one(3, "24")
launch = [l for l in lines if l.startswith("launch")][0]
blob = bytes.fromhex(launch.split("p0=")[1])
x_ptr, y_ptr, n, a_param = struct.unpack("<QQif", blob)
check("struct pointers", x_ptr != 0 and y_ptr != 0 and x_ptr != y_ptr)
check("struct scalars", n == 200 and a_param == struct.unpack("<f", struct.pack("<f", a))[0], (n, a_param, a))
# The plain kernel's parameters: two pointers, n as the PTX's .u32, a as .f32.
lines, result = launch_one(2, "8,8,4,4")
launch = [l for l in lines if l.startswith("launch")][0]
check("plain scalars", launch.endswith(" p2=c8000000 p3=" + struct.pack("<f", a).hex()), launch)
# The fake runs nothing: y (inout) comes back as its input, which gpueq's output is not.
cmp = result["runs"][0]["compare"]["y"]
check("compare counts elements", cmp["elements"] == 200 and cmp["bit_equal"] < 200, cmp)

# A cluster shape the PTX does not fix goes through cuLaunchKernelEx's cluster attribute (id 4);
# one the PTX fixes (.reqnctapercluster) through a plain launch.
lines, _ = launch_one(0, "8,8")
launch = [l for l in lines if l.startswith("launch")]
check("cluster launch", len(launch) == 1 and launch[0].startswith("launch_ex grid 2 2 1 block 128 1 1 shared 0 "
      "attributes 1 [4: 2 1 1]"), launch)
lines, _ = launch_one(5, "8,8")
launch = [l for l in lines if l.startswith("launch")]
check("fixed cluster launch", len(launch) == 1 and launch[0].startswith("launch grid 16 1 1 block 64 1 1"), launch)

# launch: every kernel in its own process, a report, and the summary of it.
report = os.path.join(tmp, "report.json")
env = dict(os.environ, GPUEQ_LIBCUDA=FAKE)
r = subprocess.run([sys.executable, HARNESS, "launch", "--dir", work, "--jobs", "2", "--report", report],
                   capture_output=True, text=True, env=env)
check("launch runs", r.returncode == 0 and "(6 kernels," in r.stdout, r.stdout[-2000:] + r.stderr[-2000:])
results = json.load(open(report))["results"]
check("report", len(results) == 6 and all(x["status"] == "ran" for x in results), [x.get("error") for x in results])
r = subprocess.run([sys.executable, HARNESS, "summarize", "--dir", work, "--report", report],
                   capture_output=True, text=True)
check("summarize", r.returncode == 0 and "differs" in r.stdout, r.stdout + r.stderr)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
