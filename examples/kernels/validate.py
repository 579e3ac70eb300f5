#!/usr/bin/env python3
"""Checks the pair specs of the kernel corpus without gpueq: every *.pair.json validates against
schema.json (when the jsonschema module is installed), names PTX files and entries that exist,
lists exactly one name per .param of the entry, maps 64-bit parameters to tensors and the others
to scalars or structs (whose fields lie inside the parameter, aligned and not overlapping), and
uses every tensor. Exit 1 on any problem. Usage: ./validate.py [spec ...]"""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENTRY_RE = re.compile(r'\.entry\s+([A-Za-z_$][\w$]*)\s*\((.*?)\)', re.S)
# `.param .u64 .ptr .global .align 1 name` (LLVM's form, Triton's output) names the pointee's space
PARAM_RE = re.compile(r'\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(?:\.ptr\s+(?:\.(?:global|shared|const|local)\s+)?(?:\.align\s+\d+\s+)?)?([\w$]+)(?:\[(\d+)\])?')
DTYPE_BYTES = {'f16': 2, 'bf16': 2, 'f32': 4, 'f64': 8, 's8': 1, 'u8': 1, 's16': 2, 'u16': 2, 's32': 4, 'u32': 4,
               's64': 8, 'u64': 8, 'e4m3': 1, 'e5m2': 1}


def entries(ptx_path):
    text = open(ptx_path).read()
    return {m.group(1): PARAM_RE.findall(m.group(2)) for m in ENTRY_RE.finditer(text)}


NPY_DESCR = {'f16': '<f2', 'bf16': '<f4', 'f32': '<f4', 'f64': '<f8', 's8': '|i1', 'u8': '|u1', 's16': '<i2', 'u16': '<u2',
              's32': '<i4', 'u32': '<u4', 's64': '<i8', 'u64': '<u8', 'e4m3': '<f4', 'e5m2': '<f4'}


def npy_problems(path, tensor):
    """A .npy file's header against the tensor: dtype, shape, C order, and the data length."""
    if not os.path.isfile(path):
        return [f'no .npy file {path}']
    data = open(path, 'rb').read()
    if data[:6] != b'\x93NUMPY':
        return [f'{path} is not a .npy file']
    n = 2 if data[6] == 1 else 4
    hlen = int.from_bytes(data[8:8 + n], 'little')
    import ast
    h = ast.literal_eval(data[8 + n:8 + n + hlen].decode('latin1'))
    want = NPY_DESCR[tensor['dtype']]
    problems = []
    if h['descr'].replace('|', '<').replace('=', '<') != want.replace('|', '<'):
        problems.append(f'{path}: dtype {h["descr"]}, the tensor is {tensor["dtype"]} ({want})')
    if list(h['shape']) != tensor['shape']:
        problems.append(f'{path}: shape {list(h["shape"])}, the tensor is {tensor["shape"]}')
    if h['fortran_order']:
        problems.append(f'{path}: Fortran order')
    count = 1
    for e in h['shape']:
        count *= e
    if len(data) - 8 - n - hlen != count * int(want[2]):
        problems.append(f'{path}: {len(data) - 8 - n - hlen} bytes of data for {count} elements of {want}')
    return problems


