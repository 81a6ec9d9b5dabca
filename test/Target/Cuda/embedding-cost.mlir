// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-cost-report --amp-name=emb | %python %S/Inputs/cost_rows.py | FileCheck %s

// An embedding reads of its table only the rows of its ids, an element per
// element it writes, whatever the table's size. By hand: 6 ids (i64, 48
// bytes) and 6 rows of 8 f32 (192 bytes) of the 1000-row table read, 192
// bytes written; its minimum is the same, not the table's 32000 bytes.
// CHECK: k0_embedding elementwise launches=1 grid=1x256 flops=0 transcendentals=0 tensor_core=0 read=240 written=192
// CHECK: minimum k0_embedding launches=1 bytes=432 flops=none excess=1.000

func.func @step(%table: tensor<1000x8xf32> {amp.param}, %ids: tensor<2x3xi64>) -> (tensor<1000x8xf32>, tensor<f32>) {
  %rows = amp.embedding %table[%ids] : tensor<1000x8xf32>, tensor<2x3xi64>
  %loss = amp.sum %rows dims = [0, 1, 2] : tensor<2x3x8xf32> to tensor<f32>
  return %table, %loss : tensor<1000x8xf32>, tensor<f32>
}
