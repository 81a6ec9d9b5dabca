// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-decompose{keep-convolutions}))' | FileCheck %s
// --amp-backend keeps them by default; told not to, it decomposes them.
// RUN: amp-opt %S/Inputs/conv_layers.mlir --amp-backend | FileCheck %s --check-prefix=BACKEND
// RUN: amp-opt %S/Inputs/conv_layers.mlir --amp-backend=keep-convolutions=false | FileCheck %s --check-prefix=DECOMPOSED
// BACKEND: amp.conv2d {{.*}}xf16> to tensor<2x4x3x3xf16>
// BACKEND: amp.conv2d_grad_input
// BACKEND: amp.conv2d_grad_weight
// DECOMPOSED-NOT: amp.conv2d
// DECOMPOSED: amp.im2col
// DECOMPOSED-NOT: amp.conv2d

// With keep-convolutions, amp-decompose leaves the convolutions and
// gradients the runtime runs whole (amp_conv2d_*): operands of one type
// among f16, bf16 and f32, f32 accumulation, a result of their type or f32.
// A kept convolution's parameters still record how they start, as a
// decomposed one's do (torch.nn.Conv2d's fan-in: C/G * KH * KW = 27).
// CHECK-LABEL: func.func @kept
// CHECK-SAME: %{{.*}}: tensor<4x3x3x3xf16> {amp.param, amp.param_init = array<f64: 2.700000e+01, 0.000000e+00>}
// CHECK-SAME: %{{.*}}: tensor<4xf16> {amp.param, amp.param_init = array<f64: 2.700000e+01, 0.000000e+00>}
// CHECK: amp.conv2d %{{.*}}, %{{.*}} bias %{{.*}} {
// CHECK-SAME: : tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16>, tensor<4xf16> to tensor<2x4x3x3xf16>
// CHECK: amp.conv2d %{{.*}}, %{{.*}} {{.*}} : tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16> to tensor<2x4x3x3xf32>
// CHECK: amp.conv2d_grad_input
// CHECK: amp.conv2d_grad_weight
// CHECK-NOT: amp.im2col
func.func @kept(%x: tensor<2x3x6x6xf16>, %w: tensor<4x3x3x3xf16> {amp.param}, %b: tensor<4xf16> {amp.param}, %dy: tensor<2x4x3x3xf16>)
    -> (tensor<2x4x3x3xf16>, tensor<2x4x3x3xf32>, tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16>) {
  %y = amp.conv2d %x, %w bias %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16>, tensor<4xf16> to tensor<2x4x3x3xf16>
  %wide = amp.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16> to tensor<2x4x3x3xf32>
  %dx = amp.conv2d_grad_input %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x4x3x3xf16>, tensor<4x3x3x3xf16> to tensor<2x3x6x6xf16>
  %dw = amp.conv2d_grad_weight %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x6x6xf16>, tensor<2x4x3x3xf16> to tensor<4x3x3x3xf16>
  return %y, %wide, %dx, %dw : tensor<2x4x3x3xf16>, tensor<2x4x3x3xf32>, tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16>
}

// f64, and f32 operands summed in f64, are the runtime's to refuse: the
// decomposition runs, and the backend then says what it takes.
// CHECK-LABEL: func.func @decomposed
// CHECK-NOT: amp.conv2d
// CHECK: amp.im2col {{.*}} : tensor<1x2x4x4xf64>
// CHECK: amp.im2col {{.*}} : tensor<1x2x4x4xf32>
// CHECK-NOT: amp.conv2d
func.func @decomposed(%x: tensor<1x2x4x4xf64>, %w: tensor<2x2x3x3xf64>, %x32: tensor<1x2x4x4xf32>, %w32: tensor<2x2x3x3xf32>)
    -> (tensor<1x2x2x2xf64>, tensor<1x2x2x2xf32>) {
  %y = amp.conv2d %x, %w : tensor<1x2x4x4xf64>, tensor<2x2x3x3xf64> to tensor<1x2x2x2xf64>
  %z = amp.conv2d %x32, %w32 {acc_type = f64} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> to tensor<1x2x2x2xf32>
  return %y, %z : tensor<1x2x2x2xf64>, tensor<1x2x2x2xf32>
}

// Columns whose f32 workspace would not fit in int64 bytes (2^60 values):
// the runtime refuses such a convolution, so it is decomposed.
// CHECK-LABEL: func.func @too_large
// CHECK: amp.im2col
// CHECK-NOT: amp.conv2d
func.func @too_large(%x: tensor<1x1x1073741824x1073741824xf16>, %w: tensor<1x1x1x1xf16>)
    -> tensor<1x1x1073741824x1073741824xf16> {
  %y = amp.conv2d %x, %w : tensor<1x1x1073741824x1073741824xf16>, tensor<1x1x1x1xf16> to tensor<1x1x1073741824x1073741824xf16>
  return %y : tensor<1x1x1073741824x1073741824xf16>
}
