// RUN: amp-opt %s --split-input-file --amp-rebatch=batch=3 | FileCheck %s

// The batch inputs (neither amp.param nor amp.buffer) take 3 rows where
// they took 4; every value computed from them follows, worked out by hand
// from each op's rule; the parameters keep their shapes.

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %arg0: tensor<3x8xf32>, %arg1: tensor<3xi64>, %arg2: tensor<8x5xf32> {amp.param}
// CHECK-SAME: -> (tensor<f32>, tensor<3x5xf32>)
// CHECK: amp.matmul {{.*}} : tensor<3x8xf32>, tensor<8x5xf32> to tensor<3x5xf32>
// CHECK: amp.add {{.*}} : tensor<3x5xf32>, tensor<5xf32>
// CHECK: amp.relu {{.*}} : tensor<3x5xf32>
// CHECK: amp.cross_entropy {{.*}} : tensor<3x5xf32>, tensor<3xi64> to tensor<f32>
func.func @mlp(%x: tensor<4x8xf32>, %labels: tensor<4xi64>,
               %w: tensor<8x5xf32> {amp.param}, %b: tensor<5xf32> {amp.param})
    -> (tensor<f32>, tensor<4x5xf32>) {
  %0 = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x5xf32> to tensor<4x5xf32>
  %1 = amp.add %0, %b : tensor<4x5xf32>, tensor<5xf32>
  %2 = amp.relu %1 : tensor<4x5xf32>
  %loss = amp.cross_entropy %2, %labels : tensor<4x5xf32>, tensor<4xi64> to tensor<f32>
  return %loss, %2 : tensor<f32>, tensor<4x5xf32>
}

// -----

// A sequence model: the embedding follows its indices, a slice takes the
// batch whole (its limit follows), heads are split by a reshape that keeps
// the batch outermost and moved by a transpose; the flattened tokens
// [B*T, C] scale as B does (12 = 4 * 3 becomes 9 = 3 * 3), and a mean over
// the sequence keeps the batch.

// CHECK-LABEL: func.func @tokens
// CHECK-SAME: %arg0: tensor<3x3xi64>
// CHECK: amp.embedding {{.*}} : tensor<10x8xf32>, tensor<3x3xi64>
// CHECK: amp.add {{.*}} : tensor<3x3x8xf32>, tensor<3x8xf32>
// CHECK: amp.layer_norm {{.*}} : tensor<3x3x8xf32>
// CHECK: amp.slice {{.*}} [0, 0, 0] to [3, 3, 4] : tensor<3x3x8xf32> to tensor<3x3x4xf32>
// CHECK: amp.reshape {{.*}} : tensor<3x3x4xf32> to tensor<3x3x2x2xf32>
// CHECK: amp.transpose {{.*}}, [0, 2, 1, 3] : tensor<3x3x2x2xf32> to tensor<3x2x3x2xf32>
// CHECK: amp.reshape {{.*}} : tensor<3x3x8xf32> to tensor<9x8xf32>
// CHECK: amp.mean {{.*}} : tensor<3x3x8xf32> to tensor<3x8xf32>
// CHECK: amp.sum {{.*}} keepdims : tensor<3x3x8xf32> to tensor<1x1x8xf32>
// CHECK: amp.concat {{.*}} : tensor<3x3x8xf32>, tensor<3x3x8xf32> to tensor<3x3x16xf32>
// CHECK: return {{.*}} : tensor<3x2x3x2xf32>, tensor<9x8xf32>, tensor<3x8xf32>, tensor<1x1x8xf32>, tensor<3x3x16xf32>
func.func @tokens(%ids: tensor<4x3xi64>, %table: tensor<10x8xf32> {amp.param},
                  %pos: tensor<3x8xf32> {amp.param})
    -> (tensor<4x2x3x2xf32>, tensor<12x8xf32>, tensor<4x8xf32>, tensor<1x1x8xf32>, tensor<4x3x16xf32>) {
  %e = amp.embedding %table[%ids] : tensor<10x8xf32>, tensor<4x3xi64>
  %x = amp.add %e, %pos : tensor<4x3x8xf32>, tensor<3x8xf32>
  %n = amp.layer_norm %x : tensor<4x3x8xf32>
  %q = amp.slice %n [0, 0, 0] to [4, 3, 4] : tensor<4x3x8xf32> to tensor<4x3x4xf32>
  %h = amp.reshape %q : tensor<4x3x4xf32> to tensor<4x3x2x2xf32>
  %t = amp.transpose %h, [0, 2, 1, 3] : tensor<4x3x2x2xf32> to tensor<4x2x3x2xf32>
  %flat = amp.reshape %n : tensor<4x3x8xf32> to tensor<12x8xf32>
  %m = amp.mean %n dims = [1] : tensor<4x3x8xf32> to tensor<4x8xf32>
  %s = amp.sum %n dims = [0, 1] keepdims : tensor<4x3x8xf32> to tensor<1x1x8xf32>
  %c = amp.concat %n, %x dim = 2 : tensor<4x3x8xf32>, tensor<4x3x8xf32> to tensor<4x3x16xf32>
  return %t, %flat, %m, %s, %c : tensor<4x2x3x2xf32>, tensor<12x8xf32>, tensor<4x8xf32>, tensor<1x1x8xf32>, tensor<4x3x16xf32>
}

// -----

// Images: a convolution, batch norm (running statistics, buffers, keep
// their shapes) and pooling follow the input's first dimension.

// CHECK-LABEL: func.func @images
// CHECK-SAME: %arg0: tensor<3x2x6x6xf32>
// CHECK: amp.conv2d {{.*}} to tensor<3x4x6x6xf32>
// CHECK: amp.batch_norm {{.*}} : tensor<3x4x6x6xf32>
// CHECK: amp.max_pool2d {{.*}} to tensor<3x4x3x3xf32>
func.func @images(%x: tensor<4x2x6x6xf32>, %w: tensor<4x2x3x3xf32> {amp.param},
                  %mean: tensor<4xf32> {amp.buffer}, %var: tensor<4xf32> {amp.buffer = 1.0})
    -> tensor<4x4x3x3xf32> {
  %c = amp.conv2d %x, %w {padding = array<i64: 1, 1>} : tensor<4x2x6x6xf32>, tensor<4x2x3x3xf32> to tensor<4x4x6x6xf32>
  %n:3 = amp.batch_norm %c running(%mean, %var : tensor<4xf32>) : tensor<4x4x6x6xf32>
  %p = amp.max_pool2d %n#0 {kernel = array<i64: 2, 2>} : tensor<4x4x6x6xf32> to tensor<4x4x3x3xf32>
  return %p : tensor<4x4x3x3xf32>
}

// -----

// Dropout's generator (amp.rng) is state, not a batch input: a training
// model rebatches with its generator as it was.

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: %arg0: tensor<3x2xf32>, %arg1: tensor<2xi64> {amp.rng}
// CHECK: amp.dropout {{.*}} : tensor<3x2xf32>
func.func @dropout(%x: tensor<4x2xf32>, %rng: tensor<2xi64> {amp.rng},
                   %w: tensor<2xf32> {amp.param}) -> tensor<4x2xf32> {
  %h = amp.mul %x, %w : tensor<4x2xf32>, tensor<2xf32>
  %d = amp.dropout %h, %rng p = 0.25 stream = 7 training : tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}
