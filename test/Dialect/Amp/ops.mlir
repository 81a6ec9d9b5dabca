// Every amp op through print and parse, in the custom and the generic form.
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @constants
// CHECK: amp.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: amp.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>
// CHECK: amp.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK: amp.constant dense<true> : tensor<2xi1>
// CHECK: amp.constant dense<5.000000e-01> : tensor<f64>
// GENERIC-LABEL: "func.func"() <{{.*}}sym_name = "constants"
// GENERIC: "amp.constant"() <{value = dense<0.000000e+00> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
func.func @constants() -> (tensor<4x8xf32>, tensor<2x2xbf16>, tensor<3xi64>, tensor<2xi1>, tensor<f64>) {
  %0 = amp.constant dense<0.0> : tensor<4x8xf32>
  %1 = amp.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %2 = amp.constant dense<[1, 2, 3]> : tensor<3xi64>
  %3 = amp.constant dense<true> : tensor<2xi1>
  %4 = amp.constant dense<0.5> : tensor<f64>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<2x2xbf16>, tensor<3xi64>, tensor<2xi1>, tensor<f64>
}

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[H:.*]] = amp.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[B:.*]] = amp.cast %[[H]] : tensor<4x8xf16> to tensor<4x8xbf16>
// CHECK: amp.cast %[[B]] : tensor<4x8xbf16> to tensor<4x8xf64>
func.func @casts(%x: tensor<4x8xf32>) -> tensor<4x8xf64> {
  %h = amp.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
  %b = amp.cast %h : tensor<4x8xf16> to tensor<4x8xbf16>
  %d = amp.cast %b : tensor<4x8xbf16> to tensor<4x8xf64>
  return %d : tensor<4x8xf64>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf16>)
// CHECK: amp.neg %[[X]] : tensor<2x3xf16>
// CHECK: amp.abs %[[X]] : tensor<2x3xf16>
// CHECK: amp.stop_gradient %[[X]] : tensor<2x3xf16>
// CHECK: amp.exp %[[X]] : tensor<2x3xf16>
// CHECK: amp.log %[[X]] : tensor<2x3xf16>
// CHECK: amp.sqrt %[[X]] : tensor<2x3xf16>
// CHECK: amp.rsqrt %[[X]] : tensor<2x3xf16>
// CHECK: amp.tanh %[[X]] : tensor<2x3xf16>
// CHECK: amp.sigmoid %[[X]] : tensor<2x3xf16>
// CHECK: amp.softplus %[[X]] : tensor<2x3xf16>
// CHECK: amp.relu %[[X]] : tensor<2x3xf16>
// CHECK: amp.gelu %[[X]] : tensor<2x3xf16>
// CHECK: amp.gelu %[[X]] approximate = tanh : tensor<2x3xf16>
// CHECK: amp.pow %[[X]], 2.000000e+00 : tensor<2x3xf16>
// GENERIC: "amp.gelu"(%{{.*}}) <{approximate = 1 : i32}> : (tensor<2x3xf16>) -> tensor<2x3xf16>
func.func @unary(%x: tensor<2x3xf16>) {
  %0 = amp.neg %x : tensor<2x3xf16>
  %1 = amp.abs %x : tensor<2x3xf16>
  %sg = amp.stop_gradient %x : tensor<2x3xf16>
  %2 = amp.exp %x : tensor<2x3xf16>
  %3 = amp.log %x : tensor<2x3xf16>
  %4 = amp.sqrt %x : tensor<2x3xf16>
  %5 = amp.rsqrt %x : tensor<2x3xf16>
  %6 = amp.tanh %x : tensor<2x3xf16>
  %7 = amp.sigmoid %x : tensor<2x3xf16>
  %12 = amp.softplus %x : tensor<2x3xf16>
  %8 = amp.relu %x : tensor<2x3xf16>
  %9 = amp.gelu %x : tensor<2x3xf16>
  %10 = amp.gelu %x approximate = tanh : tensor<2x3xf16>
  %11 = amp.pow %x, 2.0 : tensor<2x3xf16>
  return
}

// Binary ops broadcast like numpy; the result type is inferred.
// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<64x256xbf16>, %[[B:.*]]: tensor<256xbf16>, %[[C:.*]]: tensor<64x1xbf16>)
// CHECK: %[[ADD:.*]] = amp.add %[[A]], %[[B]] : tensor<64x256xbf16>, tensor<256xbf16>
// CHECK: amp.sub %[[B]], %[[A]] : tensor<256xbf16>, tensor<64x256xbf16>
// CHECK: amp.mul %[[B]], %[[C]] : tensor<256xbf16>, tensor<64x1xbf16>
// CHECK: amp.div %[[A]], %[[C]] : tensor<64x256xbf16>, tensor<64x1xbf16>
// CHECK: amp.maximum %[[A]], %[[A]] : tensor<64x256xbf16>, tensor<64x256xbf16>
// CHECK: amp.minimum %[[C]], %[[C]] : tensor<64x1xbf16>, tensor<64x1xbf16>
// CHECK: return %[[ADD]] : tensor<64x256xbf16>
// GENERIC: "amp.mul"(%{{.*}}, %{{.*}}) : (tensor<256xbf16>, tensor<64x1xbf16>) -> tensor<64x256xbf16>
func.func @binary(%a: tensor<64x256xbf16>, %b: tensor<256xbf16>, %c: tensor<64x1xbf16>) -> tensor<64x256xbf16> {
  %0 = amp.add %a, %b : tensor<64x256xbf16>, tensor<256xbf16>
  %1 = amp.sub %b, %a : tensor<256xbf16>, tensor<64x256xbf16>
  %2 = amp.mul %b, %c : tensor<256xbf16>, tensor<64x1xbf16>
  %3 = amp.div %a, %c : tensor<64x256xbf16>, tensor<64x1xbf16>
  %4 = amp.maximum %a, %a : tensor<64x256xbf16>, tensor<64x256xbf16>
  %5 = amp.minimum %c, %c : tensor<64x1xbf16>, tensor<64x1xbf16>
  return %0 : tensor<64x256xbf16>
}

