#!/usr/bin/env python3
"""Cross-checks the corpus's expected verdicts without a GPU: compiles each kernel of a pair spec
for the host against emu.hpp (g++, C++20), runs both on the same random inputs (symbolic scalars
get fixed values), and compares the outputs in float32.

  equivalent    outputs must agree to a relative 1e-4 (TOLERANCE below) and all be written
  different     outputs must differ; otherwise the spec FAILs
  race, out-of-bounds, deadlock   reported, not judged (a deadlock shows as a timeout)

This tests the kernels' index arithmetic and the spec's launch, not gpueq: a random input can
miss a difference, and float32 rounding is not the real-number semantics gpueq decides.
Usage: emulate/run.py [--work DIR] [spec.pair.json ...]   (default: every spec)"""
import argparse
import glob
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# PTX files built from a differently named source (regen.sh VARIANTS)
VARIANT_SRC = {'softmax/softmax_online_fast.ptx': 'softmax/softmax_online.cu'}
# inline-asm helpers of the corpus and their host replacements (bodies swapped by name)
REPLACE = {
    'named_sync': '{ emu_named_sync(id, count); }',
    'named_arrive': '{ emu_named_arrive(id, count); }',
    'ldmatrix_x4': '{ emu_ldmatrix_x4(r, smem, false); }',
    'ldmatrix_x4_trans': '{ emu_ldmatrix_x4(r, smem, true); }',
    'mma_16816': '{ emu_mma_16816(d, a, b0, b1); }',
    'cp_async16': '{ emu_cp_async16(smem, gmem); }',
    'cp_async_commit': '{}',
    'cp_async_wait': '{}',
}
CTYPE = {'f32': ('float', 'f'), 'f16': ('__half', 'e'), 's32': ('int', 'i')}
# float32 tolerance where a kernel rounds intermediate values to half on purpose
TOLERANCE = {'attention/ref_half_vs_wmma.pair.json': 2e-3}
UNWRITTEN_INT = -2**31
SYMBOLIC = {'alpha': 0.75, 'beta': -1.25, 'eps': 0.01, 'a': 1.5}


