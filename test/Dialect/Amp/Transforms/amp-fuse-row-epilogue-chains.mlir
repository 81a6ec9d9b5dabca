// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-fuse))' | FileCheck %s
// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-fuse,amp-fuse))' | FileCheck %s

// A row kernel's stores compute the elementwise kernel that reads its
// epilogue's last value too (a layer norm's input gradient added to the
// residual's, then cast to bf16 for the next GEMM), storing each value
// others read: the sum and the caller read the residual's gradient in
// f32, the GEMM its bf16 copy.
// CHECK-LABEL: func.func @chain
// CHECK: %[[ROW:.*]]:2 = amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.layer_norm_grad
// CHECK-NEXT: amp.add
// CHECK-NEXT: amp.cast
// CHECK: amp.fusion<gemm, root = 0>(%{{.*}} = %[[ROW]]#1,
// CHECK: amp.fusion<reduction, root = 0>(%{{.*}} = %[[ROW]]#0)
// CHECK: return %{{.*}}, %{{.*}}, %[[ROW]]#0
func.func @chain(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %r: tensor<4x8xf32>, %w: tensor<8x8xbf16>) -> (tensor<4x8xbf16>, tensor<8xf32>, tensor<4x8xf32>) {
  %g = amp.layer_norm_grad %x, %dy {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %a = amp.add %r, %g : tensor<4x8xf32>, tensor<4x8xf32>
  %c = amp.cast %a : tensor<4x8xf32> to tensor<4x8xbf16>
  %m = amp.matmul %c, %w : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %s = amp.sum %a dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  return %m, %s, %a : tensor<4x8xbf16>, tensor<8xf32>, tensor<4x8xf32>
}

// -----

// Two layers' gradients: the second layer norm's gradient (later in the
// step) adds the first's residual gradient in its own stores, which
// leaves the first's cast to it alone: both kernels take their casts.
// CHECK-LABEL: func.func @layers
// CHECK: %[[FIRST:.*]]:2 = amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.layer_norm_grad
// CHECK-NEXT: amp.add
// CHECK-NEXT: amp.cast
// CHECK: amp.fusion<rows, root = 1>(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[FIRST]]#0)
// CHECK-NEXT: amp.cast
// CHECK-NEXT: amp.layer_norm_grad
// CHECK-NEXT: amp.add
// CHECK-NEXT: amp.cast
func.func @layers(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %r: tensor<4x8xf32>, %w: tensor<8x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>) {
  %g = amp.layer_norm_grad %x, %dy {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %a = amp.add %r, %g : tensor<4x8xf32>, tensor<4x8xf32>
  %c = amp.cast %a : tensor<4x8xf32> to tensor<4x8xbf16>
  %m = amp.matmul %c, %w : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %mf = amp.cast %m : tensor<4x8xbf16> to tensor<4x8xf32>
  %g2 = amp.layer_norm_grad %x, %mf {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %a2 = amp.add %a, %g2 : tensor<4x8xf32>, tensor<4x8xf32>
  %c2 = amp.cast %a2 : tensor<4x8xf32> to tensor<4x8xbf16>
  %m2 = amp.matmul %c2, %w : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  return %m, %m2 : tensor<4x8xbf16>, tensor<4x8xbf16>
}

// -----

// A reader of the residual gradient before the cast would run keeps the
// cast a kernel of its own: the row kernel would move past it.
// CHECK-LABEL: func.func @read_before
// CHECK: amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.layer_norm_grad
// CHECK-NEXT: amp.add
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<reduction
// CHECK: amp.fusion<loop, root = 0>
// CHECK-NEXT: amp.cast
func.func @read_before(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %r: tensor<4x8xf32>, %w: tensor<8x8xbf16>) -> (tensor<4x8xbf16>, tensor<8xf32>) {
  %g = amp.layer_norm_grad %x, %dy {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %a = amp.add %r, %g : tensor<4x8xf32>, tensor<4x8xf32>
  %s = amp.sum %a dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  %c = amp.cast %a : tensor<4x8xf32> to tensor<4x8xbf16>
  %m = amp.matmul %c, %w : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  return %m, %s : tensor<4x8xbf16>, tensor<8xf32>
}