// A causal mask: iota, compare, select.
// CHECK-LABEL: func.func @masking
// CHECK: %[[ROW:.*]] = amp.iota dim = 0 : tensor<16x16xi64>
// CHECK: %[[COL:.*]] = amp.iota dim = 1 : tensor<16x16xi64>
// CHECK: %[[MASK:.*]] = amp.compare ge, %[[ROW]], %[[COL]] : tensor<16x16xi64>, tensor<16x16xi64>
// CHECK: %[[SEL:.*]] = amp.select %[[MASK]], %{{.*}}, %{{.*}} : tensor<16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>
// CHECK: amp.compare ne, %{{.*}}, %{{.*}} : tensor<2x4x16x16xf32>, tensor<f32>
// CHECK: return %[[SEL]] : tensor<2x4x16x16xf32>
func.func @masking(%scores: tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32> {
  %row = amp.iota dim = 0 : tensor<16x16xi64>
  %col = amp.iota dim = 1 : tensor<16x16xi64>
  %causal = amp.compare ge, %row, %col : tensor<16x16xi64>, tensor<16x16xi64>
  %ninf = amp.constant dense<0xFF800000> : tensor<f32>
  %masked = amp.select %causal, %scores, %ninf : tensor<16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>
  %ne = amp.compare ne, %scores, %ninf : tensor<2x4x16x16xf32>, tensor<f32>
  return %masked : tensor<2x4x16x16xf32>
}

// CHECK-LABEL: func.func @shapes
// CHECK: amp.reshape %{{.*}} : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
// CHECK: amp.transpose %{{.*}}, [0, 2, 1, 3] : tensor<2x16x4x16xf32> to tensor<2x4x16x16xf32>
// CHECK: amp.broadcast_to %{{.*}} : tensor<64xf32> to tensor<2x16x64xf32>
// CHECK: amp.slice %{{.*}} [0, 0, 16] to [2, 16, 48] : tensor<2x16x64xf32> to tensor<2x16x32xf32>
// CHECK: amp.concat %{{.*}}, %{{.*}} dim = 2 : tensor<2x16x64xf32>, tensor<2x16x32xf32> to tensor<2x16x96xf32>
// CHECK: amp.reshape %{{.*}} : tensor<2x3xi64> to tensor<6xi64>
// GENERIC: "amp.transpose"(%{{.*}}) <{permutation = array<i64: 0, 2, 1, 3>}>
func.func @shapes(%x: tensor<2x16x64xf32>, %b: tensor<64xf32>, %ids: tensor<2x3xi64>) {
  %0 = amp.reshape %x : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
  %1 = amp.transpose %0, [0, 2, 1, 3] : tensor<2x16x4x16xf32> to tensor<2x4x16x16xf32>
  %2 = amp.broadcast_to %b : tensor<64xf32> to tensor<2x16x64xf32>
  %3 = amp.slice %x [0, 0, 16] to [2, 16, 48] : tensor<2x16x64xf32> to tensor<2x16x32xf32>
  %4 = amp.concat %x, %3 dim = 2 : tensor<2x16x64xf32>, tensor<2x16x32xf32> to tensor<2x16x96xf32>
  %5 = amp.reshape %ids : tensor<2x3xi64> to tensor<6xi64>
  return
}

// CHECK-LABEL: func.func @contractions
// CHECK: amp.matmul %{{.*}}, %{{.*}} : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f16} : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf32>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {transpose_lhs} : tensor<784x64xf16>, tensor<784x256xf16> to tensor<64x256xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<2x4x16x8xf16>, tensor<2x4x32x8xf16> to tensor<2x4x16x32xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} : tensor<2x16x64xf16>, tensor<64x192xf16> to tensor<2x16x192xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} bias %{{.*}} : tensor<2x16x64xf16>, tensor<64x192xf16>, tensor<192xf16> to tensor<2x16x192xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} bias %{{.*}} {acc_type = f32, transpose_lhs} : tensor<784x64xf16>, tensor<784x256xf16>, tensor<256xf32> to tensor<64x256xf32>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} bias %{{.*}} {lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_lhs} : tensor<784x64xf16>, tensor<784x256xf16>, tensor<256xf32> to tensor<64x256xf32>
// CHECK: amp.matmul %{{.*}}, %{{.*}} scales %{{.*}} {fp8_scale_index = array<i64: 0, 1, 2>, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<64x784xf16>, tensor<784x256xf16> scales tensor<3xf32> to tensor<64x256xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} bias %{{.*}} scales %{{.*}} {fp8_scale_index = array<i64: 2, 0>, lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_lhs} : tensor<784x64xf16>, tensor<784x256xf16>, tensor<256xf32> scales tensor<3xf32> to tensor<64x256xf32>
// CHECK: amp.attention %{{.*}}, %{{.*}}, %{{.*}} causal : tensor<2x4x16x8xf16>, tensor<2x4x32x8xf16>, tensor<2x4x32x12xf16>
// CHECK: amp.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f64} : tensor<2x4x16x8xf16>, tensor<2x4x32x8xf16>, tensor<2x4x32x12xf16>
// GENERIC: "amp.matmul"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, transpose_rhs}> : (tensor<2x4x16x8xf16>, tensor<2x4x32x8xf16>) -> tensor<2x4x16x32xf16>
// GENERIC: "amp.matmul"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<2x16x64xf16>, tensor<64x192xf16>, tensor<192xf16>) -> tensor<2x16x192xf16>
// GENERIC: "amp.matmul"(%{{.*}}, %{{.*}}) <{acc_type = f32, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, operandSegmentSizes = array<i32: 1, 1, 0, 0>, rhs_fp8 = f8E4M3FN}> : (tensor<64x784xf16>, tensor<784x256xf16>) -> tensor<64x256xf16>
// GENERIC: "amp.matmul"(%{{.*}}, %{{.*}}, %{{.*}}) <{fp8_scale_index = array<i64: 0, 1, 2>, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, operandSegmentSizes = array<i32: 1, 1, 0, 1>, rhs_fp8 = f8E4M3FN}> : (tensor<64x784xf16>, tensor<784x256xf16>, tensor<3xf32>) -> tensor<64x256xf16>
// GENERIC: "amp.attention"(%{{.*}}, %{{.*}}, %{{.*}}) <{causal}> : (tensor<2x4x16x8xf16>, tensor<2x4x32x8xf16>, tensor<2x4x32x12xf16>) -> tensor<2x4x16x12xf16>
// CHECK: %[[OUT:.*]], %[[LSE:.*]] = amp.attention %{{.*}}, %{{.*}}, %{{.*}} causal with_lse : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x12xf16>
// CHECK: amp.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %[[OUT]], %[[LSE]], %{{.*}} causal : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x12xf16>, tensor<2x4x16x12xf16>, tensor<2x4x16xf32>, tensor<2x4x16x12xf16>
// CHECK: amp.attention_grad {{.*}} {scale = 5.000000e-01 : f64} : tensor<1x2x3x4xf64>, tensor<1x2x5x4xf64>, tensor<1x2x5x3xf64>, tensor<1x2x3x3xf64>, tensor<1x2x3xf64>, tensor<1x2x3x3xf64>
// GENERIC: "amp.attention"(%{{.*}}, %{{.*}}, %{{.*}}) <{causal, with_lse}> : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x12xf16>) -> (tensor<2x4x16x12xf16>, tensor<2x4x16xf32>)
// GENERIC: "amp.attention_grad"({{.*}}) <{causal}> : ({{.*}}) -> (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x12xf16>)
// GENERIC: "amp.attention_grad"({{.*}}) <{scale = 5.000000e-01 : f64}> : ({{.*}}) -> (tensor<1x2x3x4xf64>, tensor<1x2x5x4xf64>, tensor<1x2x5x3xf64>)
func.func @contractions(%x: tensor<64x784xf16>, %xt: tensor<784x64xf16>, %w: tensor<784x256xf16>,
                        %q: tensor<2x4x16x8xf16>, %k: tensor<2x4x32x8xf16>, %v: tensor<2x4x32x12xf16>,
                        %act: tensor<2x16x64xf16>, %wqkv: tensor<64x192xf16>,
                        %bqkv: tensor<192xf16>, %b: tensor<256xf32>,
                        %s: tensor<3xf32>) {
  %0 = amp.matmul %x, %w : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf16>
  %1 = amp.matmul %x, %w {acc_type = f16} : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf16>
  %2 = amp.matmul %x, %w : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf32>
  %3 = amp.matmul %xt, %w {transpose_lhs} : tensor<784x64xf16>, tensor<784x256xf16> to tensor<64x256xf16>
  %4 = amp.matmul %q, %k {transpose_rhs} : tensor<2x4x16x8xf16>, tensor<2x4x32x8xf16> to tensor<2x4x16x32xf16>
  %5 = amp.matmul %act, %wqkv : tensor<2x16x64xf16>, tensor<64x192xf16> to tensor<2x16x192xf16>
  %8 = amp.matmul %act, %wqkv bias %bqkv : tensor<2x16x64xf16>, tensor<64x192xf16>, tensor<192xf16> to tensor<2x16x192xf16>
  %9 = amp.matmul %xt, %w bias %b {transpose_lhs, acc_type = f32} : tensor<784x64xf16>, tensor<784x256xf16>, tensor<256xf32> to tensor<64x256xf32>
  %10 = amp.matmul %x, %w {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2} : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf16>
  %11 = amp.matmul %xt, %w bias %b {lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_lhs} : tensor<784x64xf16>, tensor<784x256xf16>, tensor<256xf32> to tensor<64x256xf32>
  %12 = amp.matmul %x, %w scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>} : tensor<64x784xf16>, tensor<784x256xf16> scales tensor<3xf32> to tensor<64x256xf16>
  %13 = amp.matmul %xt, %w bias %b scales %s {lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_lhs, fp8_scale_index = array<i64: 2, 0>} : tensor<784x64xf16>, tensor<784x256xf16>, tensor<256xf32> scales tensor<3xf32> to tensor<64x256xf32>
  %6 = amp.attention %q, %k, %v causal : tensor<2x4x16x8xf16>, tensor<2x4x32x8xf16>, tensor<2x4x32x12xf16>
  %7 = amp.attention %q, %k, %v {scale = 0.125} : tensor<2x4x16x8xf16>, tensor<2x4x32x8xf16>, tensor<2x4x32x12xf16>
  return
}

