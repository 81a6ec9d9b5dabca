// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-decompose))' | FileCheck %s
// The rewrite changes no bit: the interpreter gives the same results before
// and after, on three seeds.
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-decompose))' -o %t.mlir
// RUN: for f in biased grouped_f16 average normalised normalised_eval normalised_grad normalised_grad_eval adaptive_global adaptive_uneven adaptive_upsample conv_grad_input conv_grad_weight; do for seed in 1 2 3; do \
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

// Batch norm in training mode, f16 images: the input widened to the
// statistics' f32, the channel mean and biased variance by amp.mean over
// [0, 2, 3], the running statistics' update (the variance's times
// n / (n - 1) = 18 / 17), then (x - mean) / sqrt(var + eps), the scale
// and bias widened, and one cast back to f16.
// CHECK-LABEL: func.func @normalised
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x3x3xf16>, %[[RM:.*]]: tensor<3xf32>, %[[RV:.*]]: tensor<3xf32>, %[[G:.*]]: tensor<3xf16>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[WX:.*]] = amp.cast %[[X]] : tensor<2x3x3x3xf16> to tensor<2x3x3x3xf32>
// CHECK: %[[MEAN:.*]] = amp.mean %[[WX]] dims = [0, 2, 3] : tensor<2x3x3x3xf32> to tensor<3xf32>
// CHECK: %[[M4:.*]] = amp.reshape %[[MEAN]] : tensor<3xf32> to tensor<1x3x1x1xf32>
// CHECK: %[[C:.*]] = amp.sub %[[WX]], %[[M4]]
// CHECK: %[[SQ:.*]] = amp.mul %[[C]], %[[C]]
// CHECK: %[[VAR:.*]] = amp.mean %[[SQ]] dims = [0, 2, 3] : tensor<2x3x3x3xf32> to tensor<3xf32>
// CHECK: %[[KEEP:.*]] = amp.constant dense<0.899999976> : tensor<f32>
// CHECK: %[[KM:.*]] = amp.mul %[[RM]], %[[KEEP]]
// CHECK: %[[MOM:.*]] = amp.constant dense<1.000000e-01> : tensor<f32>
// CHECK: %[[AM:.*]] = amp.mul %[[MEAN]], %[[MOM]]
// CHECK: %[[NEWMEAN:.*]] = amp.add %[[KM]], %[[AM]]
// CHECK: %[[UNBIASED:.*]] = amp.constant dense<1.05882359> : tensor<f32>
// CHECK: %[[UV:.*]] = amp.mul %[[VAR]], %[[UNBIASED]]
// CHECK: amp.mul %[[RV]]
// CHECK: amp.mul %[[UV]]
// CHECK: %[[NEWVAR:.*]] = amp.add
// CHECK: %[[EPS:.*]] = amp.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[VE:.*]] = amp.add %[[VAR]], %[[EPS]]
// CHECK: %[[SD:.*]] = amp.sqrt %[[VE]] : tensor<3xf32>
// CHECK: %[[SD4:.*]] = amp.reshape %[[SD]] : tensor<3xf32> to tensor<1x3x1x1xf32>
// CHECK: %[[XHAT:.*]] = amp.div %[[C]], %[[SD4]]
// CHECK: amp.cast %[[G]] : tensor<3xf16> to tensor<3xf32>
// CHECK: amp.mul %[[XHAT]]
// CHECK: amp.add
// CHECK: %[[Y:.*]] = amp.cast %{{.*}} : tensor<2x3x3x3xf32> to tensor<2x3x3x3xf16>
// CHECK: return %[[Y]], %[[NEWMEAN]], %[[NEWVAR]]
// CHECK-NOT: amp.batch_norm
func.func @normalised(%x: tensor<2x3x3x3xf16>, %rm: tensor<3xf32>, %rv: tensor<3xf32>,
                      %g: tensor<3xf16>, %b: tensor<3xf32>)
    -> (tensor<2x3x3x3xf16>, tensor<3xf32>, tensor<3xf32>) {
  %y:3 = amp.batch_norm %x running(%rm, %rv : tensor<3xf32>) scale(%g : tensor<3xf16>)
      bias(%b : tensor<3xf32>) {training} : tensor<2x3x3x3xf16>
  return %y#0, %y#1, %y#2 : tensor<2x3x3x3xf16>, tensor<3xf32>, tensor<3xf32>
}

