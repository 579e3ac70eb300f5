#!/bin/sh
# Regenerates the committed PTX of the kernel corpus from the CUDA sources beside it.
#
#   ./regen.sh           rewrite every .ptx from its .cu (needs nvcc, CUDA 13)
#   ./regen.sh --check   regenerate into a temporary folder, diff against the committed .ptx,
#                        and run `ptxas` (sm_80, hopper/ sm_90a) on every committed .ptx; exit 1 on any
#                        difference or ptxas error
#
# Default flags: every <family>/<name>.cu becomes <family>/<name>.ptx with
#   nvcc -ptx -lineinfo -arch=sm_80
# except the hopper/ and probes/ families, which target sm_90a (arch_of below; ptxas checks them for sm_90a).
# Files built with other flags, or several PTX files from one source, are listed in VARIANTS
# below (output, source, extra flags). Absolute paths in `.file` directives are cut to the file
# name and the sources are compiled from a fixed folder (/tmp/gpueq-kernels-regen), so the PTX
# does not depend on where the repository is checked out.
# triton/ holds Triton compiler output besides CUDA references: its .py kernels are compiled by
# triton/regen.py (needs `pip install triton`), not by this script.
# The gpueq tests only read the committed .ptx files; nothing here is needed to run them.
set -eu

DEFAULT_FLAGS="-ptx -lineinfo"

# output.ptx  source.cu  extra flags (appended to DEFAULT_FLAGS)
VARIANTS='
softmax/softmax_online_fast.ptx softmax/softmax_online.cu -use_fast_math
realworld/device_calls_O0.ptx realworld/device_calls.cu -Xcicc -O0
'

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

mode=write
case "${1:-}" in
  --check) mode=check ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

if ! command -v nvcc >/dev/null 2>&1; then
  echo "regen.sh: nvcc not found; skipping (the committed .ptx files are used as they are)" >&2
  exit 0
fi

# nvcc names internal-linkage functions (the intrinsics' static inline helpers, which -lineinfo
# lists in .debug_str) with a module id hashed from the source's absolute path, so the sources
# are compiled from one fixed folder: the PTX is then the same whatever the checkout's path.
stage=/tmp/gpueq-kernels-regen
rm -rf "$stage"
if [ "$mode" = check ]; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out" "$stage"' EXIT
else
  out="$here"
  trap 'rm -rf "$stage"' EXIT
fi
for cu in */*.cu; do
  mkdir -p "$stage/$(dirname "$cu")"
  cp "$cu" "$stage/$cu"
done

# The architecture a family's kernels are compiled for and checked against.
arch_of() {
  case "$1" in
    hopper/*|probes/*) echo sm_90a ;;
    *) echo sm_80 ;;
  esac
}

gen() { # gen OUT.ptx SRC.cu [extra flags...]
  dst="$out/$1"; src="$stage/$2"; arch="$(arch_of "$2")"; shift 2
  mkdir -p "$(dirname "$dst")"
  # shellcheck disable=SC2086
  nvcc $DEFAULT_FLAGS -arch="$arch" "$@" "$src" -o "$dst"
  sed -i -E 's|(\.file[[:space:]]+[0-9]+[[:space:]]+")[^"]*/([^"/]+")|\1\2|' "$dst"
}

for cu in */*.cu; do
  gen "${cu%.cu}.ptx" "$cu"
done
echo "$VARIANTS" | while read -r dst src flags; do
  [ -n "$dst" ] || continue
  # shellcheck disable=SC2086
  gen "$dst" "$src" $flags
done

[ "$mode" = check ] || { echo "regen.sh: PTX regenerated"; exit 0; }

status=0
for ptx in */*.ptx; do
  # triton/: the kernels' PTX comes from Triton (triton/regen.py --check diffs it and runs ptxas);
  # only the CUDA references beside them are this script's.
  case "$ptx" in triton/*) [ -f "${ptx%.ptx}.cu" ] || continue ;; esac
  if [ ! -f "$out/$ptx" ]; then
    echo "regen.sh: $ptx is committed but no source generates it" >&2; status=1
  elif ! diff -q "$ptx" "$out/$ptx" >/dev/null; then
    echo "regen.sh: $ptx differs from freshly generated PTX:" >&2
    diff -u "$ptx" "$out/$ptx" | head -20 >&2; status=1
  fi
  if ! ptxas -arch="$(arch_of "$ptx")" "$ptx" -o /dev/null; then
    echo "regen.sh: ptxas rejects $ptx" >&2; status=1
  fi
done
for ptx in "$out"/*/*.ptx; do
  rel="${ptx#"$out"/}"
  [ -f "$rel" ] || { echo "regen.sh: $rel is generated but not committed" >&2; status=1; }
done
[ "$status" = 0 ] && echo "regen.sh: all PTX up to date and accepted by ptxas"
exit "$status"
