// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-decompose))' | FileCheck %s
// The rewrite changes no bit: the interpreter gives the same results before
// and after, on three seeds.
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-decompose))' -o %t.mlir
// RUN: for f in biased grouped_f16 average; do for seed in 1 2 3; do \
// RUN:   amp-run %s --function=$f --random-inputs=$seed --print-limit=10000 > %t.before && \
// RUN:   amp-run %t.mlir --function=$f --random-inputs=$seed --print-limit=10000 > %t.after && \
// RUN:   diff %t.before %t.after || exit 1; \
// RUN: done; done
// RUN: amp-run %t.mlir --function=grouped_f16 --random-inputs=1 | FileCheck %s --check-prefix=VALUES
// VALUES: result #0: tensor<2x6x3x4xf16> = [{{.*[1-9].*}}]

// A convolution with a bias: im2col, the weight [O, C*KH*KW] times each
// image's columns in f32 (the accumulator), the bias added in f32 and the
// sum cast once to the result type.
// CHECK-LABEL: func.func @biased
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x6x6xf16>, %[[W:.*]]: tensor<4x3x3x3xf16>, %[[B:.*]]: tensor<4xf16>)
// CHECK: %[[COLS:.*]] = amp.im2col %[[X]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x6x6xf16> to tensor<2x27x9xf16>
// CHECK: %[[C:.*]] = amp.reshape %[[COLS]] : tensor<2x27x9xf16> to tensor<2x1x27x9xf16>
// CHECK: %[[W2:.*]] = amp.reshape %[[W]] : tensor<4x3x3x3xf16> to tensor<1x4x27xf16>
// CHECK: %[[M:.*]] = amp.matmul %[[W2]], %[[C]] {acc_type = f32} : tensor<1x4x27xf16>, tensor<2x1x27x9xf16> to tensor<2x1x4x9xf32>
// CHECK: %[[Y:.*]] = amp.reshape %[[M]] : tensor<2x1x4x9xf32> to tensor<2x4x3x3xf32>
// CHECK: %[[BW:.*]] = amp.cast %[[B]] : tensor<4xf16> to tensor<4xf32>
// CHECK: %[[BR:.*]] = amp.reshape %[[BW]] : tensor<4xf32> to tensor<4x1x1xf32>
// CHECK: %[[S:.*]] = amp.add %[[Y]], %[[BR]] : tensor<2x4x3x3xf32>, tensor<4x1x1xf32>
// CHECK: %[[R:.*]] = amp.cast %[[S]] : tensor<2x4x3x3xf32> to tensor<2x4x3x3xf16>
// CHECK: return %[[R]]
// CHECK-NOT: amp.conv2d
func.func @biased(%x: tensor<2x3x6x6xf16>, %w: tensor<4x3x3x3xf16>, %b: tensor<4xf16>) -> tensor<2x4x3x3xf16> {
  %y = amp.conv2d %x, %w bias %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, acc_type = f32}
      : tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16>, tensor<4xf16> to tensor<2x4x3x3xf16>
  return %y : tensor<2x4x3x3xf16>
}

// Two groups, no bias: per group, a matmul of [O/G, C/G*KH*KW] with the
// group's columns, straight to the result type.
// CHECK-LABEL: func.func @grouped_f16
// CHECK: amp.im2col %{{.*}} {dilations = array<i64: 2, 1>, kernel = array<i64: 2, 2>, padding = array<i64: 0, 1, 1, 0>} : tensor<2x4x4x4xf16> to tensor<2x16x12xf16>
// CHECK: amp.reshape %{{.*}} : tensor<2x16x12xf16> to tensor<2x2x8x12xf16>
// CHECK: amp.reshape %{{.*}} : tensor<6x2x2x2xf16> to tensor<2x3x8xf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} : tensor<2x3x8xf16>, tensor<2x2x8x12xf16> to tensor<2x2x3x12xf16>
// CHECK: amp.reshape %{{.*}} : tensor<2x2x3x12xf16> to tensor<2x6x3x4xf16>
// CHECK-NOT: amp.conv2d
func.func @grouped_f16(%x: tensor<2x4x4x4xf16>, %w: tensor<6x2x2x2xf16>) -> tensor<2x6x3x4xf16> {
  %y = amp.conv2d %x, %w {padding = array<i64: 0, 1, 1, 0>, dilations = array<i64: 2, 1>, groups = 2 : i64}
      : tensor<2x4x4x4xf16>, tensor<6x2x2x2xf16> to tensor<2x6x3x4xf16>
  return %y : tensor<2x6x3x4xf16>
}

// An average pooling: the mean of each window's column, over KH * KW.
// CHECK-LABEL: func.func @average
// CHECK: %[[COLS:.*]] = amp.im2col %{{.*}} {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x5x5xbf16> to tensor<2x27x9xbf16>
// CHECK: %[[C:.*]] = amp.reshape %[[COLS]] : tensor<2x27x9xbf16> to tensor<2x3x9x9xbf16>
// CHECK: %[[M:.*]] = amp.mean %[[C]] dims = [2] : tensor<2x3x9x9xbf16> to tensor<2x3x9xbf16>
// CHECK: amp.reshape %[[M]] : tensor<2x3x9xbf16> to tensor<2x3x3x3xbf16>
// CHECK-NOT: amp.avg_pool2d
func.func @average(%x: tensor<2x3x5x5xbf16>) -> tensor<2x3x3x3xbf16> {
  %y = amp.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x5x5xbf16> to tensor<2x3x3x3xbf16>
  return %y : tensor<2x3x3x3xbf16>
}