func.func @attention_backward(%q: tensor<2x4x16x8xf16>, %v: tensor<2x4x16x12xf16>,
                              %do: tensor<2x4x16x12xf16>,
                              %q64: tensor<1x2x3x4xf64>, %k64: tensor<1x2x5x4xf64>,
                              %v64: tensor<1x2x5x3xf64>, %o64: tensor<1x2x3x3xf64>,
                              %lse64: tensor<1x2x3xf64>) {
  %o, %lse = amp.attention %q, %q, %v causal with_lse : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x12xf16>
  %dq, %dk, %dv = amp.attention_grad %q, %q, %v, %o, %lse, %do causal : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x12xf16>, tensor<2x4x16x12xf16>, tensor<2x4x16xf32>, tensor<2x4x16x12xf16>
  %dq64, %dk64, %dv64 = amp.attention_grad %q64, %k64, %v64, %o64, %lse64, %o64 {scale = 0.5} : tensor<1x2x3x4xf64>, tensor<1x2x5x4xf64>, tensor<1x2x5x3xf64>, tensor<1x2x3x3xf64>, tensor<1x2x3xf64>, tensor<1x2x3x3xf64>
  return
}

// CHECK-LABEL: func.func @reductions
// CHECK: amp.sum %{{.*}} dims = [1] : tensor<64x10xf16> to tensor<64xf16>
// CHECK: amp.sum %{{.*}} dims = [0, 1] {acc_type = f64} : tensor<64x10xf16> to tensor<f16>
// CHECK: amp.mean %{{.*}} dims = [1] keepdims : tensor<64x10xf16> to tensor<64x1xf32>
// CHECK: amp.max %{{.*}} dims = [1, 0] keepdims : tensor<64x10xf16> to tensor<1x1xf16>
// GENERIC: "amp.mean"(%{{.*}}) <{dims = array<i64: 1>, keepdims}> : (tensor<64x10xf16>) -> tensor<64x1xf32>
func.func @reductions(%x: tensor<64x10xf16>) {
  %0 = amp.sum %x dims = [1] : tensor<64x10xf16> to tensor<64xf16>
  %1 = amp.sum %x dims = [0, 1] {acc_type = f64} : tensor<64x10xf16> to tensor<f16>
  %2 = amp.mean %x dims = [1] keepdims : tensor<64x10xf16> to tensor<64x1xf32>
  %3 = amp.max %x dims = [1, 0] keepdims : tensor<64x10xf16> to tensor<1x1xf16>
  return
}

// CHECK-LABEL: func.func @normalization
// CHECK: amp.softmax %{{.*}} dim = 2 : tensor<2x16x64xf32>
// CHECK: amp.log_softmax %{{.*}} dim = 0 : tensor<2x16x64xf32>
// CHECK: amp.layer_norm %{{.*}} scale(%{{.*}} : tensor<64xf32>) bias(%{{.*}} : tensor<64xf32>) : tensor<2x16x64xf32>
// CHECK: amp.layer_norm %{{.*}} bias(%{{.*}} : tensor<64xf32>) {epsilon = 1.000000e-03 : f64} : tensor<2x16x64xf16>
// CHECK: amp.layer_norm %{{.*}} {axis = 1 : i64} : tensor<2x16x64xf32>
// CHECK: amp.layer_norm %{{.*}} scale(%{{.*}} : tensor<16x64xf32>) {axis = 1 : i64} : tensor<2x16x64xf32>
// CHECK: amp.rms_norm %{{.*}} scale(%{{.*}} : tensor<64xf32>) : tensor<2x16x64xf32>
// CHECK: amp.rms_norm %{{.*}} {epsilon = 1.000000e-05 : f64} : tensor<2x16x64xf16>
// GENERIC: "amp.layer_norm"(%{{.*}}, %{{.*}}) <{epsilon = 1.000000e-03 : f64, operandSegmentSizes = array<i32: 1, 0, 1>}>
func.func @normalization(%x: tensor<2x16x64xf32>, %h: tensor<2x16x64xf16>, %g: tensor<64xf32>,
                         %b: tensor<64xf32>, %g2: tensor<16x64xf32>) {
  %0 = amp.softmax %x dim = 2 : tensor<2x16x64xf32>
  %1 = amp.log_softmax %x dim = 0 : tensor<2x16x64xf32>
  %2 = amp.layer_norm %x scale(%g : tensor<64xf32>) bias(%b : tensor<64xf32>) : tensor<2x16x64xf32>
  %3 = amp.layer_norm %h bias(%b : tensor<64xf32>) {epsilon = 1.0e-3} : tensor<2x16x64xf16>
  %4 = amp.layer_norm %x {axis = 1} : tensor<2x16x64xf32>
  %5 = amp.layer_norm %x scale(%g2 : tensor<16x64xf32>) {axis = 1} : tensor<2x16x64xf32>
  %6 = amp.rms_norm %x scale(%g : tensor<64xf32>) : tensor<2x16x64xf32>
  %7 = amp.rms_norm %h {epsilon = 1.0e-5} : tensor<2x16x64xf16>
  return
}

