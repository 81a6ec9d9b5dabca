// The backward GEMMs of an FP8 GEMM: with grad_fp8, each reads the
// gradient in grad_fp8 and the other operand in its forward format; without
// it they are not FP8.
// RUN: amp-opt %s --amp-autodiff -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @linear_grad
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<16x32xbf16>, tensor<32x48xbf16>
// dx = g w^T: the gradient e5m2, the weight e4m3.
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_rhs} : tensor<16x48xbf16>, tensor<32x48xbf16> to tensor<16x32xbf16>
// dw = x^T g: the input e4m3, the gradient e5m2.
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E5M2, transpose_lhs} : tensor<16x32xbf16>, tensor<16x48xbf16> to tensor<32x48xbf16>
func.func @linear(%x: tensor<16x32xbf16> {amp.param}, %w: tensor<32x48xbf16> {amp.param}) -> tensor<f32> {
  %y = amp.matmul %x, %w {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2} : tensor<16x32xbf16>, tensor<32x48xbf16> to tensor<16x48xbf16>
  %f = amp.cast %y : tensor<16x48xbf16> to tensor<16x48xf32>
  %l = amp.sum %f dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// A 3-D activation times a 2-D weight: the weight's gradient is one GEMM
// over the rows of every batch, its operands reshaped, their formats kept.
// Transposed operands keep theirs too.
// CHECK-LABEL: func.func @batched_grad
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN} : tensor<2x16x48xbf16>, tensor<48x32xbf16> to tensor<2x16x32xbf16>
// CHECK: amp.reshape %{{.*}} : tensor<2x16x32xbf16> to tensor<32x32xbf16>
// CHECK: amp.reshape %{{.*}} : tensor<2x16x48xbf16> to tensor<32x48xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_lhs} : tensor<32x48xbf16>, tensor<32x32xbf16> to tensor<48x32xbf16>
func.func @batched(%x: tensor<2x16x32xbf16> {amp.param}, %w: tensor<48x32xbf16> {amp.param}) -> tensor<f32> {
  %y = amp.matmul %x, %w {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, transpose_rhs} : tensor<2x16x32xbf16>, tensor<48x32xbf16> to tensor<2x16x48xbf16>
  %f = amp.cast %y : tensor<2x16x48xbf16> to tensor<2x16x48xf32>
  %l = amp.sum %f dims = [0, 1, 2] : tensor<2x16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// No grad_fp8: the forward is FP8, the backward GEMMs are not.
// CHECK-LABEL: func.func @forward_only_grad
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, transpose_rhs} : tensor<16x48xbf16>, tensor<32x48xbf16> to tensor<16x32xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, transpose_lhs} : tensor<16x32xbf16>, tensor<16x48xbf16> to tensor<32x48xbf16>
func.func @forward_only(%x: tensor<16x32xbf16> {amp.param}, %w: tensor<32x48xbf16> {amp.param}) -> tensor<f32> {
  %y = amp.matmul %x, %w {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<16x32xbf16>, tensor<32x48xbf16> to tensor<16x48xbf16>
  %f = amp.cast %y : tensor<16x48xbf16> to tensor<16x48xf32>
  %l = amp.sum %f dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}
