// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-decompose{keep-batch-norms}))' | FileCheck %s
// --amp-backend keeps them by default; told not to, it decomposes them.
// RUN: amp-opt %S/Inputs/batch_norm_layers.mlir --amp-backend | FileCheck %s --check-prefix=BACKEND
// RUN: amp-opt %S/Inputs/batch_norm_layers.mlir --amp-backend=keep-batch-norms=false | FileCheck %s --check-prefix=DECOMPOSED
// BACKEND: amp.batch_norm {{.*}}training} : tensor<2x3x4x4xf16>
// BACKEND: amp.batch_norm_grad
// DECOMPOSED-NOT: amp.batch_norm
// DECOMPOSED: amp.mean
// DECOMPOSED-NOT: amp.batch_norm

// With keep-batch-norms, amp-decompose leaves the batch norms and their
// gradients the runtime runs whole (amp_batch_norm_*): f16, bf16 or f32
// activations, f32 statistics, f32 (or no) scale, bias and parameter
// gradients. A kept batch norm's scale and bias still record how they
// start (torch.nn.BatchNorm2d's: 1 and 0), as a decomposed one's do.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: %{{.*}}: tensor<3xf32> {amp.param, amp.param_init = array<f64: 0.000000e+00, 1.000000e+00>}
// CHECK-SAME: %{{.*}}: tensor<3xf32> {amp.param, amp.param_init = array<f64: 0.000000e+00, 0.000000e+00>}
// CHECK: amp.batch_norm %{{.*}} running({{.*}}) scale({{.*}}) bias({{.*}}) {training} : tensor<2x3x4x4xf16>
// CHECK: amp.batch_norm %{{.*}} : tensor<8x3xbf16>
// CHECK: amp.batch_norm_grad %{{.*}} {training} : tensor<2x3x4x4xf16> -> tensor<3xf32>, tensor<3xf32>
// CHECK-NOT: amp.mean
func.func @kept(%x: tensor<2x3x4x4xf16>, %v: tensor<8x3xbf16>, %dy: tensor<2x3x4x4xf16>,
                %rm: tensor<3xf32>, %rv: tensor<3xf32>,
                %g: tensor<3xf32> {amp.param}, %b: tensor<3xf32> {amp.param})
    -> (tensor<2x3x4x4xf16>, tensor<8x3xbf16>, tensor<2x3x4x4xf16>) {
  %y:3 = amp.batch_norm %x running(%rm, %rv : tensor<3xf32>) scale(%g : tensor<3xf32>)
      bias(%b : tensor<3xf32>) {training} : tensor<2x3x4x4xf16>
  %e:3 = amp.batch_norm %v running(%rm, %rv : tensor<3xf32>) : tensor<8x3xbf16>
  %d:3 = amp.batch_norm_grad %x, %dy running(%rm, %rv : tensor<3xf32>) {training}
      : tensor<2x3x4x4xf16> -> tensor<3xf32>, tensor<3xf32>
  return %y#0, %e#0, %d#0 : tensor<2x3x4x4xf16>, tensor<8x3xbf16>, tensor<2x3x4x4xf16>
}

// f64 activations (f64 statistics), and a scale or gradient in f16, are
// the runtime's to refuse: the decomposition runs.
// CHECK-LABEL: func.func @decomposed
// CHECK-NOT: amp.batch_norm
// CHECK: amp.mean {{.*}} : tensor<2x3x4x4xf64> to tensor<3xf64>
// CHECK-NOT: amp.batch_norm
// CHECK: amp.sum {{.*}} to tensor<3xf16>
// CHECK-NOT: amp.batch_norm
func.func @decomposed(%x: tensor<2x3x4x4xf64>, %rm: tensor<3xf64>,
                      %h: tensor<2x3x4x4xf16>, %r: tensor<3xf32>, %g: tensor<3xf16>)
    -> (tensor<2x3x4x4xf64>, tensor<2x3x4x4xf16>, tensor<2x3x4x4xf16>, tensor<3xf16>) {
  %y:3 = amp.batch_norm %x running(%rm, %rm : tensor<3xf64>) {training} : tensor<2x3x4x4xf64>
  %z:3 = amp.batch_norm %h running(%r, %r : tensor<3xf32>) scale(%g : tensor<3xf16>) {training} : tensor<2x3x4x4xf16>
  %d:3 = amp.batch_norm_grad %h, %h running(%r, %r : tensor<3xf32>) {training}
      : tensor<2x3x4x4xf16> -> tensor<3xf16>, tensor<3xf32>
  return %y#0, %z#0, %d#0, %d#1 : tensor<2x3x4x4xf64>, tensor<2x3x4x4xf16>, tensor<2x3x4x4xf16>, tensor<3xf16>
}