// Evaluation: the running statistics normalise and come back as they were.
// CHECK-LABEL: func.func @normalised_eval
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[RM:.*]]: tensor<3xf32>, %[[RV:.*]]: tensor<3xf32>)
// CHECK: %[[M:.*]] = amp.reshape %[[RM]] : tensor<3xf32> to tensor<1x3xf32>
// CHECK: %[[C:.*]] = amp.sub %[[X]], %[[M]]
// CHECK: %[[VE:.*]] = amp.add %[[RV]], %{{.*}}
// CHECK: %[[SD:.*]] = amp.sqrt %[[VE]]
// CHECK: %[[SD2:.*]] = amp.reshape %[[SD]] : tensor<3xf32> to tensor<1x3xf32>
// CHECK: %[[Y:.*]] = amp.div %[[C]], %[[SD2]]
// CHECK: return %[[Y]], %[[RM]], %[[RV]]
func.func @normalised_eval(%x: tensor<4x3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>)
    -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y:3 = amp.batch_norm %x running(%rm, %rv : tensor<3xf32>) : tensor<4x3xf32>
  return %y#0, %y#1, %y#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// The gradients, training: the statistics recomputed from x in f32, x̂,
// g = dy * scale, dx = (g - mean(g) - x̂ mean(g x̂)) / r rounded once to
// f16, the scale's gradient sum(dy x̂) rounded to the scale's f16; no
// bias gradient, as nothing uses it.
// CHECK-LABEL: func.func @normalised_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x3x3xf16>, %[[DY:.*]]: tensor<2x3x3x3xf16>
// CHECK: %[[XW:.*]] = amp.cast %[[X]] : tensor<2x3x3x3xf16> to tensor<2x3x3x3xf32>
// CHECK: %[[MEAN:.*]] = amp.mean %[[XW]] dims = [0, 2, 3] : tensor<2x3x3x3xf32> to tensor<3xf32>
// CHECK: amp.mean %{{.*}} dims = [0, 2, 3] : tensor<2x3x3x3xf32> to tensor<3xf32>
// CHECK: amp.sqrt
// CHECK: %[[XHAT:.*]] = amp.div
// CHECK: %[[G:.*]] = amp.cast %[[DY]] : tensor<2x3x3x3xf16> to tensor<2x3x3x3xf32>
// CHECK: %[[SCALED:.*]] = amp.mul %[[G]], %{{.*}} : tensor<2x3x3x3xf32>, tensor<1x3x1x1xf32>
// CHECK-DAG: amp.mean %[[SCALED]] dims = [0, 2, 3]
// CHECK-DAG: amp.mul %[[SCALED]], %[[XHAT]]
// CHECK: %[[DX:.*]] = amp.div
// CHECK: %[[DX16:.*]] = amp.cast %[[DX]] : tensor<2x3x3x3xf32> to tensor<2x3x3x3xf16>
// CHECK: %[[GX:.*]] = amp.mul %[[G]], %[[XHAT]]
// CHECK: %[[DSCALE:.*]] = amp.sum %[[GX]] dims = [0, 2, 3] : tensor<2x3x3x3xf32> to tensor<3xf16>
// CHECK-NOT: amp.sum
// CHECK: return %[[DX16]], %[[DSCALE]]
// CHECK-NOT: amp.batch_norm_grad
func.func @normalised_grad(%x: tensor<2x3x3x3xf16>, %dy: tensor<2x3x3x3xf16>,
                           %rm: tensor<3xf32>, %rv: tensor<3xf32>, %g: tensor<3xf16>)
    -> (tensor<2x3x3x3xf16>, tensor<3xf16>) {
  %d:3 = amp.batch_norm_grad %x, %dy running(%rm, %rv : tensor<3xf32>)
      scale(%g : tensor<3xf16>) {training}
      : tensor<2x3x3x3xf16> -> tensor<3xf16>, tensor<3xf32>
  return %d#0, %d#1 : tensor<2x3x3x3xf16>, tensor<3xf16>
}

