#!/usr/bin/env bash
# The main job at this stage: parse and verify every example model, print
# what it holds (ops by family, parameters, forward FLOPs), and run its
# forward pass in the reference interpreter on seeded inputs.
set -euo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")/.."
amp_opt="$build_dir/bin/amp-opt"
amp_run="$build_dir/bin/amp-run"

echo "amp-mlir demo: the example training graphs"
echo
for model in examples/*.mlir; do
  echo "== $model"
  # A verification failure prints a located diagnostic and stops the demo.
  "$amp_opt" "$model" --amp-model-summary -o /dev/null | sed 's/^/  /'
  echo "  forward pass in the reference interpreter (seed 1, inputs ~ N(0, 0.1^2)):"
  "$amp_run" "$model" --random-inputs=1 --scale=0.1 --check-finite --time=5 |
    sed -e 's/^result #0: tensor<f32> = \[\(.*\)\]/loss \1/' -e 's/^/    /'
  echo
done
echo "All examples parsed, verified and ran."
