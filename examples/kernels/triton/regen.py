#!/usr/bin/env python3
"""Regenerates the committed Triton PTX of examples/kernels/triton/ from the .py kernels beside it.

NEEDS TRITON (pip install triton; written against triton 3.5.0). Nothing here is needed to build
or test gpueq: the tests read the committed .ptx files only. No GPU is needed either: the kernels
are compiled for a fixed target with triton.compile, never launched.

    python3 -m venv /tmp/triton-venv && /tmp/triton-venv/bin/pip install triton==3.5.0
    /tmp/triton-venv/bin/python examples/kernels/triton/regen.py            # rewrite every .ptx
    /tmp/triton-venv/bin/python examples/kernels/triton/regen.py --check    # diff against the
                                                            committed files, run ptxas on each

Each variant below names the kernel, the example arguments it is specialized for, its
constexprs, num_warps and the target (sm_80 or sm_90a). The arguments are specialized the way
triton's JIT launcher does it (runtime/jit.py, create_specialize_impl, and
backends/compiler.py, get_arg_specialization): a pointer is 16-byte aligned (tt.divisibility 16,
as from torch's allocator), an int equal to 1 becomes the constexpr 1 (it leaves the kernel's
parameter list), an int divisible by 16 gets tt.divisibility 16, a float is an fp32 scalar.
Triton 3.5 appends two parameters to every kernel: the global scratch pointer and the profile
scratch pointer (the pair specs bind them to small u8 tensors).

The PTX is written with a header comment giving the Triton version, num_warps, shared memory
and global scratch size from the compiled kernel's metadata. The file name is
<kernel>_sm<arch>_w<num_warps>.ptx. The CUDA references beside them (*_ref.cu) are compiled by
../regen.sh like the rest of the corpus.
"""
import argparse
import difflib
import importlib.util
import os
import shutil
import subprocess
import sys
import re
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The kernels are compiled from copies in this fixed folder: the PTX's debug information names the
# source folder (DW_AT_comp_dir), which then does not depend on where the repository is checked
# out; `.file` directives are cut to the file name (triton's own sources live in the venv).
STAGE = "/tmp/gpueq-triton-regen"


