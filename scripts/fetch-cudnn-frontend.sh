#!/usr/bin/env bash
# Fetches the headers of NVIDIA's cuDNN frontend (a header-only C++ library
# over cuDNN's graph API), which the CUDA runtime uses for fused attention,
# into third_party/cudnn-frontend/include. Runs only where the CUDA toolkit
# has cuDNN; best effort: without the headers the runtime builds without
# cuDNN and runs its own attention kernels. The version is pinned.
#
#   scripts/fetch-cudnn-frontend.sh [CUDA_ROOT]
set -uo pipefail

version=1.32.0
cuda_root="${1:-/usr/local/cuda}"
root="$(cd "$(dirname "$0")/.." && pwd)"
destination="$root/third_party/cudnn-frontend"

[ -f "$cuda_root/include/cudnn.h" ] || exit 0
if [ -f "$destination/VERSION" ] && [ "$(cat "$destination/VERSION")" = "$version" ]; then
  exit 0
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The wheel is the frontend's Python package; its include/ holds the headers.
if ! python3 -m pip download --quiet --no-deps --only-binary=:all: \
    "nvidia-cudnn-frontend==$version" -d "$scratch" >"$scratch/log" 2>&1; then
  echo "fetch-cudnn-frontend: cannot download cuDNN frontend $version;" \
       "the CUDA runtime builds without cuDNN attention" >&2
  tail -n 3 "$scratch/log" >&2
  exit 0
fi
python3 - "$scratch" "$destination.partial" <<'PY'
import pathlib, sys, zipfile
scratch, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wheel = next(scratch.glob("*.whl"))
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        if name.startswith("include/") and not name.endswith("/"):
            archive.extract(name, target)
PY
[ -f "$destination.partial/include/cudnn_frontend.h" ] || {
  echo "fetch-cudnn-frontend: the wheel holds no include/cudnn_frontend.h" >&2
  rm -rf "$destination.partial"
  exit 0
}
echo "$version" >"$destination.partial/VERSION"
rm -rf "$destination"
mv "$destination.partial" "$destination"
echo "fetch-cudnn-frontend: cuDNN frontend $version headers in third_party/cudnn-frontend"
