// amp-fp8-casts: the FP8 GEMMs of delayed scaling share one cast per
// tensor (the weight for the forward and the input gradient, the
// activations for the forward and the weight gradient, the output's
// gradient for both backward GEMMs), which takes its amax; each GEMM reads
// its operands K-major. An activation with batch dimensions is cast as its
// rows, shared with the weight gradient's reshape of it.
// RUN: amp-opt %s --amp-fp8-casts | FileCheck %s

// CHECK-LABEL: func.func @layer
// CHECK-SAME: (%[[X:[a-z0-9]*]]: tensor<2x16x32xbf16>, %[[W:[a-z0-9]*]]: tensor<32x48xbf16>, %[[G:[a-z0-9]*]]: tensor<32x48xbf16>, %[[S:[a-z0-9]*]]: tensor<3xf32>
// CHECK-DAG: %[[XR:.*]] = amp.reshape %[[X]] : tensor<2x16x32xbf16> to tensor<32x32xbf16>
// CHECK-DAG: %[[QX:.*]], %[[QXT:.*]], %[[AX:.*]] = amp.fp8_cast %[[XR]], %[[S]] {format = f8E4M3FN, fp8_scale_index = 0 : i64} : tensor<32x32xbf16>, tensor<3xf32> to tensor<32x32xf8E4M3FN>, tensor<32x32xf8E4M3FN>
// CHECK-DAG: %[[QW:.*]], %[[QWT:.*]], %[[AW:.*]] = amp.fp8_cast %[[W]], %[[S]] {format = f8E4M3FN, fp8_scale_index = 1 : i64} : tensor<32x48xbf16>, tensor<3xf32> to tensor<32x48xf8E4M3FN>, tensor<48x32xf8E4M3FN>
// CHECK-DAG: %[[QG:.*]], %[[QGT:.*]], %[[AG:.*]] = amp.fp8_cast %[[G]], %[[S]] {format = f8E5M2, fp8_scale_index = 2 : i64} : tensor<32x48xbf16>, tensor<3xf32> to tensor<32x48xf8E5M2>, tensor<48x32xf8E5M2>
// The forward GEMM: the rows of x by w^T, its result reshaped back.
// CHECK: %[[Y:.*]] = amp.matmul %[[QX]], %[[QWT]] scales %[[S]] {acc_type = f32, fp8_scale_index = array<i64: 0, 1>, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, transpose_rhs} : tensor<32x32xf8E4M3FN>, tensor<48x32xf8E4M3FN> scales tensor<3xf32> to tensor<32x48xbf16>
// CHECK: amp.reshape %[[Y]] : tensor<32x48xbf16> to tensor<2x16x48xbf16>
// dx = g w^T: g as it is, w (w^T's transpose, K-major).
// CHECK: amp.matmul %[[QG]], %[[QW]] scales %[[S]] {acc_type = f32, fp8_scale_index = array<i64: 2, 1>, lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_rhs}
// dw = x^T g: the transposes of both.
// CHECK: amp.matmul %[[QXT]], %[[QGT]] scales %[[S]] {acc_type = f32, fp8_scale_index = array<i64: 0, 2>, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E5M2, transpose_rhs}
// The amaxes are the casts'.
// CHECK-NOT: amp.fp8_amax
// CHECK: amp.fp8_scaling_update %[[S]], %{{.*}}, %{{.*}}, amax(%[[AX]], %[[AW]], %[[AG]] : tensor<f32>, tensor<f32>, tensor<f32>)
func.func @layer(%x: tensor<2x16x32xbf16>, %w: tensor<32x48xbf16>, %g: tensor<32x48xbf16>,
                 %s: tensor<3xf32>, %h: tensor<8x3xf32>, %o: tensor<3xf32>)
    -> (tensor<2x16x48xbf16>, tensor<32x32xbf16>, tensor<32x48xbf16>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>) {
  %y = amp.matmul %x, %w scales %s {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>} : tensor<2x16x32xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<2x16x48xbf16>
  %ax = amp.fp8_amax %x : tensor<2x16x32xbf16>
  %aw = amp.fp8_amax %w : tensor<32x48xbf16>
  %ag = amp.fp8_amax %g : tensor<32x48xbf16>
  %dx = amp.matmul %g, %w scales %s {acc_type = f32, lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_rhs, fp8_scale_index = array<i64: 2, 1>} : tensor<32x48xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<32x32xbf16>
  %xr = amp.reshape %x : tensor<2x16x32xbf16> to tensor<32x32xbf16>
  %dw = amp.matmul %xr, %g scales %s {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E5M2, transpose_lhs, fp8_scale_index = array<i64: 0, 2>} : tensor<32x32xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<32x48xbf16>
  %ns, %nh, %no = amp.fp8_scaling_update %s, %h, %o, amax(%ax, %aw, %ag : tensor<f32>, tensor<f32>, tensor<f32>) {formats = [f8E4M3FN, f8E4M3FN, f8E5M2], margin = 0.0} : tensor<3xf32>, tensor<8x3xf32>
  return %y, %dx, %dw, %ns, %nh, %no : tensor<2x16x48xbf16>, tensor<32x32xbf16>, tensor<32x48xbf16>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>
}

// Current scaling (no scales) and products of batched operands are left
// as they are.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: amp.fp8_cast
// CHECK: amp.matmul %{{.*}}, %{{.*}} {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN}
// CHECK: amp.matmul %{{.*}}, %{{.*}} scales
func.func @untouched(%x: tensor<32x32xbf16>, %a: tensor<2x32x32xbf16>, %s: tensor<2xf32>)
    -> (tensor<32x32xbf16>, tensor<2x32x32xbf16>) {
  %y = amp.matmul %x, %x {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<32x32xbf16>, tensor<32x32xbf16> to tensor<32x32xbf16>
  %z = amp.matmul %a, %a scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, fp8_scale_index = array<i64: 0, 1>} : tensor<2x32x32xbf16>, tensor<2x32x32xbf16> scales tensor<2xf32> to tensor<2x32x32xbf16>
  return %y, %z : tensor<32x32xbf16>, tensor<2x32x32xbf16>
}
