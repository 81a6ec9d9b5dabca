// Folders and canonicalisation patterns. Every rewrite here is exact.
// RUN: amp-opt %s -canonicalize -split-input-file | FileCheck %s
// Folded constants once more as raw little-endian bits:
// RUN: amp-opt %s -canonicalize -split-input-file --mlir-print-elementsattrs-with-hex-if-larger=1 | FileCheck %s --check-prefix=BITS

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: return %[[X]]
func.func @cast_same_type(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// f16 -> f32 is exact, so the round trip is the identity.
// CHECK-LABEL: func.func @cast_round_trip_through_wider
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: return %[[X]]
func.func @cast_round_trip_through_wider(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// f32 -> f16 rounds: the pair is a quantisation and must stay.
// CHECK-LABEL: func.func @cast_round_trip_through_narrower
// CHECK: %[[H:.*]] = amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[F:.*]] = amp.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK: return %[[F]]
func.func @cast_round_trip_through_narrower(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = amp.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// f16 -> f32 -> bf16 equals f16 -> bf16: one cast, no chain.
// CHECK-LABEL: func.func @cast_chain_through_exact
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: %[[B:.*]] = amp.cast %[[X]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT: return %[[B]]
func.func @cast_chain_through_exact(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// f16 -> bf16 rounds (bf16 has 8 mantissa bits): the chain stays.
// CHECK-LABEL: func.func @cast_chain_through_inexact
// CHECK: amp.cast %{{.*}} : tensor<4xf16> to tensor<4xbf16>
// CHECK: amp.cast %{{.*}} : tensor<4xbf16> to tensor<4xf32>
func.func @cast_chain_through_inexact(%x: tensor<4xf16>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xbf16>
  %1 = amp.cast %0 : tensor<4xbf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A longer exact chain collapses completely.
// CHECK-LABEL: func.func @cast_long_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: %[[D:.*]] = amp.cast %[[X]] : tensor<4xbf16> to tensor<4xf64>
// CHECK-NEXT: return %[[D]]
func.func @cast_long_chain(%x: tensor<4xbf16>) -> tensor<4xf64> {
  %0 = amp.cast %x : tensor<4xbf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xf64>
  return %1 : tensor<4xf64>
}

// -----

// Constants convert with round-to-nearest-even, worked out by hand:
// 0.1 -> f16 0x2E66 (1.599609375 * 2^-4); 2049 lies halfway between the f16
// neighbours 2048 and 2050 and goes to the even mantissa, 2048; 65520 lies
// halfway between 65504 and 65536 and rounds to even, which overflows to inf;
// 1e-8 is below half the smallest f16 subnormal (2^-24 ~ 5.96e-8): zero.
// CHECK-LABEL: func.func @cast_constant
// CHECK-NEXT: %[[C:.*]] = amp.constant dense<[9.997550e-02, 2.048000e+03, 0x7C00, 0.000000e+00]> : tensor<4xf16>
// CHECK-NEXT: return %[[C]]
// BITS-LABEL: func.func @cast_constant
// BITS-NEXT: amp.constant dense<"0x662E0068007C0000"> : tensor<4xf16>
func.func @cast_constant() -> tensor<4xf16> {
  %c = amp.constant dense<[0.1, 2049.0, 65520.0, 1.0e-8]> : tensor<4xf32>
  %0 = amp.cast %c : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// 2^-24 is the smallest f16 subnormal (0x0001); 3 * 2^-25 lies halfway
// between 2^-24 (odd) and 2^-23 (even): it rounds to 0x0002.
// CHECK-LABEL: func.func @cast_constant_subnormal
// CHECK-NEXT: amp.constant dense<[5.960460e-08, 1.192090e-07]> : tensor<2xf16>
// BITS-LABEL: func.func @cast_constant_subnormal
// BITS-NEXT: amp.constant dense<"0x01000200"> : tensor<2xf16>
func.func @cast_constant_subnormal() -> tensor<2xf16> {
  %c = amp.constant dense<[5.9604644775390625E-8, 8.94069671630859375E-8]> : tensor<2xf32>
  %0 = amp.cast %c : tensor<2xf32> to tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.neg %x : tensor<4xf32>
  %1 = amp.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.reshape %x : tensor<2x3xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.*]] = amp.reshape %[[X]] : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = amp.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  %1 = amp.reshape %0 : tensor<6xf32> to tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_constant
// CHECK-NEXT: amp.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
func.func @reshape_constant() -> tensor<3x2xi64> {
  %c = amp.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = amp.reshape %c : tensor<2x3xi64> to tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.transpose %x, [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The transpose back from attention heads undoes the transpose in.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32> {
  %0 = amp.transpose %x, [0, 2, 1, 3] : tensor<2x16x4x8xf32> to tensor<2x4x16x8xf32>
  %1 = amp.transpose %0, [0, 2, 1, 3] : tensor<2x4x16x8xf32> to tensor<2x16x4x8xf32>
  return %1 : tensor<2x16x4x8xf32>
}

// -----

// [1, 2, 0] after [1, 2, 0]: result dim i is input dim p[p[i]] = [2, 0, 1].
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5xf32>)
// CHECK-NEXT: %[[T:.*]] = amp.transpose %[[X]], [2, 0, 1] : tensor<2x3x5xf32> to tensor<5x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x5xf32>) -> tensor<5x2x3xf32> {
  %0 = amp.transpose %x, [1, 2, 0] : tensor<2x3x5xf32> to tensor<3x5x2xf32>
  %1 = amp.transpose %0, [1, 2, 0] : tensor<3x5x2xf32> to tensor<5x2x3xf32>
  return %1 : tensor<5x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.broadcast_to %x : tensor<2x3xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.*]] = amp.constant dense<2.500000e+00> : tensor<4x3xbf16>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_splat() -> tensor<4x3xbf16> {
  %c = amp.constant dense<2.5> : tensor<3xbf16>
  %0 = amp.broadcast_to %c : tensor<3xbf16> to tensor<4x3xbf16>
  return %0 : tensor<4x3xbf16>
}

// -----

// CHECK-LABEL: func.func @slice_full
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @slice_full(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.slice %x [0, 0] to [2, 3] : tensor<2x3xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Ops that round or compute are left alone.
// CHECK-LABEL: func.func @no_folding
// CHECK: amp.slice
// CHECK: amp.relu
// CHECK: amp.neg
func.func @no_folding(%x: tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<2x3xf32>) {
  %0 = amp.slice %x [1, 0] to [2, 3] : tensor<2x3xf32> to tensor<1x3xf32>
  %1 = amp.relu %x : tensor<2x3xf32>
  %2 = amp.neg %1 : tensor<2x3xf32>
  return %0, %2 : tensor<1x3xf32>, tensor<2x3xf32>
}

// -----

// Cross-entropy computes in f32 for f16, bf16 and f32 logits: it reads the
// narrow logits instead of their f32 copy, and its gradient, rounded to the
// logits' type right after, is computed on them in that type.
// canonicalize-numerics.test checks that the values are unchanged.
// CHECK-LABEL: func.func @cross_entropy_narrow_logits
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>, %[[Y:.*]]: tensor<4xi64>, %[[G:.*]]: tensor<f32>)
// CHECK-NOT: amp.cast
// CHECK: %[[L:.*]] = amp.cross_entropy %[[X]], %[[Y]] ignore_index = 0 : tensor<4x8xbf16>, tensor<4xi64> to tensor<f32>
// CHECK: %[[D:.*]] = amp.cross_entropy_grad %[[X]], %[[Y]], %[[G]] reduction = sum ignore_index = 0 : tensor<4x8xbf16>, tensor<4xi64>, tensor<f32>
// CHECK: return %[[L]], %[[D]]
func.func @cross_entropy_narrow_logits(%x: tensor<4x8xbf16>, %y: tensor<4xi64>, %g: tensor<f32>) -> (tensor<f32>, tensor<4x8xbf16>) {
  %w = amp.cast %x : tensor<4x8xbf16> to tensor<4x8xf32>
  %l = amp.cross_entropy %w, %y ignore_index = 0 : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
  %d = amp.cross_entropy_grad %w, %y, %g reduction = sum ignore_index = 0 : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
  %n = amp.cast %d : tensor<4x8xf32> to tensor<4x8xbf16>
  return %l, %n : tensor<f32>, tensor<4x8xbf16>
}

// -----

// The f32 gradient is returned as well: it stays f32, on the f32 copy.
// CHECK-LABEL: func.func @cross_entropy_grad_also_wide
// CHECK: %[[W:.*]] = amp.cast %{{.*}} : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: amp.cross_entropy %{{.*}}, %{{.*}} : tensor<4x8xf16>
// CHECK: %[[D:.*]] = amp.cross_entropy_grad %[[W]], %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK: %[[N:.*]] = amp.cast %[[D]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: return %{{.*}}, %[[N]], %[[D]]
func.func @cross_entropy_grad_also_wide(%x: tensor<4x8xf16>, %y: tensor<4xi64>, %g: tensor<f32>) -> (tensor<f32>, tensor<4x8xf16>, tensor<4x8xf32>) {
  %w = amp.cast %x : tensor<4x8xf16> to tensor<4x8xf32>
  %l = amp.cross_entropy %w, %y : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
  %d = amp.cross_entropy_grad %w, %y, %g : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
  %n = amp.cast %d : tensor<4x8xf32> to tensor<4x8xf16>
  return %l, %n, %d : tensor<f32>, tensor<4x8xf16>, tensor<4x8xf32>
}

// -----

// f32 logits widened to f64 compute in f64: the cast stays.
// CHECK-LABEL: func.func @cross_entropy_f64_copy
// CHECK: %[[W:.*]] = amp.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xf64>
// CHECK: amp.cross_entropy %[[W]]
func.func @cross_entropy_f64_copy(%x: tensor<4x8xf32>, %y: tensor<4xi64>) -> tensor<f64> {
  %w = amp.cast %x : tensor<4x8xf32> to tensor<4x8xf64>
  %l = amp.cross_entropy %w, %y : tensor<4x8xf64>, tensor<4xi64> to tensor<f64>
  return %l : tensor<f64>
}

// -----

// A choice between a value and itself is the value (a buffer that no op
// updates, kept on a skipped step); not where the condition broadcasts it
// wider.
// CHECK-LABEL: func.func @select_same
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<2x4xi1>)
// CHECK: %[[WIDE:.*]] = amp.select %[[W]], %[[X]], %[[X]]
// CHECK: return %[[X]], %[[WIDE]]
func.func @select_same(%c: tensor<4xi1>, %x: tensor<4xf32>, %w: tensor<2x4xi1>) -> (tensor<4xf32>, tensor<2x4xf32>) {
  %0 = amp.select %c, %x, %x : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %1 = amp.select %w, %x, %x : tensor<2x4xi1>, tensor<4xf32>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<2x4xf32>
}