// Evaluation: the running statistics normalise; dx = dy / r, no means;
// the bias's gradient sums dy.
// CHECK-LABEL: func.func @normalised_grad_eval
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[DY:.*]]: tensor<4x3xf32>, %[[RM:.*]]: tensor<3xf32>, %[[RV:.*]]: tensor<3xf32>)
// CHECK-NOT: amp.mean
// CHECK: %[[VE:.*]] = amp.add %[[RV]], %{{.*}}
// CHECK: %[[SD:.*]] = amp.sqrt %[[VE]]
// CHECK: %[[R:.*]] = amp.reshape %[[SD]] : tensor<3xf32> to tensor<1x3xf32>
// CHECK: %[[DX:.*]] = amp.div %[[DY]], %[[R]]
// CHECK: %[[DB:.*]] = amp.sum %[[DY]] dims = [0] : tensor<4x3xf32> to tensor<3xf32>
// CHECK: return %[[DX]], %[[DB]]
func.func @normalised_grad_eval(%x: tensor<4x3xf32>, %dy: tensor<4x3xf32>,
                                %rm: tensor<3xf32>, %rv: tensor<3xf32>)
    -> (tensor<4x3xf32>, tensor<3xf32>) {
  %d:3 = amp.batch_norm_grad %x, %dy running(%rm, %rv : tensor<3xf32>)
      : tensor<4x3xf32> -> tensor<3xf32>, tensor<3xf32>
  return %d#0, %d#2 : tensor<4x3xf32>, tensor<3xf32>
}

// Adaptive pooling whose windows tile the image: amp.avg_pool2d's
// rewrite, a [H, W] kernel for global pooling.
// CHECK-LABEL: func.func @adaptive_global
// CHECK: %[[COLS:.*]] = amp.im2col %{{.*}} {kernel = array<i64: 4, 4>, strides = array<i64: 4, 4>} : tensor<2x3x4x4xf16> to tensor<2x48x1xf16>
// CHECK: amp.mean %{{.*}} dims = [2] : tensor<2x3x16x1xf16> to tensor<2x3x1xf16>
// CHECK-NOT: amp.adaptive_avg_pool2d
func.func @adaptive_global(%x: tensor<2x3x4x4xf16>) -> tensor<2x3x1x1xf16> {
  %y = amp.adaptive_avg_pool2d %x output_size = [1, 1] : tensor<2x3x4x4xf16> to tensor<2x3x1x1xf16>
  return %y : tensor<2x3x1x1xf16>
}

// Windows of 2, 3 and 2 rows (the middle one overlapping both) and of 2
// columns: each window's rows summed in f32, then its columns, divided by
// its size, cast once.
// CHECK-LABEL: func.func @adaptive_uneven
// CHECK: %[[X:.*]] = amp.cast %{{.*}} : tensor<2x2x5x3xbf16> to tensor<2x2x5x3xf32>
// CHECK: amp.slice %[[X]] [0, 0, 0, 0] to [2, 2, 2, 3]
// CHECK: amp.slice %[[X]] [0, 0, 1, 0] to [2, 2, 4, 3]
// CHECK: amp.slice %[[X]] [0, 0, 3, 0] to [2, 2, 5, 3]
// CHECK: %[[ROWS:.*]] = amp.concat %{{.*}}, %{{.*}}, %{{.*}} dim = 2
// CHECK: amp.slice %[[ROWS]] [0, 0, 0, 0] to [2, 2, 3, 2]
// CHECK: amp.sum %{{.*}} dims = [3] keepdims : tensor<2x2x3x2xf32> to tensor<2x2x3x1xf32>
// CHECK: amp.slice %[[ROWS]] [0, 0, 0, 1] to [2, 2, 3, 3]
// CHECK: %[[SUMS:.*]] = amp.concat %{{.*}}, %{{.*}} dim = 3
// CHECK: %[[SIZES:.*]] = amp.constant dense<{{\[}}[4.000000e+00, 4.000000e+00], [6.000000e+00, 6.000000e+00], [4.000000e+00, 4.000000e+00]]> : tensor<3x2xf32>
// CHECK: %[[MEAN:.*]] = amp.div %[[SUMS]], %[[SIZES]]
// CHECK: amp.cast %[[MEAN]] : tensor<2x2x3x2xf32> to tensor<2x2x3x2xbf16>
func.func @adaptive_uneven(%x: tensor<2x2x5x3xbf16>) -> tensor<2x2x3x2xbf16> {
  %y = amp.adaptive_avg_pool2d %x output_size = [3, 2] : tensor<2x2x5x3xbf16> to tensor<2x2x3x2xbf16>
  return %y : tensor<2x2x3x2xbf16>
}

