// Whole-graph placement of promote/follow ops.
// RUN: amp-opt %s --amp-autocast -split-input-file | FileCheck %s

// Between two low ops, promote and follow ops stay low: no f16 -> f32 -> f16
// ping-pong. The f32 addend is cast once. (A rank-1 bias would be folded
// into the matmul: bias-fold.mlir.)
// CHECK-LABEL: func.func @between_low_ops
// CHECK: %[[H:.*]] = amp.matmul {{.*}} to tensor<4x8xf16>
// CHECK: %[[A:.*]] = amp.add %[[H]], %{{.*}} : tensor<4x8xf16>, tensor<4x8xf16>
// CHECK: %[[R:.*]] = amp.relu %[[A]] : tensor<4x8xf16>
// CHECK: %[[T:.*]] = amp.transpose %[[R]], [1, 0] : tensor<4x8xf16> to tensor<8x4xf16>
// CHECK: amp.matmul %[[T]], %{{.*}} {acc_type = f32, transpose_lhs}
func.func @between_low_ops(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %h = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %a = amp.add %h, %b : tensor<4x8xf32>, tensor<4x8xf32>
  %r = amp.relu %a : tensor<4x8xf32>
  %t = amp.transpose %r, [1, 0] : tensor<4x8xf32> to tensor<8x4xf32>
  %o = amp.matmul %t, %w {transpose_lhs} : tensor<8x4xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Keep-fp32 spreads forward through follow ops, even into a low op's input:
// the relu after the layer norm stays f32 and the cast sits in front of the
// matmul.
// CHECK-LABEL: func.func @keep_fp32_spreads
// CHECK: %[[N:.*]] = amp.layer_norm %{{.*}} : tensor<4x8xf32>
// CHECK: %[[R:.*]] = amp.relu %[[N]] : tensor<4x8xf32>
// CHECK: %[[RH:.*]] = amp.cast %[[R]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: amp.matmul %[[RH]], %{{.*}} {acc_type = f32}
func.func @keep_fp32_spreads(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %n = amp.layer_norm %x : tensor<4x8xf32>
  %r = amp.relu %n : tensor<4x8xf32>
  %o = amp.matmul %r, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Keep-fp32 wins over "between": an add fed by a low matmul and by a
// keep-fp32 op, feeding another matmul, computes in f32 (the residual
// stream stays f32).
// CHECK-LABEL: func.func @keep_fp32_beats_between
// CHECK: %[[H:.*]] = amp.matmul {{.*}} to tensor<4x8xf16>
// CHECK: %[[HF:.*]] = amp.cast %[[H]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: %[[E:.*]] = amp.exp
// CHECK: %[[S:.*]] = amp.add %[[HF]], %[[E]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: amp.cast %[[S]] : tensor<4x8xf32> to tensor<4x8xf16>
func.func @keep_fp32_beats_between(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %h = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %e = amp.exp %x : tensor<4x8xf32>
  %s = amp.add %h, %e : tensor<4x8xf32>, tensor<4x8xf32>
  %o = amp.matmul %s, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// A follow op after a low op that feeds only f32 consumers follows its
// input (low); the cast to f32 sits at the consumer.
// CHECK-LABEL: func.func @follow_then_keep_fp32
// CHECK: %[[H:.*]] = amp.matmul {{.*}} to tensor<4x8xf16>
// CHECK: %[[R:.*]] = amp.reshape %[[H]] : tensor<4x8xf16> to tensor<32xf16>
// CHECK: %[[RF:.*]] = amp.cast %[[R]] : tensor<32xf16> to tensor<32xf32>
// CHECK: amp.softmax %[[RF]] dim = 0 : tensor<32xf32>
func.func @follow_then_keep_fp32(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<32xf32> {
  %h = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %r = amp.reshape %h : tensor<4x8xf32> to tensor<32xf32>
  %s = amp.softmax %r dim = 0 : tensor<32xf32>
  return %s : tensor<32xf32>
}

// -----

// Ops with no float input from a low op keep their types; a graph without
// lower-precision ops is left unchanged.
// CHECK-LABEL: func.func @nothing_to_convert
// CHECK-NOT: amp.cast
// CHECK: amp.add %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
func.func @nothing_to_convert(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = amp.exp %x : tensor<4xf32>
  %s = amp.add %e, %x : tensor<4xf32>, tensor<4xf32>
  return %s : tensor<4xf32>
}