// CHECK-LABEL: func.func @embedding
// CHECK: amp.embedding %{{.*}}[%{{.*}}] : tensor<96x64xbf16>, tensor<2x16xi64>
// CHECK: amp.embedding %{{.*}}[%{{.*}}] : tensor<96x64xbf16>, tensor<5xi32>
// GENERIC: "amp.embedding"(%{{.*}}, %{{.*}}) : (tensor<96x64xbf16>, tensor<2x16xi64>) -> tensor<2x16x64xbf16>
func.func @embedding(%wte: tensor<96x64xbf16>, %tokens: tensor<2x16xi64>, %ids: tensor<5xi32>) -> tensor<2x16x64xbf16> {
  %0 = amp.embedding %wte[%tokens] : tensor<96x64xbf16>, tensor<2x16xi64>
  %1 = amp.embedding %wte[%ids] : tensor<96x64xbf16>, tensor<5xi32>
  return %0 : tensor<2x16x64xbf16>
}

// CHECK-LABEL: func.func @losses
// CHECK: amp.cross_entropy %{{.*}}, %{{.*}} : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
// CHECK: amp.cross_entropy %{{.*}}, %{{.*}} reduction = sum : tensor<2x16x10xf16>, tensor<2x16xi32> to tensor<f32>
// CHECK: amp.mse_loss %{{.*}}, %{{.*}} : tensor<64x1xf32>, tensor<64x1xf32> to tensor<f32>
// CHECK: amp.mse_loss %{{.*}}, %{{.*}} reduction = sum : tensor<64x1xf32>, tensor<64x1xf32> to tensor<f64>
// CHECK: amp.cross_entropy %{{.*}}, %{{.*}} ignore_index = -100 : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
// CHECK: amp.cross_entropy %{{.*}}, %{{.*}} reduction = sum ignore_index = 0 : tensor<2x16x10xf16>, tensor<2x16xi32> to tensor<f32>
// GENERIC: "amp.cross_entropy"(%{{.*}}, %{{.*}}) <{reduction = 1 : i32}> : (tensor<2x16x10xf16>, tensor<2x16xi32>) -> tensor<f32>
// GENERIC: "amp.cross_entropy"(%{{.*}}, %{{.*}}) <{ignore_index = -100 : i64, reduction = 0 : i32}> : (tensor<64x10xf32>, tensor<64xi64>) -> tensor<f32>
func.func @losses(%logits: tensor<64x10xf32>, %y: tensor<64xi64>, %seq: tensor<2x16x10xf16>,
                  %tok: tensor<2x16xi32>, %pred: tensor<64x1xf32>, %target: tensor<64x1xf32>) {
  %0 = amp.cross_entropy %logits, %y : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
  %1 = amp.cross_entropy %seq, %tok reduction = sum : tensor<2x16x10xf16>, tensor<2x16xi32> to tensor<f32>
  %2 = amp.mse_loss %pred, %target : tensor<64x1xf32>, tensor<64x1xf32> to tensor<f32>
  %3 = amp.mse_loss %pred, %target reduction = sum : tensor<64x1xf32>, tensor<64x1xf32> to tensor<f64>
  %4 = amp.cross_entropy %logits, %y ignore_index = -100 : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
  %5 = amp.cross_entropy %seq, %tok reduction = sum ignore_index = 0 : tensor<2x16x10xf16>, tensor<2x16xi32> to tensor<f32>
  return
}

// Parameters are marked with a unit attribute on the argument.
// CHECK-LABEL: func.func @params
// CHECK-SAME: tensor<4x3xf32> {amp.param}
// CHECK-SAME: tensor<3xbf16> {amp.param}
func.func @params(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xbf16> {amp.param}) {
  return
}

// An argument's name is a string attribute, kept through print and parse.
// CHECK-LABEL: func.func @names
// CHECK-SAME: tensor<4x3xf32> {amp.name = "w1", amp.param}
// CHECK-SAME: tensor<4x3xf32> {amp.name = "w1.exp_avg", amp.state}
// CHECK-SAME: tensor<2x4xf32>)
func.func @names(%w: tensor<4x3xf32> {amp.param, amp.name = "w1"}, %m: tensor<4x3xf32> {amp.state, amp.name = "w1.exp_avg"}, %x: tensor<2x4xf32>) {
  return
}

// The per-op precision override of amp-autocast is a discardable attribute.
// CHECK-LABEL: func.func @precision_override
// CHECK: amp.gelu %{{.*}} {amp.precision = f32} : tensor<2xf32>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {amp.precision = bf16} : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
func.func @precision_override(%x: tensor<2xf32>, %m: tensor<2x2xf32>) {
  %0 = amp.gelu %x {amp.precision = f32} : tensor<2xf32>
  %1 = amp.matmul %m, %m {amp.precision = bf16} : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  return
}

// A gradient taken inside a model: the value its region yields, then the
// value's gradient with respect to each input.
// CHECK-LABEL: func.func @grad
// CHECK: %{{.*}}:3 = amp.grad(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x3xf32>, %{{.*}}: tensor<3xf32>):
// CHECK: amp.yield %{{.*}} : tensor<f32>
// GENERIC: "amp.grad"(%{{.*}}, %{{.*}}) ({
func.func @grad(%x: tensor<4x3xf32>, %w: tensor<3xf32>) -> tensor<4x3xf32> {
  %0:3 = amp.grad (%x, %w) : (tensor<4x3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>) {
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<3xf32>):
    %m = amp.mul %a, %b : tensor<4x3xf32>, tensor<3xf32>
    %s = amp.sum %m dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  return %0#1 : tensor<4x3xf32>
}

// A norm's statistics, which amp-fuse computes in a norm's row kernel.
// CHECK-LABEL: func.func @norm_stats
// CHECK: amp.norm_stats %{{.*}} {centered, epsilon = 1.000000e-05 : f64} : tensor<2x3x4xf32> to tensor<2x3x1xf32>, tensor<2x3x1xf32>
// CHECK: amp.norm_stats %{{.*}} {axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64} : tensor<2x3x4xf64> to tensor<2x1x1xf64>, tensor<2x1x1xf64>
// GENERIC: "amp.norm_stats"(%{{.*}}) <{centered, epsilon = 1.000000e-05 : f64}> : (tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x1xf32>)
func.func @norm_stats(%x: tensor<2x3x4xf32>, %d: tensor<2x3x4xf64>) {
  %0:2 = amp.norm_stats %x {centered, epsilon = 1.0e-5} : tensor<2x3x4xf32> to tensor<2x3x1xf32>, tensor<2x3x1xf32>
  %1:2 = amp.norm_stats %d {axis = 1, epsilon = 1.0e-6} : tensor<2x3x4xf64> to tensor<2x1x1xf64>, tensor<2x1x1xf64>
  return
}

