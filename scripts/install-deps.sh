#!/usr/bin/env bash
# Installs the Debian packages amp-mlir needs to build and test, and nothing
# else (numpy and pytest for the Python package, matplotlib and graphviz for
# the demo's reports, clang-format-19 for the format check, clang's libFormat
# for the generated code, Open MPI for the data-parallel communicator and
# its tests under mpirun, mpi4py for Step(comm=...)). Idempotent: when
# every package is present it installs nothing and needs no root. CUDA is
# optional and never installed here; the build detects it. Where the CUDA toolkit has cuDNN, the cuDNN
# frontend's headers are fetched too (scripts/fetch-cudnn-frontend.sh).
#
#   scripts/install-deps.sh          what `make test` and `make demo` need
#   scripts/install-deps.sh sanitize also clang-19 and its sanitizer runtimes
#   scripts/install-deps.sh fuzz     the same (its fuzzer runtime is there)
set -euo pipefail

packages=(
  cmake ninja-build g++ make
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  libgtest-dev clang-format-19 libclang-19-dev libclang-cpp19-dev
  python3 python3-numpy python3-pytest python3-venv python3-setuptools
  python3-wheel
  python3-matplotlib graphviz
  libopenmpi-dev openmpi-bin python3-mpi4py
)
if [ "${1:-}" = fuzz ] || [ "${1:-}" = sanitize ]; then
  packages+=(clang-19 libclang-rt-19-dev)
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

here="$(cd "$(dirname "$0")" && pwd)"
if [ ${#missing[@]} -eq 0 ]; then
  "$here/fetch-cudnn-frontend.sh"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "install-deps: missing packages (${missing[*]}) and not root; install them or run as root" >&2
    exit 1
  fi
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
"$here/fetch-cudnn-frontend.sh"
