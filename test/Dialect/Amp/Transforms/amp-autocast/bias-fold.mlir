// A bias add after a low-precision matmul joins the matmul, which adds the
// bias in its f32 accumulator and rounds once (as F.linear does) instead of
// rounding the product and then the sum.
// RUN: amp-opt %s --amp-autocast -split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-autocast="deny=amp.add" -split-input-file | FileCheck %s --check-prefix=DENY
// RUN: amp-opt %s --amp-autocast=remarks=true -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// The add is low: the bias is cast to f16 and read by the matmul; the relu
// reads the matmul. Either operand order folds.
// CHECK-LABEL: func.func @low_add
// CHECK: %[[B:.*]] = amp.cast %{{.*}} : tensor<8xf32> to tensor<8xf16>
// CHECK: %[[M:.*]] = amp.matmul %{{.*}}, %{{.*}} bias %[[B]] {acc_type = f32} : tensor<4x8xf16>, tensor<8x8xf16>, tensor<8xf16> to tensor<4x8xf16>
// CHECK-NEXT: %[[R:.*]] = amp.relu %[[M]] : tensor<4x8xf16>
// CHECK: %[[M2:.*]] = amp.matmul %[[R]], %{{.*}} bias %[[B]] {acc_type = f32} : tensor<4x8xf16>, tensor<8x8xf16>, tensor<8xf16> to tensor<4x8xf16>
// CHECK-NOT: amp.add
// CHECK: amp.relu %[[M2]]
// Casts: %x 32 elements * (4 + 2) B, %w 64 * 6, %b 8 * 6, the result 32 * 6.
// REMARK: remark: amp-autocast: f16, lower-precision (default category); the bias add at {{.*}} is folded in (one rounding)
// REMARK: remark: amp-autocast: converted 5/5 ops to f16 with 4 casts (816.0 B cast traffic per step), 2 bias adds folded into matmuls
// With add denied (kept in f32), the product is widened before an f32 add,
// which folds as well: the matmul writes f32.
// DENY-LABEL: func.func @low_add
// DENY: %[[M:.*]] = amp.matmul %{{.*}}, %{{.*}} bias %{{.*}} {acc_type = f32} : tensor<4x8xf16>, tensor<8x8xf16>, tensor<8xf32> to tensor<4x8xf32>
// DENY-NOT: amp.add
func.func @low_add(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %h = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %a = amp.add %h, %b : tensor<4x8xf32>, tensor<8xf32>
  %r = amp.relu %a : tensor<4x8xf32>
  %h2 = amp.matmul %r, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %a2 = amp.add %b, %h2 : tensor<8xf32>, tensor<4x8xf32>
  %r2 = amp.relu %a2 : tensor<4x8xf32>
  %o = amp.matmul %r2, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// The result goes back to f32: the f32 add reads the widened product, so the
// matmul takes the f32 bias and writes f32 itself; the cast goes.
// CHECK-LABEL: func.func @f32_add
// CHECK: %[[M:.*]] = amp.matmul %{{.*}}, %{{.*}} bias %arg2 {acc_type = f32} : tensor<2x4x8xf16>, tensor<8x8xf16>, tensor<8xf32> to tensor<2x4x8xf32>
// CHECK-NEXT: return %[[M]]
func.func @f32_add(%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %h = amp.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x8xf32> to tensor<2x4x8xf32>
  %a = amp.add %h, %b : tensor<2x4x8xf32>, tensor<8xf32>
  return %a : tensor<2x4x8xf32>
}

// -----

// Not a bias: a full tensor, a [1, N] row, a product read twice, and an f32
// matmul (deny=amp.matmul) keep their adds.
// CHECK-LABEL: func.func @no_fold
// CHECK-COUNT-3: amp.add
// DENY-LABEL: func.func @no_fold
// DENY-COUNT-3: amp.add
func.func @no_fold(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %full: tensor<4x8xf32>,
                   %row: tensor<1x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %h = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %a = amp.add %h, %full : tensor<4x8xf32>, tensor<4x8xf32>
  %h2 = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %a2 = amp.add %h2, %row : tensor<4x8xf32>, tensor<1x8xf32>
  %h3 = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %a3 = amp.add %h3, %b : tensor<4x8xf32>, tensor<8xf32>
  return %a, %a2, %a3, %h3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A matmul kept in f32 by the policy keeps its add.
// RUN: amp-opt %s --amp-autocast="deny=amp.matmul" -split-input-file | FileCheck %s --check-prefix=F32
// F32-LABEL: func.func @low_add
// F32: amp.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
// F32-NEXT: amp.add