// Gradient ops, emitted by amp-autodiff.
// CHECK-LABEL: func.func @gradients
// CHECK: amp.relu_grad %{{.*}}, %{{.*}} : tensor<4x8xf16>
// CHECK: amp.gelu_grad %{{.*}}, %{{.*}} approximate = tanh : tensor<4x8xf16>
// CHECK: amp.softmax_grad %{{.*}}, %{{.*}} dim = 1 : tensor<4x8xf16>
// CHECK: amp.log_softmax_grad %{{.*}}, %{{.*}} dim = 0 : tensor<4x8xf16>
// CHECK: amp.layer_norm_grad %{{.*}}, %{{.*}} {epsilon = 1.000000e-05 : f64} : tensor<4x8xf16>
// CHECK: amp.rms_norm_grad %{{.*}}, %{{.*}} {axis = 0 : i64, epsilon = 9.9999999999999995E-7 : f64} : tensor<4x8xf16>
// CHECK: amp.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} reduction = sum : tensor<4x8xf16>, tensor<4xi64>, tensor<f32>
// CHECK: amp.embedding_grad %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4x8xf16> to tensor<10x8xf16>
// CHECK: amp.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} ignore_index = -100 : tensor<4x8xf16>, tensor<4xi64>, tensor<f32>
// GENERIC: "amp.embedding_grad"(%{{.*}}, %{{.*}}) : (tensor<4xi64>, tensor<4x8xf16>) -> tensor<10x8xf16>
func.func @gradients(%x: tensor<4x8xf16>, %g: tensor<4x8xf16>, %ids: tensor<4xi64>, %dl: tensor<f32>) {
  %0 = amp.relu_grad %x, %g : tensor<4x8xf16>
  %1 = amp.gelu_grad %x, %g approximate = tanh : tensor<4x8xf16>
  %2 = amp.softmax_grad %x, %g dim = 1 : tensor<4x8xf16>
  %3 = amp.log_softmax_grad %x, %g dim = 0 : tensor<4x8xf16>
  %4 = amp.layer_norm_grad %x, %g {epsilon = 1.0e-5} : tensor<4x8xf16>
  %5 = amp.rms_norm_grad %x, %g {axis = 0, epsilon = 1.0e-6} : tensor<4x8xf16>
  %6 = amp.cross_entropy_grad %x, %ids, %dl reduction = sum : tensor<4x8xf16>, tensor<4xi64>, tensor<f32>
  %7 = amp.embedding_grad %ids, %g : tensor<4xi64>, tensor<4x8xf16> to tensor<10x8xf16>
  %8 = amp.cross_entropy_grad %x, %ids, %dl ignore_index = -100 : tensor<4x8xf16>, tensor<4xi64>, tensor<f32>
  return
}

// Optimizer updates, emitted by amp-optimizer.
// CHECK-LABEL: func.func @optimizers
// CHECK: amp.sgd_update %[[P:.*]], %[[G:.*]] lr(%[[LR:.*]]) weight_decay(%[[WD:.*]]) : tensor<8xf32>
// CHECK: amp.sgd_momentum_update %[[P]], %[[G]], %{{.*}}, %{{.*}} lr(%[[LR]]) momentum(%[[MU:.*]]) weight_decay(%[[WD]]) {dampening = 0.000000e+00 : f64, nesterov} : tensor<8xf32>, tensor<f32>
// CHECK: amp.adamw_update %[[P]], %[[G]], %{{.*}}, %{{.*}}, %{{.*}} lr(%[[LR]]) betas(%[[MU]], %[[B2:.*]]) eps(%[[EPS:.*]]) weight_decay(%[[WD]]) : tensor<8xf32>, tensor<f32>
// CHECK: amp.adamw_update %[[P]], %[[G]], %{{.*}}, %{{.*}}, %{{.*}} lr(%[[LR]]) betas(%[[MU]], %[[B2]]) eps(%[[EPS]]) weight_decay(%[[WD]]) {coupled_decay} : tensor<8xf32>, tensor<f32>
func.func @optimizers(%p: tensor<8xf32> {amp.param}, %g: tensor<8xf32>, %b: tensor<8xf32> {amp.state}, %s: tensor<f32> {amp.state},
                      %lr: tensor<f64> {amp.state = 0.1, amp.hparam}, %mu: tensor<f64> {amp.state = 0.9, amp.hparam},
                      %b2: tensor<f64> {amp.state = 0.999, amp.hparam}, %eps: tensor<f64> {amp.state = 1.0e-8, amp.hparam},
                      %wd: tensor<f64> {amp.state = 0.0, amp.hparam}) {
  %0 = amp.sgd_update %p, %g lr(%lr) weight_decay(%wd) : tensor<8xf32>
  %1:2 = amp.sgd_momentum_update %p, %g, %b, %s lr(%lr) momentum(%mu) weight_decay(%wd) {dampening = 0.0, nesterov} : tensor<8xf32>, tensor<f32>
  %2:3 = amp.adamw_update %p, %g, %b, %b, %s lr(%lr) betas(%mu, %b2) eps(%eps) weight_decay(%wd) : tensor<8xf32>, tensor<f32>
  %3:3 = amp.adamw_update %p, %g, %b, %b, %s lr(%lr) betas(%mu, %b2) eps(%eps) weight_decay(%wd) {coupled_decay} : tensor<8xf32>, tensor<f32>
  return
}

// A part of the loss that a step reports: f32 state it overwrites.
// CHECK-LABEL: func.func @loss_part
// CHECK-SAME: tensor<f32> {amp.loss_part, amp.name = "ce", amp.state}
func.func @loss_part(%ce: tensor<f32> {amp.state, amp.loss_part, amp.name = "ce"}) -> tensor<f32> {
  return %ce : tensor<f32>
}

// Learning-rate schedules, emitted by amp-optimizer.
// CHECK-LABEL: func.func @schedules
// CHECK: amp.lr_schedule linear_warmup %arg0, %arg1(%arg2, %arg3) : tensor<f32>
// CHECK: amp.lr_schedule cosine %arg0, %arg1(%arg2, %arg3) : tensor<f32>
// CHECK: amp.lr_schedule step %arg0, %arg1(%arg2, %arg3) : tensor<f32>
// CHECK: amp.lr_schedule warmup_cosine %arg0, %arg1(%arg2, %arg3, %arg2, %arg3) : tensor<f32>
func.func @schedules(%lr: tensor<f64>, %step: tensor<f32>, %a: tensor<f64>, %b: tensor<f64>) {
  %0 = amp.lr_schedule linear_warmup %lr, %step (%a, %b) : tensor<f32>
  %1 = amp.lr_schedule cosine %lr, %step (%a, %b) : tensor<f32>
  %2 = amp.lr_schedule step %lr, %step (%a, %b) : tensor<f32>
  %3 = amp.lr_schedule warmup_cosine %lr, %step (%a, %b, %a, %b) : tensor<f32>
  return
}

// Data-parallel ops, emitted by amp-optimizer{data-parallel}: a bucket,
// one with the condition of gradient accumulation, the replica count.
// CHECK-LABEL: func.func @data_parallel
// CHECK: %{{.*}}:2 = amp.all_reduce sum %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<2x2xf32>
// CHECK: %{{.*}} = amp.all_reduce max %{{.*}} when %{{.*}} : tensor<f32>
// CHECK: %{{.*}} = amp.replica_count : tensor<f32>
// GENERIC: "amp.all_reduce"(%{{.*}}, %{{.*}}) <{kind = 0 : i32, operandSegmentSizes = array<i32: 2, 0>}> : (tensor<8xf32>, tensor<2x2xf32>) -> (tensor<8xf32>, tensor<2x2xf32>)
// GENERIC: "amp.all_reduce"(%{{.*}}, %{{.*}}) <{kind = 1 : i32, operandSegmentSizes = array<i32: 1, 1>}> : (tensor<f32>, tensor<i1>) -> tensor<f32>
// GENERIC: "amp.replica_count"() : () -> tensor<f32>
func.func @data_parallel(%g1: tensor<8xf32>, %g2: tensor<2x2xf32>, %found: tensor<f32>, %done: tensor<i1>) {
  %r:2 = amp.all_reduce sum %g1, %g2 : tensor<8xf32>, tensor<2x2xf32>
  %f = amp.all_reduce max %found when %done : tensor<f32>
  %n = amp.replica_count : tensor<f32>
  return
}