def check(spec_path, validator):
    problems = []
    spec = json.load(open(spec_path))
    if validator is not None:
        problems += [f'schema: {e.message} at {list(e.path)}' for e in validator.iter_errors(spec)]
    tensors, scalars, structs = spec.get('tensors', {}), spec.get('scalars', {}), spec.get('structs', {})
    maps = spec.get('tensor_maps', {})
    used = set()
    for side in ('reference', 'candidate'):
        k = spec.get(side, {})
        if side == 'reference' and 'spec' in k:  # a registered DSL specification, not a kernel
            continue
        ptx = os.path.join(os.path.dirname(spec_path), k.get('ptx', ''))
        if not os.path.isfile(ptx):
            problems.append(f'{side}: no PTX file {ptx}')
            continue
        es = entries(ptx)
        name = k.get('entry')
        if name is None:
            if len(es) != 1:
                problems.append(f'{side}: {len(es)} entries in {k["ptx"]}, give "entry"')
                continue
            name = next(iter(es))
        if name not in es:
            problems.append(f'{side}: no entry {name} in {k["ptx"]}')
            continue
        params = k.get('params', [])
        if len(params) != len(es[name]):
            problems.append(f'{side}: {len(params)} params named, {name} has {len(es[name])}')
            continue
        for p, (ty, _, count) in zip(params, es[name]):
            used.add(p)
            if p in maps:
                used.add(maps[p].get('tensor'))
                if maps[p].get('tensor') not in tensors:
                    problems.append(f'{side}: tensor map {p} names no tensor of the spec')
                if ty != 'b8' or int(count or 1) != 128:
                    problems.append(f'{side}: tensor map {p} bound to a .{ty} parameter, not .b8[128]')
            elif p in structs:
                m = re.match(r'[bsuf](\d+)$', ty)
                size = (int(m.group(1)) // 8 if m else 0) * int(count or 1)
                spans = []
                for f in structs[p].get('fields', []):
                    fname, off = f.get('name'), f.get('offset', 0)
                    used.add(fname)
                    if fname in tensors:
                        width = 8
                    elif fname in scalars:
                        sc = scalars[fname]
                        dt = f.get('dtype') or (sc.get('dtype') if isinstance(sc, dict) else None)
                        width = DTYPE_BYTES.get(dt, 0)
                        if not width:
                            problems.append(f'{side}: struct {p} field {fname} has no dtype')
                            continue
                    else:
                        problems.append(f'{side}: struct {p} field {fname} is neither a tensor nor a scalar')
                        continue
                    if off % width or off + width > size:
                        problems.append(f'{side}: struct {p} field {fname} at {off} is misaligned or past the {size}-byte parameter')
                    if any(off < e and b < off + width for b, e in spans):
                        problems.append(f'{side}: struct {p} field {fname} at {off} overlaps another field')
                    spans.append((off, off + width))
            elif p in tensors:
                if ty not in ('u64', 'b64', 's64'):
                    problems.append(f'{side}: tensor {p} bound to a .{ty} parameter')
            elif p in scalars:
                if ty in ('u64', 'b64') and not isinstance(scalars[p], int):
                    problems.append(f'{side}: scalar {p} bound to a pointer-sized parameter')
            else:
                problems.append(f'{side}: parameter name {p} is neither a tensor, a scalar, a struct nor a tensor map')
        threads = 1
        for b in k.get('block', []):
            threads *= b
        if threads > 1024:
            problems.append(f'{side}: {threads} threads per CTA')
    for t in tensors:
        if t not in used:
            problems.append(f'tensor {t} is bound to no parameter')
    for name, t in tensors.items():  # given contents: not on an output; a .npy file of the tensor's dtype and shape
        c = t.get('contents')
        if c is None:
            continue
        if t.get('role') == 'output':
            problems.append(f'tensor {name}: an output has no contents (use "inout")')
        if isinstance(c, dict) and 'npy' in c:
            problems += [f'tensor {name}: {p}' for p in npy_problems(os.path.join(os.path.dirname(spec_path), c['npy']), t)]
    if spec.get('expect') in ('race', 'deadlock', 'out-of-bounds') and 'culprit' not in spec:
        problems.append('a race/deadlock/out-of-bounds expectation should name the culprit')
    return problems


def main():
    try:
        import jsonschema
        schema = json.load(open(os.path.join(HERE, 'schema.json')))
        validator = jsonschema.Draft202012Validator(schema)
    except ImportError:
        print('validate.py: jsonschema not installed; checking everything but the schema')
        validator = None
    specs = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, '*', '*.pair.json')))
    bad = 0
    for s in specs:
        for p in check(s, validator):
            print(f'{os.path.relpath(s, HERE)}: {p}')
            bad += 1
    print(f'validate.py: {len(specs)} specs, {bad} problems')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
