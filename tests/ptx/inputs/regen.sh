#!/bin/sh
# Regenerates the committed PTX test inputs from the .cu files beside this script.
# Needs nvcc (CUDA 13) and clang; the tests themselves only read the committed .ptx files.
#   <name>.ptx        nvcc -ptx -lineinfo -arch=sm_80
#   <name>.fast.ptx   the same with -use_fast_math (idioms only)
#   <name>.noline.ptx without -lineinfo (memory only)
set -e
here="$(cd "$(dirname "$0")" && pwd)"
# nvcc hashes the absolute source path into the names of internal functions in -lineinfo debug
# strings: compile from a fixed folder so the output does not depend on the checkout path.
work=/tmp/gpueq-ptx-inputs-regen
rm -rf "$work"
mkdir -p "$work"
cp "$here"/*.cu "$work"/
cd "$work"
for cu in *.cu; do
  name="${cu%.cu}"
  case "$name" in clang_*) continue ;; esac
  nvcc -ptx -lineinfo -arch=sm_80 "$cu" -o "$name.ptx"
done
nvcc -ptx -lineinfo -arch=sm_80 -use_fast_math idioms.cu -o idioms.fast.ptx
nvcc -ptx -arch=sm_80 memory.cu -o memory.noline.ptx
# clang_*.cu: clang's NVPTX back-end, without the CUDA headers (clang 14 predates CUDA 13).
for cu in clang_*.cu; do
  clang++ -S --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O2 -x cuda "$cu" \
    -o "${cu%.cu}.ptx" 2>/dev/null
done
# Absolute paths in .file directives would make the files differ per checkout.
sed -i -E 's|(\.file[[:space:]]+[0-9]+[[:space:]]+")[^"]*/([^"/]+")|\1\2|' *.ptx
cp "$work"/*.ptx "$here"/