def load(module):
    os.makedirs(STAGE, exist_ok=True)
    shutil.copy(os.path.join(HERE, module + ".py"), os.path.join(STAGE, module + ".py"))
    spec = importlib.util.spec_from_file_location(module, os.path.join(STAGE, module + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Ptr:
    """An example pointer argument: torch-allocated (16-byte aligned) data of one dtype."""

    def __init__(self, dtype):
        self.dtype = dtype


class Desc:
    """An example host-side tensor descriptor (triton.tools.tensor_descriptor.TensorDescriptor)."""

    def __init__(self, dtype, block_shape):
        self.dtype, self.block_shape = dtype, block_shape


def specialize(fn, args, constexprs):
    """Signature, constexprs and attributes for triton.compile, as the JIT launcher makes them."""
    signature, consts, attrs = {}, {}, {}
    for i, name in enumerate(fn.arg_names):
        if name in constexprs:
            signature[name] = "constexpr"
            consts[(i, )] = constexprs[name]
            continue
        value = args[name]
        if isinstance(value, Ptr):
            signature[name] = "*" + value.dtype
            attrs[(i, )] = [["tt.divisibility", 16]]
        elif isinstance(value, Desc):
            signature[name] = f"tensordesc<{value.dtype}{list(value.block_shape)}>"
        elif isinstance(value, bool):
            signature[name] = "u1"
        elif isinstance(value, int):
            if value == 1:
                signature[name] = "constexpr"
                consts[(i, )] = 1
                continue
            signature[name] = "i32" if -(2**31) <= value < 2**31 else "i64"
            if value % 16 == 0:
                attrs[(i, )] = [["tt.divisibility", 16]]
        elif isinstance(value, float):
            signature[name] = "fp32"
        else:
            raise TypeError(f"{name}: unsupported example argument {value!r}")
    return signature, consts, attrs


# Problem sizes (the pair specs use the same).
MM_M, MM_N, MM_K = 128, 128, 64           # matmul: grid (2, 2) of 64 x 64 tiles, K in 2 slabs of 32
SM_ROWS, SM_COLS = 4, 256                 # softmax: 4 rows of 256
AT_Q, AT_KV, AT_D = 64, 128, 64           # attention: 64 queries, 128 keys in 2 blocks of 64, D = 64
LN_COLS = 256                             # layernorm: rows of 256 (the pair spec checks one)

MM_PTR_ARGS = dict(a_ptr=Ptr("fp16"), b_ptr=Ptr("fp16"), c_ptr=Ptr("fp32"), M=MM_M, N=MM_N, K=MM_K,
                   stride_am=MM_K, stride_ak=1, stride_bk=MM_N, stride_bn=1, stride_cm=MM_N,
                   stride_cn=1)
MM_DESC_ARGS = dict(a_ptr=Ptr("fp16"), b_ptr=Ptr("fp16"), c_ptr=Ptr("fp32"), M=MM_M, N=MM_N, K=MM_K)
MM_HOSTDESC_ARGS = dict(a_desc=Desc("fp16", [64, 32]), b_desc=Desc("fp16", [32, 64]),
                        c_desc=Desc("fp32", [64, 64]), K=MM_K)
MM_BLOCKS = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
SM_ARGS = dict(x_ptr=Ptr("fp32"), y_ptr=Ptr("fp32"), x_row_stride=SM_COLS, y_row_stride=SM_COLS,
               n_cols=SM_COLS)
AT_ARGS = dict(q_ptr=Ptr("fp16"), k_ptr=Ptr("fp16"), v_ptr=Ptr("fp16"), o_ptr=Ptr("fp32"),
               n_q=AT_Q, n_kv=AT_KV, scale=0.125, stride_q=AT_D, stride_k=AT_D, stride_v=AT_D,
               stride_o=AT_D)
AT_BLOCKS = dict(BLOCK_M=64, BLOCK_N=64, HEAD_D=AT_D)
SC_ROWS, SC_COLS = 2, 256                 # scan: 2 rows of 256
RMS_COLS = 256                            # rmsnorm: rows of 256
SC_ARGS = dict(x_ptr=Ptr("fp32"), y_ptr=Ptr("fp32"), row_stride=SC_COLS)
RMS_ARGS = dict(x_ptr=Ptr("fp16"), w_ptr=Ptr("fp32"), y_ptr=Ptr("fp16"), eps=1e-6, row_stride=RMS_COLS)
SW_N = 1000                               # swiglu: 1000 elements, 4 programs of 256 (the last masked)
SW_ARGS = dict(gate_ptr=Ptr("fp16"), up_ptr=Ptr("fp16"), y_ptr=Ptr("fp16"), n=SW_N)
LN_ARGS = dict(x_ptr=Ptr("fp32"), gamma_ptr=Ptr("fp32"), beta_ptr=Ptr("fp32"), y_ptr=Ptr("fp32"), eps=1e-5,
               row_stride=LN_COLS, n_cols=LN_COLS)

# (module, kernel, example args, constexprs, num_warps, target capabilities)
VARIANTS = [
    ("matmul", "matmul_ptr", MM_PTR_ARGS, MM_BLOCKS, 4, (80, 90)),
    ("matmul", "matmul_ptr", MM_PTR_ARGS, MM_BLOCKS, 8, (80, 90)),
    ("matmul", "matmul_desc", MM_DESC_ARGS, MM_BLOCKS, 4, (80, 90)),
    ("matmul", "matmul_hostdesc", MM_HOSTDESC_ARGS, MM_BLOCKS, 4, (90, )),
    ("softmax", "softmax_rows", SM_ARGS, dict(BLOCK=SM_COLS), 4, (80, 90)),
    ("attention", "attention_fwd", AT_ARGS, AT_BLOCKS, 4, (80, 90)),
    ("layernorm", "layernorm_rows", LN_ARGS, dict(BLOCK=LN_COLS), 4, (80, 90)),
    ("layernorm", "layernorm_rows_unbiased", LN_ARGS, dict(BLOCK=LN_COLS), 4, (80, )),
    ("scan", "cumsum_rows", SC_ARGS, dict(BLOCK=SC_COLS), 4, (80, 90)),
    ("rmsnorm", "rms_norm_rows", RMS_ARGS, dict(N=RMS_COLS), 4, (80, 90)),
    ("rmsnorm", "rms_norm_rows_no_eps", RMS_ARGS, dict(N=RMS_COLS), 4, (80, )),
    ("swiglu", "swiglu", SW_ARGS, dict(BLOCK=256), 4, (80, 90)),
    ("swiglu", "swiglu_swapped", SW_ARGS, dict(BLOCK=256), 4, (80, )),
]


def arch_name(cap):
    return "sm_90a" if cap == 90 else f"sm_{cap}"


def out_name(kernel, cap, warps):
    return f"{kernel}_sm{cap}{'a' if cap == 90 else ''}_w{warps}.ptx"


def build(out_dir):
    import triton
    from triton.backends.compiler import GPUTarget

    written = []
    modules = {}
    for module, kernel, args, consts, warps, caps in VARIANTS:
        mod = modules.setdefault(module, load(module))
        fn = getattr(mod, kernel)
        signature, constants, attrs = specialize(fn, args, consts)
        for cap in caps:
            src = triton.compiler.ASTSource(fn, signature, constants, attrs)
            compiled = triton.compile(src, target=GPUTarget("cuda", cap, 32),
                                      options=dict(num_warps=warps, num_stages=3))
            md = compiled.metadata
            params = ", ".join(f"{k}: {v}" for k, v in signature.items() if v != "constexpr")
            if any(v.startswith("tensordesc") for v in signature.values()):
                params += (" (on sm_90a a tensordesc is 5 parameters: the 128-byte CUtensorMap,"
                           " its shape as 2 x i32, its strides as 2 x i64)")
            const_text = ", ".join(f"{k}={args.get(k, consts.get(k))}" for k, v in signature.items()
                                   if v == "constexpr")
            header = [
                f"// Triton {triton.__version__} output for {module}.py:{kernel}, target {arch_name(cap)}, "
                f"num_warps {md.num_warps}, num_stages {md.num_stages}.",
                f"// Launch: {md.num_warps * 32} threads per CTA, {md.shared} bytes of dynamic shared memory, "
                f"global scratch {md.global_scratch_size} bytes (align {md.global_scratch_align}).",
                f"// Parameters: {params}, then global and profile scratch pointers.",
                f"// Specialized (constexpr): {const_text}.",
                "// Generated by regen.py (needs `pip install triton`); do not edit.",
            ]
            name = out_name(kernel, cap, warps)
            with open(os.path.join(out_dir, name), "w") as f:
                ptx = re.sub(r'^(\s*\.file\s+\d+\s+)"[^"]*/([^"/]*)"', r'\1"\2"', compiled.asm["ptx"],
                             flags=re.M)
                f.write("\n".join(header) + "\n" + ptx)
            written.append((name, cap))
            print(f"{name}: {md.num_warps} warps, shared {md.shared}, scratch {md.global_scratch_size}")
            if getattr(md, "tensordesc_meta", None):
                # What the launcher encodes each host-side CUtensorMap with (swizzle: 0 none, 1 32B,
                # 2 64B, 3 128B; block_size outermost first): the pair spec's "tensor_maps" follow it.
                print(f"  tensordesc_meta: {md.tensordesc_meta}")
    return written


def ptxas(path, cap):
    exe = shutil.which("ptxas")
    if exe is None:
        print("ptxas not found; skipping the assembler check", file=sys.stderr)
        return True
    r = subprocess.run([exe, f"-arch={arch_name(cap)}", path, "-o", os.devnull],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"ptxas -arch={arch_name(cap)} {path}:\n{r.stderr}", file=sys.stderr)
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary folder, diff, run ptxas on the committed files")
    opts = ap.parse_args()
    ok = True
    if opts.check:
        with tempfile.TemporaryDirectory() as tmp:
            for name, cap in build(tmp):
                new = open(os.path.join(tmp, name)).read().splitlines(keepends=True)
                committed = os.path.join(HERE, name)
                old = open(committed).read().splitlines(keepends=True) if os.path.exists(committed) else []
                diff = list(difflib.unified_diff(old, new, committed, name))
                if diff:
                    ok = False
                    sys.stdout.writelines(diff[:40])
                ok = ptxas(committed, cap) and ok
    else:
        for name, cap in build(HERE):
            ok = ptxas(os.path.join(HERE, name), cap) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
