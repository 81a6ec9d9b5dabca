#!/usr/bin/env bash
# The main job at this stage: for every example model, verify it, print what
# it holds (ops by family, parameters, forward FLOPs), rewrite it into mixed
# precision with --amp-autocast, and run the forward pass of both versions in
# the reference interpreter on the same seeded inputs; then build training
# steps in fp32 and f16 and train each for 100 steps.
set -euo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")/.."
amp_opt="$build_dir/bin/amp-opt"
amp_run="$build_dir/bin/amp-run"
out=out/demo
mkdir -p "$out"

loss_of() { sed -n 's/^result #0: tensor<f32> = \[\(.*\)\]$/\1/p'; }

echo "amp-mlir demo: the example training graphs"
echo
for model in examples/*.mlir; do
  name=$(basename "$model" .mlir)
  echo "== $model"
  # A verification failure prints a located diagnostic and stops the demo.
  "$amp_opt" "$model" --amp-model-summary -o /dev/null | sed 's/^/  /'
  "$amp_opt" "$model" -o "$out/$name.f16.mlir" \
    --amp-autocast="report=$out/$name.f16.json dot=$out/$name.f16.dot remarks=true" 2>&1 |
    sed -n 's/.*remark: amp-autocast: \(converted .*\)/  autocast: \1/p'
  fp32=$("$amp_run" "$model" --random-inputs=1 --scale=0.1 | loss_of)
  amp=$("$amp_run" "$out/$name.f16.mlir" --random-inputs=1 --scale=0.1 --check-finite | loss_of)
  echo "  forward loss on seeded inputs (reference interpreter): fp32 $fp32, f16 AMP $amp"
  awk -v a="$amp" -v b="$fp32" 'BEGIN { d = a - b; if (d < 0) d = -d;
    printf "  relative difference %.2e\n", d / b }'
  echo
done
echo "== training steps (--amp-train-step), 100 steps in the reference interpreter"
for model in mlp gpt_block; do
  if [ "$model" = mlp ]; then opt="optimizer=sgd lr=0.1 momentum=0.9"; else opt="optimizer=adamw lr=1e-2"; fi
  for type in none f16; do
    "$amp_opt" "examples/$model.mlir" -o "$out/${model}_step.$type.mlir" \
      --amp-train-step="compute-type=$type $opt"
    label=$([ "$type" = none ] && echo fp32 || echo "$type AMP")
    "$amp_run" "$out/${model}_step.$type.mlir" --function="${model}_step" \
      --random-inputs=1 --scale=0.1 --train-steps=100 --print-every=100 --check-finite |
      sed -n "s/^trained /  $model, $label: trained /p"
  done
done
echo
echo "All examples verified, converted, run and trained. Reports (JSON, DOT,"
echo "the rewritten IR and training steps) are in $out/."