// ZeRO stage 1's ops, emitted by amp-optimizer{zero-stage=1}: a replica's
// part of a tensor, and a bucket of parts gathered.
// CHECK-LABEL: func.func @sharded_optimizer
// CHECK: %{{.*}} = amp.replica_shard %{{.*}} {replicas = 2 : i64} : tensor<4x3xf32> -> tensor<6xf32>
// CHECK: %{{.*}}:2 = amp.all_gather %{{.*}}, %{{.*}} {replicas = 2 : i64} : tensor<6xf16>, tensor<2xf32> -> tensor<4x3xf16>, tensor<3xf32>
// CHECK: %{{.*}} = amp.all_gather %{{.*}} else %{{.*}}(tensor<4x3xf16>) when %{{.*}} {replicas = 2 : i64} : tensor<6xf16> -> tensor<4x3xf16>
// GENERIC: "amp.replica_shard"(%{{.*}}) <{replicas = 2 : i64}> : (tensor<4x3xf32>) -> tensor<6xf32>
// GENERIC: "amp.all_gather"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 2, 0, 0>, replicas = 2 : i64}> : (tensor<6xf16>, tensor<2xf32>) -> (tensor<4x3xf16>, tensor<3xf32>)
// GENERIC: "amp.all_gather"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1>, replicas = 2 : i64}> : (tensor<6xf16>, tensor<4x3xf16>, tensor<i1>) -> tensor<4x3xf16>
func.func @sharded_optimizer(%w: tensor<4x3xf32>, %wp: tensor<6xf16>, %bp: tensor<2xf32>, %old: tensor<4x3xf16>, %done: tensor<i1>) {
  %part = amp.replica_shard %w {replicas = 2} : tensor<4x3xf32> -> tensor<6xf32>
  %whole:2 = amp.all_gather %wp, %bp {replicas = 2} : tensor<6xf16>, tensor<2xf32> -> tensor<4x3xf16>, tensor<3xf32>
  %kept = amp.all_gather %wp else %old(tensor<4x3xf16>) when %done {replicas = 2} : tensor<6xf16> -> tensor<4x3xf16>
  return
}

// Loss-scaling ops, emitted by amp-loss-scaling and amp-optimizer.
// CHECK-LABEL: func.func @loss_scaling
// CHECK: %{{.*}}:2, %{{.*}} = amp.unscale %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<8xf32>, tensor<2x2xf32>
// CHECK: amp.scaler_update %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {backoff_factor = 5.000000e-01 : f64, growth_factor = 2.000000e+00 : f64, growth_interval = 2000 : i64, hysteresis = 1 : i64, min_scale = 1.000000e+00 : f64} : tensor<f32>
// GENERIC: "amp.unscale"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<f32>, tensor<8xf32>, tensor<2x2xf32>) -> (tensor<8xf32>, tensor<2x2xf32>, tensor<f32>)
func.func @loss_scaling(%inv: tensor<f32>, %g1: tensor<8xf32>, %g2: tensor<2x2xf32>, %s: tensor<f32>) {
  %u:2, %found = amp.unscale %inv, %g1, %g2 : tensor<f32>, tensor<8xf32>, tensor<2x2xf32>
  %a, %b, %c = amp.scaler_update %s, %s, %s, %found {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, hysteresis = 1, min_scale = 1.0} : tensor<f32>
  return
}

// Delayed FP8 scaling: an amax, and the state's update (as amp-autodiff
// writes them for amp-autocast's fp8-scaling=delayed).
// CHECK-LABEL: func.func @fp8_scaling
// CHECK: %[[A:.*]] = amp.fp8_amax %{{.*}} : tensor<64x784xbf16>
// CHECK: %[[Q:.*]], %[[QT:.*]], %{{.*}} = amp.fp8_cast %{{.*}}, %{{.*}} {format = f8E4M3FN, fp8_scale_index = 1 : i64} : tensor<64x784xbf16>, tensor<3xf32> to tensor<64x784xf8E4M3FN>, tensor<784x64xf8E4M3FN>
// CHECK: amp.matmul %[[QT]], %[[QT]] scales %{{.*}} {fp8_scale_index = array<i64: 1, 1>, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, transpose_rhs} : tensor<784x64xf8E4M3FN>, tensor<784x64xf8E4M3FN> scales tensor<3xf32> to tensor<784x784xf32>
// CHECK: amp.fp8_scaling_update %{{.*}}, %{{.*}}, %{{.*}}, amax(%[[A]], %[[A]], %[[A]] : tensor<f32>, tensor<f32>, tensor<f32>) {formats = [f8E4M3FN, f8E4M3FN, f8E5M2], margin = 0.000000e+00 : f64} : tensor<3xf32>, tensor<16x3xf32>
// CHECK: amp.fp8_scaling_update %{{.*}}, %{{.*}}, %{{.*}}, amax(%[[A]] : tensor<f32>) {formats = [f8E5M2], margin = 1.000000e+00 : f64, most_recent} : tensor<1xf32>, tensor<1x1xf32>
// GENERIC: "amp.fp8_amax"(%{{.*}}) : (tensor<64x784xbf16>) -> tensor<f32>
// GENERIC: "amp.fp8_cast"(%{{.*}}, %{{.*}}) <{format = f8E4M3FN, fp8_scale_index = 1 : i64}> : (tensor<64x784xbf16>, tensor<3xf32>) -> (tensor<64x784xf8E4M3FN>, tensor<784x64xf8E4M3FN>, tensor<f32>)
func.func @fp8_scaling(%x: tensor<64x784xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>,
                       %s1: tensor<1xf32>, %h1: tensor<1x1xf32>) {
  %a = amp.fp8_amax %x : tensor<64x784xbf16>
  %q, %qt, %qa = amp.fp8_cast %x, %s {fp8_scale_index = 1 : i64, format = f8E4M3FN} : tensor<64x784xbf16>, tensor<3xf32> to tensor<64x784xf8E4M3FN>, tensor<784x64xf8E4M3FN>
  %p = amp.matmul %qt, %qt scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, transpose_rhs, fp8_scale_index = array<i64: 1, 1>} : tensor<784x64xf8E4M3FN>, tensor<784x64xf8E4M3FN> scales tensor<3xf32> to tensor<784x784xf32>
  %0:3 = amp.fp8_scaling_update %s, %h, %s, amax(%a, %a, %a : tensor<f32>, tensor<f32>, tensor<f32>) {formats = [f8E4M3FN, f8E4M3FN, f8E5M2], margin = 0.0} : tensor<3xf32>, tensor<16x3xf32>
  %1:3 = amp.fp8_scaling_update %s1, %h1, %s1, amax(%a : tensor<f32>) {formats = [f8E5M2], margin = 1.0, most_recent} : tensor<1xf32>, tensor<1x1xf32>
  return
}

