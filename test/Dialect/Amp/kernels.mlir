// RUN: amp-opt %s | FileCheck %s
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// One amp.fusion of each kind of kernel (#amp.kernel, KernelAnalysis.h),
// written without its kind: the parser gives it the kind and root its
// ops make, which print and parse again, in the custom and the generic
// form.

// CHECK-LABEL: func.func @loop
// CHECK: amp.fusion<loop, root = 1>(
func.func @loop(%x: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %k = amp.fusion(%a = %x, %c = %b) : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32> {
    %0 = amp.add %a, %c : tensor<8x4xf32>, tensor<4xf32>
    %1 = amp.relu %0 : tensor<8x4xf32>
    amp.yield %1 : tensor<8x4xf32>
  }
  return %k : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @gemm
// CHECK: amp.fusion<gemm, root = 0>(
// CHECK: amp.fusion<gemm, root = 0>(
func.func @gemm(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %k = amp.fusion(%a = %x, %c = %w, %d = %b) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
    %0 = amp.matmul %a, %c bias %d : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> to tensor<2x3xf32>
    %1 = amp.relu %0 : tensor<2x3xf32>
    amp.yield %1 : tensor<2x3xf32>
  }
  %m = amp.fusion(%a = %x, %c = %w) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> {
    %0 = amp.matmul %a, %c : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
    amp.yield %0 : tensor<2x3xf32>
  }
  return %k, %m : tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reduction
// CHECK: amp.fusion<reduction, root = 1>(
func.func @reduction(%x: tensor<4xf32>) -> tensor<f32> {
  %k = amp.fusion(%a = %x) : (tensor<4xf32>) -> tensor<f32> {
    %0 = amp.mul %a, %a : tensor<4xf32>, tensor<4xf32>
    %1 = amp.sum %0 dims = [0] : tensor<4xf32> to tensor<f32>
    amp.yield %1 : tensor<f32>
  }
  return %k : tensor<f32>
}

// A row op with its prologue (computed in its loads) and its epilogue
// (in its stores).
// CHECK-LABEL: func.func @rows
// CHECK: amp.fusion<rows, root = 1>(
func.func @rows(%x: tensor<2x4xf32>) -> tensor<2x4xbf16> {
  %k = amp.fusion(%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xbf16> {
    %0 = amp.neg %a : tensor<2x4xf32>
    %1 = amp.softmax %0 dim = 1 : tensor<2x4xf32>
    %2 = amp.cast %1 : tensor<2x4xf32> to tensor<2x4xbf16>
    amp.yield %2 : tensor<2x4xbf16>
  }
  return %k : tensor<2x4xbf16>
}

// CHECK-LABEL: func.func @gather
// CHECK: amp.fusion<gather, root = 2>(
func.func @gather(%x: tensor<2x16x64xf32>) -> tensor<2x4x16x8xf32> {
  %k = amp.fusion(%a = %x) : (tensor<2x16x64xf32>) -> tensor<2x4x16x8xf32> {
    %0 = amp.slice %a [0, 0, 0] to [2, 16, 32] : tensor<2x16x64xf32> to tensor<2x16x32xf32>
    %1 = amp.reshape %0 : tensor<2x16x32xf32> to tensor<2x16x4x8xf32>
    %2 = amp.transpose %1, [0, 2, 1, 3] : tensor<2x16x4x8xf32> to tensor<2x4x16x8xf32>
    amp.yield %2 : tensor<2x4x16x8xf32>
  }
  return %k : tensor<2x4x16x8xf32>
}

// Two like updates in one launch, each guarded by its select.
// CHECK-LABEL: func.func @updates
// CHECK: amp.fusion<updates, root = 0>(
func.func @updates(%w: tensor<4xf32>, %v: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f64>, %wd: tensor<f64>, %ok: tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>) {
  %k:2 = amp.fusion(%a = %w, %b = %v, %c = %g, %d = %lr, %e = %wd, %f = %ok) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f64>, tensor<f64>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = amp.sgd_update %a, %c lr(%d) weight_decay(%e) : tensor<4xf32>
    %1 = amp.select %f, %0, %a : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    %2 = amp.sgd_update %b, %c lr(%d) weight_decay(%e) : tensor<4xf32>
    %3 = amp.select %f, %2, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    amp.yield %1, %3 : tensor<4xf32>, tensor<4xf32>
  }
  return %k#0, %k#1 : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @loss_grad
// CHECK: amp.fusion<loss_grad, root = 0>(
func.func @loss_grad(%x: tensor<4x8xf32>, %ids: tensor<4xi64>, %dl: tensor<f32>) -> (tensor<f32>, tensor<4x8xf32>) {
  %k:2 = amp.fusion(%a = %x, %b = %ids, %c = %dl) : (tensor<4x8xf32>, tensor<4xi64>, tensor<f32>) -> (tensor<f32>, tensor<4x8xf32>) {
    %0 = amp.cross_entropy %a, %b : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
    %1 = amp.cross_entropy_grad %a, %b, %c : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
    amp.yield %0, %1 : tensor<f32>, tensor<4x8xf32>
  }
  return %k#0, %k#1 : tensor<f32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @single
// CHECK: amp.fusion<single, root = 0>(
func.func @single(%w: tensor<8x4xf32>, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %k = amp.fusion(%a = %w, %b = %ids) : (tensor<8x4xf32>, tensor<3xi64>) -> tensor<3x4xf32> {
    %0 = amp.embedding %a[%b] : tensor<8x4xf32>, tensor<3xi64>
    amp.yield %0 : tensor<3x4xf32>
  }
  return %k : tensor<3x4xf32>
}
