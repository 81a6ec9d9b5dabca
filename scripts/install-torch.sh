#!/usr/bin/env bash
# Installs PyTorch (CPU use) into the project's own virtual environment,
# with torchvision and Hugging Face transformers, whose models the tests of
# the PyTorch importer (ampmlir.from_torch) import; nothing else uses them:
# the package itself imports torch only when from_torch is called.
# The environment sees Debian's packages (numpy, pytest, mpi4py) too.
# Idempotent: an environment whose torch imports is left as it is.
#
#   scripts/install-torch.sh [VENV]      (default: .venv in the checkout)
#
# torch from the package index brings its CUDA libraries (nvidia-* wheels):
# about 5.3 GB installed, two to three minutes here. `pip install --no-deps
# torch` does not import without them (libcufile and others), so the full
# install is the one that works on a machine without a GPU too.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
venv="${1:-$here/../.venv}"
# The version the tests' golden figures and the docs were made with.
torch_version=2.15.0
packages=("torch==$torch_version" torchvision==0.29.2 transformers==5.24.0)

# The checkout's own package on the environment's path (what an editable
# install does, without building one), so that `.venv/bin/python` imports
# ampmlir with no PYTHONPATH, from wherever it is run.
link_package() {
  local site
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  (cd "$here/../python" && pwd) > "$site/ampmlir-checkout.pth"
}

if [ -x "$venv/bin/python" ] &&
   "$venv/bin/python" -c "import torch, torchvision, transformers, sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" 2>/dev/null; then
  link_package
  exit 0
fi
echo "install-torch: installing torch $torch_version into $venv (about 5 GB)"
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install --quiet "${packages[@]}"
link_package
"$venv/bin/python" -c "import torch; print('install-torch: torch', torch.__version__)"