// The multi-tensor sum of squares of gradient clipping, over tensors of
// any float type, and over none.
// CHECK-LABEL: func.func @sum_squares
// CHECK: amp.sum_squares %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<2x2xbf16>
// CHECK: amp.sum_squares{{$}}
// GENERIC: "amp.sum_squares"(%{{.*}}, %{{.*}}) : (tensor<8xf32>, tensor<2x2xbf16>) -> tensor<f32>
// GENERIC: "amp.sum_squares"() : () -> tensor<f32>
func.func @sum_squares(%g1: tensor<8xf32>, %g2: tensor<2x2xbf16>) -> (tensor<f32>, tensor<f32>) {
  %s = amp.sum_squares %g1, %g2 : tensor<8xf32>, tensor<2x2xbf16>
  %none = amp.sum_squares
  return %s, %none : tensor<f32>, tensor<f32>
}

// A kernel of a fused step: its kind and root (given by the parser when not
// written), its inputs bound to the region's arguments, the values it hands
// on yielded. No input and several results print too.
// CHECK-LABEL: func.func @fusion
// CHECK: %[[K:.*]]:2 = amp.fusion<loop, root = 1>(%[[A:.*]] = %arg0, %[[B:.*]] = %arg1) : (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
// CHECK-NEXT: %[[S:.*]] = amp.add %[[A]], %[[B]] : tensor<8x4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = amp.relu %[[S]] : tensor<8x4xf32>
// CHECK-NEXT: amp.yield %[[S]], %[[R]] : tensor<8x4xf32>, tensor<8x4xf32>
// CHECK: amp.fusion<loop, root = 0>() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
// CHECK: return %[[K]]#1
// GENERIC: "amp.fusion"(%{{.*}}, %{{.*}}) <{kernel = #amp.kernel<loop, root = 1>}> ({
// GENERIC-NEXT: ^bb0(%{{.*}}: tensor<8x4xf32>, %{{.*}}: tensor<4xf32>):
// GENERIC: "amp.yield"(%{{.*}}, %{{.*}}) : (tensor<8x4xf32>, tensor<8x4xf32>) -> ()
// GENERIC-NEXT: }) : (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>)
func.func @fusion(%x: tensor<8x4xf32>, %bias: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<f32>) {
  %k:2 = amp.fusion(%a = %x, %b = %bias) : (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    %s = amp.add %a, %b : tensor<8x4xf32>, tensor<4xf32>
    %r = amp.relu %s : tensor<8x4xf32>
    amp.yield %s, %r : tensor<8x4xf32>, tensor<8x4xf32>
  }
  %c = amp.fusion<loop, root = 0>() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %0 = amp.constant dense<1.0> : tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %k#1, %c : tensor<8x4xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @convolutions
// CHECK: amp.conv2d %{{.*}}, %{{.*}} bias %{{.*}} {padding = array<i64: 1, 1>} : tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf16> to tensor<8x16x32x32xf16>
// CHECK: amp.conv2d %{{.*}}, %{{.*}} {acc_type = f32, dilations = array<i64: 2, 1>, groups = 4 : i64, padding = array<i64: 1, 0, 2, 1>, strides = array<i64: 2, 2>} : tensor<8x16x32x32xf32>, tensor<16x4x3x3xf32> to tensor<8x16x16x16xf32>
// CHECK: amp.im2col %{{.*}} {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>} : tensor<8x3x32x32xf16> to tensor<8x27x1024xf16>
// CHECK: amp.col2im %{{.*}} {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>} : tensor<8x27x1024xf32> to tensor<8x3x32x32xf16>
// GENERIC: "amp.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) <{padding = array<i64: 1, 1>}> : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf16>) -> tensor<8x16x32x32xf16>
// GENERIC: "amp.im2col"(%{{.*}}) <{kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>}> : (tensor<8x3x32x32xf16>) -> tensor<8x27x1024xf16>
func.func @convolutions(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf16>, %b: tensor<16xf16>,
                        %x2: tensor<8x16x32x32xf32>, %w2: tensor<16x4x3x3xf32>,
                        %cols: tensor<8x27x1024xf32>) {
  %0 = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>}
      : tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf16> to tensor<8x16x32x32xf16>
  // (32 + 1 + 2 - 2 * (3 - 1) - 1) / 2 + 1 = 16 rows, (32 + 0 + 1 - (3 - 1) - 1) / 2 + 1
  // = 16 columns.
  %1 = amp.conv2d %x2, %w2 {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>,
                            dilations = array<i64: 2, 1>, groups = 4 : i64, acc_type = f32}
      : tensor<8x16x32x32xf32>, tensor<16x4x3x3xf32> to tensor<8x16x16x16xf32>
  %2 = amp.im2col %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>}
      : tensor<8x3x32x32xf16> to tensor<8x27x1024xf16>
  %3 = amp.col2im %cols {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>}
      : tensor<8x27x1024xf32> to tensor<8x3x32x32xf16>
  return
}

// CHECK-LABEL: func.func @pooling
// CHECK: amp.max_pool2d %{{.*}} {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<8x16x32x32xf16> to tensor<8x16x16x16xf16>
// CHECK: amp.max_pool2d %{{.*}} {kernel = array<i64: 2, 2>} : tensor<8x16x32x32xf16> to tensor<8x16x16x16xf16>
// CHECK: amp.max_pool2d_grad %{{.*}}, %{{.*}} {kernel = array<i64: 2, 2>} : tensor<8x16x32x32xf16>, tensor<8x16x16x16xf16> to tensor<8x16x32x32xf16>
// CHECK: amp.avg_pool2d %{{.*}} {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<8x16x32x32xf16> to tensor<8x16x16x16xf16>
// GENERIC: "amp.max_pool2d"(%{{.*}}) <{kernel = array<i64: 2, 2>}> : (tensor<8x16x32x32xf16>) -> tensor<8x16x16x16xf16>
func.func @pooling(%x: tensor<8x16x32x32xf16>, %dy: tensor<8x16x16x16xf16>) {
  %0 = amp.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<8x16x32x32xf16> to tensor<8x16x16x16xf16>
  // Strides default to the kernel, as PyTorch's.
  %1 = amp.max_pool2d %x {kernel = array<i64: 2, 2>} : tensor<8x16x32x32xf16> to tensor<8x16x16x16xf16>
  %2 = amp.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>}
      : tensor<8x16x32x32xf16>, tensor<8x16x16x16xf16> to tensor<8x16x32x32xf16>
  %3 = amp.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<8x16x32x32xf16> to tensor<8x16x16x16xf16>
  return
}

