#!/usr/bin/env bash
# The main job: the example models compiled with f16 AMP (dynamic loss
# scaling) and in fp32 by amp-compile, trained side by side on data sets the
# project generates, on the GPU when there is one and on the host otherwise.
# Prints what the compiler decided and how training went; reports (SVG,
# PNG, JSON) go to out/demo/. The work is done by the Python package
# (python/ampmlir/demo.py) through the compiled steps' C API.
set -euo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")/.."
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
export AMP_MLIR_BIN="$PWD/$build_dir/bin"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
exec "$python" -m ampmlir.demo --out out/demo
