// amp-evaluation adds @<f>_eval: the model's body returning its loss and
// the values named in `outputs`, by their SSA names in this file, in the
// order given, each result named (amp.name). The model function stays as
// it was.
// RUN: amp-opt %s --amp-evaluation | FileCheck %s --check-prefix=LOSS
// RUN: amp-opt %s --amp-evaluation="outputs=logits,hidden" | FileCheck %s
// Only the function named, when one is.
// RUN: amp-opt %s --amp-evaluation="function=helper" | FileCheck %s --check-prefix=NAMED

// LOSS-LABEL: func.func @mlp(
// LOSS: func.func @mlp_eval(%{{[^:]*}}: tensor<2x4xf32> {amp.name = "x"}, %{{[^:]*}}: tensor<2xi64> {amp.name = "labels"}, %{{[^:]*}}: tensor<4x3xf32> {amp.name = "w", amp.param}, %{{[^:]*}}: tensor<3xf32> {amp.name = "b", amp.param}) -> (tensor<f32> {amp.name = "loss"}) attributes {amp.evaluation_of = @mlp}
// LOSS: %[[L:.*]] = amp.cross_entropy
// LOSS-NEXT: return %[[L]] : tensor<f32>
// LOSS-NOT: func.func @helper_eval

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: -> tensor<f32> {
// CHECK: func.func @mlp_eval(
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss"}, tensor<2x3xf32> {amp.name = "logits"}, tensor<2x3xf32> {amp.name = "hidden"}) attributes {amp.evaluation_of = @mlp}
// CHECK: %[[H:.*]] = amp.relu
// CHECK: %[[Z:.*]] = amp.add
// CHECK: %[[L:.*]] = amp.cross_entropy %[[Z]]
// CHECK-NEXT: return %[[L]], %[[Z]], %[[H]] : tensor<f32>, tensor<2x3xf32>, tensor<2x3xf32>

// NAMED-NOT: func.func @mlp_eval
// NAMED: func.func @helper_eval(%{{[^:]*}}: tensor<3xf32> {amp.name = "v"}) -> (tensor<f32> {amp.name = "loss"}) attributes {amp.evaluation_of = @helper}
func.func @mlp(%x: tensor<2x4xf32>, %labels: tensor<2xi64>,
               %w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %mm = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %hidden = amp.relu %mm : tensor<2x3xf32>
  %logits = amp.add %hidden, %b : tensor<2x3xf32>, tensor<3xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %loss : tensor<f32>
}

func.func @helper(%v: tensor<3xf32>) -> tensor<f32> {
  %s = amp.sum %v dims = [0] : tensor<3xf32> to tensor<f32>
  return %s : tensor<f32>
}