// CHECK-LABEL: func.func @batch_norm
// CHECK: amp.batch_norm %{{.*}} running(%{{.*}}, %{{.*}} : tensor<16xf32>) scale(%{{.*}} : tensor<16xf32>) bias(%{{.*}} : tensor<16xbf16>) {momentum = 2.000000e-01 : f64, training} : tensor<8x16x4x4xf16>
// CHECK: amp.batch_norm %{{.*}} running(%{{.*}}, %{{.*}} : tensor<16xf32>) {epsilon = 1.000000e-03 : f64} : tensor<8x16xf32>
// CHECK: amp.batch_norm %{{.*}} running(%{{.*}}, %{{.*}} : tensor<16xf64>) : tensor<2x16x1x1xf64>
// GENERIC: "amp.batch_norm"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-05 : f64, momentum = 2.000000e-01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, training}> : (tensor<8x16x4x4xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xbf16>) -> (tensor<8x16x4x4xf16>, tensor<16xf32>, tensor<16xf32>)
func.func @batch_norm(%x: tensor<8x16x4x4xf16>, %v: tensor<8x16xf32>,
                      %d: tensor<2x16x1x1xf64>, %rm: tensor<16xf32>,
                      %rv: tensor<16xf32>, %g: tensor<16xf32>,
                      %b: tensor<16xbf16>, %rm64: tensor<16xf64>) {
  %0:3 = amp.batch_norm %x running(%rm, %rv : tensor<16xf32>)
      scale(%g : tensor<16xf32>) bias(%b : tensor<16xbf16>)
      {momentum = 0.2, training} : tensor<8x16x4x4xf16>
  // Evaluation mode, without the affine parameters.
  %1:3 = amp.batch_norm %v running(%rm, %rv : tensor<16xf32>) {epsilon = 1.0e-3}
      : tensor<8x16xf32>
  // f64 activations keep f64 statistics.
  %2:3 = amp.batch_norm %d running(%rm64, %rm64 : tensor<16xf64>) : tensor<2x16x1x1xf64>
  return
}

// CHECK-LABEL: func.func @batch_norm_grad
// CHECK: amp.batch_norm_grad %{{.*}}, %{{.*}} running(%{{.*}}, %{{.*}} : tensor<16xf32>) scale(%{{.*}} : tensor<16xf32>) {training} : tensor<8x16x4x4xf16> -> tensor<16xf32>, tensor<16xbf16>
// CHECK: amp.batch_norm_grad %{{.*}}, %{{.*}} running(%{{.*}}, %{{.*}} : tensor<16xf32>) {epsilon = 1.000000e-03 : f64} : tensor<8x16xf32> -> tensor<16xf32>, tensor<16xf32>
// GENERIC: "amp.batch_norm_grad"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-05 : f64, training}> : (tensor<8x16x4x4xf16>, tensor<8x16x4x4xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf16>, tensor<16xf32>, tensor<16xbf16>)
func.func @batch_norm_grad(%x: tensor<8x16x4x4xf16>, %dy: tensor<8x16x4x4xf16>,
                           %v: tensor<8x16xf32>, %dv: tensor<8x16xf32>,
                           %rm: tensor<16xf32>, %rv: tensor<16xf32>,
                           %g: tensor<16xf32>) {
  // Training, with a scale; the bias's gradient in the bias's type.
  %0:3 = amp.batch_norm_grad %x, %dy running(%rm, %rv : tensor<16xf32>)
      scale(%g : tensor<16xf32>) {training}
      : tensor<8x16x4x4xf16> -> tensor<16xf32>, tensor<16xbf16>
  // Evaluation mode, without a scale.
  %1:3 = amp.batch_norm_grad %v, %dv running(%rm, %rv : tensor<16xf32>)
      {epsilon = 1.0e-3} : tensor<8x16xf32> -> tensor<16xf32>, tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: tensor<2xi64> {amp.rng}
// CHECK: amp.dropout %{{.*}}, %{{.*}} p = 1.000000e-01 stream = 0 training : tensor<16x64xf16>
// CHECK: amp.dropout %{{.*}}, %{{.*}} p = 5.000000e-01 stream = 4294967295 : tensor<8xf64>
// CHECK: amp.rng_advance %{{.*}} : tensor<2xi64>
// GENERIC: "amp.dropout"(%{{.*}}, %{{.*}}) <{p = 1.000000e-01 : f64, stream = 0 : i64, training}> : (tensor<16x64xf16>, tensor<2xi64>) -> tensor<16x64xf16>
// GENERIC: "amp.dropout"(%{{.*}}, %{{.*}}) <{p = 5.000000e-01 : f64, stream = 4294967295 : i64}> : (tensor<8xf64>, tensor<2xi64>) -> tensor<8xf64>
// GENERIC: "amp.rng_advance"(%{{.*}}) : (tensor<2xi64>) -> tensor<2xi64>
func.func @dropout(%x: tensor<16x64xf16>, %v: tensor<8xf64>,
                   %rng: tensor<2xi64> {amp.rng}) {
  %0 = amp.dropout %x, %rng p = 0.1 stream = 0 training : tensor<16x64xf16>
  // Evaluation mode: the identity.
  %1 = amp.dropout %v, %rng p = 0.5 stream = 4294967295 : tensor<8xf64>
  %2 = amp.rng_advance %rng : tensor<2xi64>
  return
}

// CHECK-LABEL: func.func @adaptive_avg_pool2d
// CHECK: amp.adaptive_avg_pool2d %{{.*}} output_size = [1, 1] : tensor<8x64x8x8xf16> to tensor<8x64x1x1xf16>
// CHECK: amp.adaptive_avg_pool2d %{{.*}} output_size = [3, 5] : tensor<2x3x5x7xf32> to tensor<2x3x3x5xf32>
// GENERIC: "amp.adaptive_avg_pool2d"(%{{.*}}) <{output_size = array<i64: 1, 1>}> : (tensor<8x64x8x8xf16>) -> tensor<8x64x1x1xf16>
func.func @adaptive_avg_pool2d(%x: tensor<8x64x8x8xf16>, %y: tensor<2x3x5x7xf32>) {
  %0 = amp.adaptive_avg_pool2d %x output_size = [1, 1] : tensor<8x64x8x8xf16> to tensor<8x64x1x1xf16>
  %1 = amp.adaptive_avg_pool2d %y output_size = [3, 5] : tensor<2x3x5x7xf32> to tensor<2x3x3x5xf32>
  return
}

// CHECK-LABEL: func.func @conv2d_grads
// CHECK: amp.conv2d_grad_input %{{.*}}, %{{.*}} {padding = array<i64: 1, 1>} : tensor<8x16x32x32xf16>, tensor<16x3x3x3xf16> to tensor<8x3x32x32xf16>
// CHECK: amp.conv2d_grad_weight %{{.*}}, %{{.*}} {acc_type = f32, groups = 16 : i64, strides = array<i64: 2, 2>} : tensor<8x16x32x32xf32>, tensor<8x16x15x15xf32> to tensor<16x1x3x3xf32>
// GENERIC: "amp.conv2d_grad_input"(%{{.*}}, %{{.*}}) <{padding = array<i64: 1, 1>}> : (tensor<8x16x32x32xf16>, tensor<16x3x3x3xf16>) -> tensor<8x3x32x32xf16>
func.func @conv2d_grads(%dy: tensor<8x16x32x32xf16>, %w: tensor<16x3x3x3xf16>,
                        %x: tensor<8x16x32x32xf32>, %dd: tensor<8x16x15x15xf32>) {
  %0 = amp.conv2d_grad_input %dy, %w {padding = array<i64: 1, 1>}
      : tensor<8x16x32x32xf16>, tensor<16x3x3x3xf16> to tensor<8x3x32x32xf16>
  // Depthwise, strided.
  %1 = amp.conv2d_grad_weight %x, %dd {strides = array<i64: 2, 2>, groups = 16 : i64, acc_type = f32}
      : tensor<8x16x32x32xf32>, tensor<8x16x15x15xf32> to tensor<16x1x3x3xf32>
  return
}