// An output larger than the input: windows of one position, repeated.
// CHECK-LABEL: func.func @adaptive_upsample
// CHECK-NOT: amp.cast
// CHECK: amp.div
func.func @adaptive_upsample(%x: tensor<1x2x1x2xf32>) -> tensor<1x2x2x3xf32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [2, 3] : tensor<1x2x1x2xf32> to tensor<1x2x2x3xf32>
  return %y : tensor<1x2x2x3xf32>
}

// A convolution's gradients (amp-autodiff's): in its input, weight^T grad
// per group in f32 and amp.col2im; in its weight, grad times the input's
// columns transposed, per group.
// CHECK-LABEL: func.func @conv_grad_input
// CHECK: %[[G:.*]] = amp.reshape %{{.*}} : tensor<2x6x3x4xf16> to tensor<2x2x3x12xf16>
// CHECK: %[[W:.*]] = amp.reshape %{{.*}} : tensor<6x2x2x2xf16> to tensor<2x3x8xf16>
// CHECK: %[[D:.*]] = amp.matmul %[[W]], %[[G]] {acc_type = f32, transpose_lhs} : tensor<2x3x8xf16>, tensor<2x2x3x12xf16> to tensor<2x2x8x12xf32>
// CHECK: %[[C:.*]] = amp.reshape %[[D]] : tensor<2x2x8x12xf32> to tensor<2x16x12xf32>
// CHECK: amp.col2im %[[C]] {dilations = array<i64: 2, 1>, kernel = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>} : tensor<2x16x12xf32> to tensor<2x4x4x4xf16>
// CHECK-NOT: amp.conv2d_grad_input
func.func @conv_grad_input(%dy: tensor<2x6x3x4xf16>, %w: tensor<6x2x2x2xf16>) -> tensor<2x4x4x4xf16> {
  %dx = amp.conv2d_grad_input %dy, %w {padding = array<i64: 1, 1, 0, 0>, dilations = array<i64: 2, 1>, groups = 2 : i64, acc_type = f32}
      : tensor<2x6x3x4xf16>, tensor<6x2x2x2xf16> to tensor<2x4x4x4xf16>
  return %dx : tensor<2x4x4x4xf16>
}

// CHECK-LABEL: func.func @conv_grad_weight
// CHECK: %[[COLS:.*]] = amp.im2col %{{.*}} {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 1>} : tensor<2x4x4x4xbf16> to tensor<2x16x8xbf16>
// CHECK: amp.transpose %{{.*}}, [1, 2, 0, 3] : tensor<2x2x3x8xbf16> to tensor<2x3x2x8xbf16>
// CHECK: amp.transpose %{{.*}}, [1, 2, 0, 3] : tensor<2x2x8x8xbf16> to tensor<2x8x2x8xbf16>
// CHECK: %[[DW:.*]] = amp.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<2x3x16xbf16>, tensor<2x8x16xbf16> to tensor<2x3x8xbf16>
// CHECK: amp.reshape %[[DW]] : tensor<2x3x8xbf16> to tensor<6x2x2x2xbf16>
// CHECK-NOT: amp.conv2d_grad_weight
func.func @conv_grad_weight(%x: tensor<2x4x4x4xbf16>, %dy: tensor<2x6x2x4xbf16>) -> tensor<6x2x2x2xbf16> {
  %dw = amp.conv2d_grad_weight %x, %dy {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 0, 0>, groups = 2 : i64}
      : tensor<2x4x4x4xbf16>, tensor<2x6x2x4xbf16> to tensor<6x2x2x2xbf16>
  return %dw : tensor<6x2x2x2xbf16>
}