def matching(src, i, open_ch, close_ch):
    depth = 0
    while True:
        if src[i] == open_ch:
            depth += 1
        elif src[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
        i += 1


def rewrite(src):
    for name, body in REPLACE.items():
        m = re.search(r'void ' + name + r'\(', src)
        if not m:
            continue
        close = matching(src, m.end() - 1, '(', ')')
        start = src.index('{', close)
        end = matching(src, start, '{', '}')
        src = src[:start] + body + src[end + 1:]
    return src


def main_cpp(kern_hpp, spec, kern, tag):
    tens, scal = spec['tensors'], spec.get('scalars', {})
    out = ['#include "emu.hpp"', f'#include "{kern_hpp}"', '#include <cstdio>', '#include <string>',
           '#include <vector>',
           'template <class T> std::vector<T> rd(const std::string& f, size_t n) { std::vector<T> v(n);'
           ' FILE* p = std::fopen(f.c_str(), "rb"); if (p) { if (std::fread(v.data(), sizeof(T), n, p)) {}'
           ' std::fclose(p); } return v; }',
           'template <class T> void wr(const std::string& f, const std::vector<T>& v) {'
           ' FILE* p = std::fopen(f.c_str(), "wb"); std::fwrite(v.data(), sizeof(T), v.size(), p); std::fclose(p); }',
           'int main(int, char** argv) { std::string d = argv[1];']
    for n, t in tens.items():
        out.append(f'auto t_{n} = rd<{CTYPE[t["dtype"]][0]}>(d + "/in_{n}.bin", {math.prod(t["shape"])});')
    args = []
    for p in kern['params']:
        if p in tens:
            args.append(f't_{p}.data()')
        else:
            v = scal[p]
            if isinstance(v, dict):
                v = v.get('value', SYMBOLIC.get(p, 0.5))
            args.append(repr(v) + ('f' if isinstance(v, float) else ''))
    g = kern.get('grid', [1]) + [1, 1]
    b = kern['block'] + [1, 1]
    out.append(f'emu::launch(dim3{{{g[0]}, {g[1]}, {g[2]}}}, dim3{{{b[0]}, {b[1]}, {b[2]}}}, [&] {{'
               f' {kern["entry"]}({", ".join(args)}); }});')
    for n, t in tens.items():
        if t['role'] != 'input':
            out.append(f'wr(d + "/{tag}_{n}.bin", t_{n});')
    out.append('}')
    return '\n'.join(out) + '\n'


def splitmix64(seed, i):
    """Output i of splitmix64 seeded with `seed` (examples/kernels/README.md, "Given contents")."""
    m = (1 << 64) - 1
    x = (seed + (i + 1) * 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def given_contents(c, t, spec_dir):
    """The values of a tensor's "contents" (check/contents.hpp), row-major."""
    n = math.prod(t['shape'])
    if c == 'zeros':
        return [0] * n
    (form, v), = c.items()
    if form == 'constant':
        return [float(v) if isinstance(v, str) else v] * n
    if form == 'iota':
        return [v.get('start', 0) + v.get('step', 1) * i for i in range(n)]
    if form == 'random_int':
        span = (v['max'] - v['min'] + 1) % (1 << 64)
        return [v['min'] + (splitmix64(v['seed'], i) % span if span else splitmix64(v['seed'], i)) for i in range(n)]
    if form == 'permutation':
        a = list(range(n))
        for k in range(n - 1):
            i = n - 1 - k
            j = splitmix64(v['seed'], k) % (i + 1)
            a[i], a[j] = a[j], a[i]
        return a
    data = open(os.path.join(spec_dir, v), 'rb').read()  # npy: the header's dtype is the tensor's
    hlen = int.from_bytes(data[8:10], 'little') if data[6] == 1 else int.from_bytes(data[8:12], 'little')
    body = data[(10 if data[6] == 1 else 12) + hlen:]
    return list(struct.unpack(f'<{n}{CTYPE[t["dtype"]][1]}', body))


def run_spec(path, work, tol=1e-4):
    spec = json.load(open(path))
    fam = os.path.basename(os.path.dirname(path))
    d = os.path.join(work, fam + '__' + os.path.basename(path)[:-len('.pair.json')])
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(42)
    for n, t in spec['tensors'].items():
        cnt = math.prod(t['shape'])
        fmt = CTYPE[t['dtype']][1]
        if 'contents' in t:  # what the host put there, the same for both kernels
            v = given_contents(t['contents'], t, os.path.dirname(path))
        elif t['dtype'] == 's32':  # integers: small values, INT_MIN marks "never written"
            v = [UNWRITTEN_INT] * cnt if t['role'] == 'output' else [rnd.randint(-1000, 1000) for _ in range(cnt)]
        else:
            v = [float('nan')] * cnt if t['role'] == 'output' else [rnd.uniform(-1, 1) for _ in range(cnt)]
        with open(f'{d}/in_{n}.bin', 'wb') as f:
            f.write(struct.pack(f'{cnt}{fmt}', *v))
    outs = {}
    for tag in ('reference', 'candidate'):
        kern = spec[tag]
        ptx = f'{fam}/{kern["ptx"]}'
        cu = VARIANT_SRC.get(ptx, ptx[:-len('.ptx')] + '.cu')
        kern_hpp = f'{d}/{tag}.kern.hpp'
        with open(kern_hpp, 'w') as f:
            f.write(rewrite(open(os.path.join(ROOT, cu)).read()))
        with open(f'{d}/{tag}.cpp', 'w') as f:
            f.write(main_cpp(kern_hpp, spec, kern, tag))
        exe = f'{d}/{tag}'
        r = subprocess.run(['g++', '-std=c++20', '-O1', '-pthread', '-w', '-I' + HERE,
                            '-I' + os.path.join(HERE, 'include'), exe + '.cpp', '-o', exe],
                           capture_output=True, text=True)
        if r.returncode:
            return 'error', f'{tag} does not build:\n{r.stderr[:2000]}'
        try:
            r = subprocess.run([exe, d], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return 'timeout', f'{tag} did not finish in 60 s (deadlock?)'
        if r.returncode:
            return 'error', f'{tag} exited with {r.returncode}: {r.stderr[:500]}'
        for n, t in spec['tensors'].items():
            if t['role'] != 'input':
                cnt = math.prod(t['shape'])
                with open(f'{d}/{tag}_{n}.bin', 'rb') as f:
                    outs.setdefault(n, {})[tag] = struct.unpack(f'{cnt}{CTYPE[t["dtype"]][1]}', f.read())
    worst, unwritten = 0.0, 0
    for o in outs.values():
        a, b = o['reference'], o['candidate']
        scale = max([abs(x) for x in a if x == x] + [1e-6])
        for x, y in zip(a, b):
            if x != x or y != y or x == UNWRITTEN_INT or y == UNWRITTEN_INT:
                unwritten += 1
            else:
                worst = max(worst, abs(x - y) / scale)
    same = worst < tol and unwritten == 0
    return ('same' if same else 'differ'), f'max rel diff {worst:.2e}, {unwritten} unwritten'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--work', help='folder for generated sources and binaries (default: a temp dir)')
    ap.add_argument('specs', nargs='*')
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix='gpueq-emulate-')
    specs = args.specs or sorted(glob.glob(os.path.join(ROOT, '*', '*.pair.json')))
    failed = 0
    specs = [s for s in specs if 'spec' not in json.load(open(s)).get('reference', {})]  # DSL references: no kernel
    for s in specs:
        expect = json.load(open(s))['expect']
        outcome, detail = run_spec(s, work, TOLERANCE.get(os.path.relpath(s, ROOT), 1e-4))
        if expect == 'equivalent':
            ok = outcome == 'same'
        elif expect == 'different':
            ok = outcome == 'differ'
        else:
            ok = outcome != 'error'
        status = ('ok  ' if ok else 'FAIL') if expect in ('equivalent', 'different') or not ok else 'seen'
        failed += not ok
        print(f'{status} {os.path.relpath(s, ROOT)}: expect {expect}, emulated outputs {outcome} ({detail})',
              flush=True)
    print(f'emulate: {len(specs)} specs, {failed} failed')
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
