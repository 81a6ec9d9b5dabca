// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-fuse))' | FileCheck %s
// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-fuse,amp-fuse))' | FileCheck %s

// The normalised input a backward recomputes for a layer norm's scale
// gradient is (x - mean) / deviation from the statistics the forward's
// layer norm of the same x and epsilon stores (amp.norm_stats in its row
// kernel, beside its bf16 copy): the column sums compute it in their loads,
// and no kernel normalises the rows again.
// CHECK-LABEL: func.func @scale_grad
// CHECK: %[[FWD:.*]]:3 = amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.layer_norm %{{.*}} scale
// CHECK-NEXT: %[[MEAN:.*]], %[[DEV:.*]] = amp.norm_stats %{{.*}} {centered, epsilon = 1.000000e-05 : f64} : tensor<4x8xf32> to tensor<4x1xf32>, tensor<4x1xf32>
// CHECK-NEXT: amp.cast
// CHECK-NEXT: amp.yield %[[MEAN]], %[[DEV]], %{{.*}}
// CHECK: amp.fusion<gemm
// CHECK-NOT: amp.layer_norm
// CHECK: amp.fusion<reduction, root = 4>(%{{.*}} = %{{.*}}, %{{.*}} = %[[FWD]]#0, %{{.*}} = %[[FWD]]#1, %{{.*}} = %{{.*}})
// CHECK-NEXT: amp.sub %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x1xf32>
// CHECK-NEXT: amp.div %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x1xf32>
// CHECK-NEXT: amp.cast
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.sum
func.func @scale_grad(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %w: tensor<8x8xbf16>, %dy: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<8xf32>) {
  %y = amp.layer_norm %x scale(%g : tensor<8xf32>) bias(%b : tensor<8xf32>) {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %c = amp.cast %y : tensor<4x8xf32> to tensor<4x8xbf16>
  %m = amp.matmul %c, %w : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %h = amp.layer_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %dyf = amp.cast %dy : tensor<4x8xbf16> to tensor<4x8xf32>
  %p = amp.mul %dyf, %h : tensor<4x8xf32>, tensor<4x8xf32>
  %s = amp.sum %p dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  return %m, %s : tensor<4x8xbf16>, tensor<8xf32>
}

// -----

// RMS norm's: x / deviation, the statistics without centring.
// CHECK-LABEL: func.func @rms
// CHECK: %[[FWD:.*]]:3 = amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.rms_norm %{{.*}} scale
// CHECK-NEXT: amp.norm_stats %{{.*}} {axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64} : tensor<2x4x8xf32> to tensor<2x1x1xf32>, tensor<2x1x1xf32>
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<reduction, root = 2>(%{{.*}} = %{{.*}}, %{{.*}} = %[[FWD]]#2,
// CHECK-NEXT: amp.div %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<2x1x1xf32>
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.sum
func.func @rms(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>, %dy: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<4x8xf32>) {
  %y = amp.rms_norm %x scale(%g : tensor<4x8xf32>) {axis = 1 : i64, epsilon = 1.0e-06 : f64} : tensor<2x4x8xf32>
  %h = amp.rms_norm %x {axis = 1 : i64, epsilon = 1.0e-06 : f64} : tensor<2x4x8xf32>
  %p = amp.mul %dy, %h : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %s = amp.sum %p dims = [0] : tensor<2x4x8xf32> to tensor<4x8xf32>
  return %y, %s : tensor<2x4x8xf32>, tensor<4x8xf32>
}

// -----

// What stays a norm: another epsilon, another axis, a layer norm where
// the earlier norm is an RMS norm, one without an earlier norm, one a
// GEMM reads (no loads compute it), and a bf16 one (whose norm rounds once,
// where the subtraction and division would round twice).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: amp.norm_stats
// CHECK-COUNT-7: amp.fusion<rows, root = 0>
// CHECK-NOT: amp.norm_stats
func.func @kept(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>, %xb: tensor<4x8xbf16>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>) {
  %y = amp.layer_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %h1 = amp.layer_norm %x {epsilon = 1.0e-06 : f64} : tensor<4x8xf32>
  %r1 = amp.relu %h1 : tensor<4x8xf32>
  %rz = amp.rms_norm %z {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %h2 = amp.layer_norm %z {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %r2 = amp.relu %h2 : tensor<4x8xf32>
  %h3 = amp.layer_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %m = amp.matmul %h3, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %yb = amp.layer_norm %xb {epsilon = 1.0e-05 : f64} : tensor<4x8xbf16>
  %hb = amp.layer_norm %xb {epsilon = 1.0e-05 : f64} : tensor<4x8xbf16>
  %rb = amp.relu %hb : tensor<4x8xbf16>
  return %y, %r1, %rz, %r2, %m, %r1, %rb : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>
}

// -----

// Statistics read before the norm's kernel ends (its bf16 copy is stored
// after the column sums) are a row kernel of their own.
// CHECK-LABEL: func.func @read_before
// CHECK: amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.norm_stats
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<reduction
// CHECK: amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.layer_norm %{{.*}} scale
// CHECK-NEXT: amp.cast
func.func @read_before(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %dy: tensor<4x8xf32>) -> (tensor<4x8xbf16>, tensor<8xf32>) {
  %y = amp.layer_norm %x scale(%g : tensor<8xf32>) {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %h = amp.layer_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %p = amp.mul %dy, %h : tensor<4x8xf32>, tensor<4x8xf32>
  %s = amp.sum %p dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  %c = amp.cast %y : tensor<4x8xf32> to tensor<4x8xbf16>
  return %c, %s : tensor<4x8xbf16>, tensor<8xf32>
}
