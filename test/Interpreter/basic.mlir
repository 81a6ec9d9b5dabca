// amp-run on inputs from .npy files, results checked against hand values.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 2x3 1 -2 3 -4 5 -6
// RUN: %python %S/Inputs/make_npy.py %t/b.npy '<f4' 3 0.5 0.25 -1
// RUN: amp-run %s --function=bias_relu --input=%t/x.npy --input=%t/b.npy | FileCheck %s --check-prefix=RELU
// RUN: %python %S/Inputs/make_npy.py %t/h.npy '<f2' 3 65504 1 0.1
// RUN: amp-run %s --function=half_ops --input=%t/h.npy | FileCheck %s --check-prefix=HALF
// RUN: %python %S/Inputs/make_npy.py %t/w1.npy '<f4' 4x3 --fill=0
// RUN: %python %S/Inputs/make_npy.py %t/b1.npy '<f4' 3 --fill=0
// RUN: %python %S/Inputs/make_npy.py %t/w2.npy '<f4' 3x10 --fill=0
// RUN: %python %S/Inputs/make_npy.py %t/b2.npy '<f4' 10 --fill=0
// RUN: %python %S/Inputs/make_npy.py %t/x4.npy '<f4' 2x4 1 2 3 4 5 6 7 8
// RUN: %python %S/Inputs/make_npy.py %t/y.npy '<i8' 2 3 7
// RUN: amp-run %s --function=zero_mlp --input=%t/w1.npy --input=%t/b1.npy --input=%t/w2.npy --input=%t/b2.npy --input=%t/x4.npy --input=%t/y.npy | FileCheck %s --check-prefix=MLP

// relu([1, -2, 3, -4, 5, -6] + [0.5, 0.25, -1]) = [1.5, 0, 2, 0, 5.25, 0]
// RELU: result #0: tensor<2x3xf32> = [1.5, 0, 2, 0, 5.25, 0]
func.func @bias_relu(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = amp.add %x, %b : tensor<2x3xf32>, tensor<3xf32>
  %1 = amp.relu %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// fp16 rounds where it stores: 65504 * 2 overflows to inf; 1 * 2 = 2; 0.1 is
// held as 0.0999755859375 (0x2e66), doubled exactly. The f32 copy of the sum
// 65504 + 1 + 0.1 keeps f32 precision: 65505.0999755859375 rounds to
// 65505.1016 in f32.
// HALF: result #0: tensor<3xf16> = [inf, 2, 0.199951172]
// HALF: result #1: tensor<f32> = [65505.1016]
func.func @half_ops(%h: tensor<3xf16>) -> (tensor<3xf16>, tensor<f32>) {
  %two = amp.constant dense<2.0> : tensor<f16>
  %0 = amp.mul %h, %two : tensor<3xf16>, tensor<f16>
  %f = amp.cast %h : tensor<3xf16> to tensor<3xf32>
  %1 = amp.sum %f dims = [0] : tensor<3xf32> to tensor<f32>
  return %0, %1 : tensor<3xf16>, tensor<f32>
}

// With zero weights every logit is 0: the loss is ln(10) for any input and
// label, 2.302585093 in f64, 2.30258512 as the nearest f32.
// MLP: result #0: tensor<f32> = [2.30258512]
func.func @zero_mlp(%w1: tensor<4x3xf32> {amp.param}, %b1: tensor<3xf32> {amp.param},
                    %w2: tensor<3x10xf32> {amp.param}, %b2: tensor<10xf32> {amp.param},
                    %x: tensor<2x4xf32>, %y: tensor<2xi64>) -> tensor<f32> {
  %0 = amp.matmul %x, %w1 : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %1 = amp.add %0, %b1 : tensor<2x3xf32>, tensor<3xf32>
  %2 = amp.relu %1 : tensor<2x3xf32>
  %3 = amp.matmul %2, %w2 : tensor<2x3xf32>, tensor<3x10xf32> to tensor<2x10xf32>
  %4 = amp.add %3, %b2 : tensor<2x10xf32>, tensor<10xf32>
  %5 = amp.cross_entropy %4, %y : tensor<2x10xf32>, tensor<2xi64> to tensor<f32>
  return %5 : tensor<f32>
}

// Attention's log-sum-exp and backward, by hand. One head, two positions,
// head dim 1, causal, scale 1: q = [0, 0] makes every visible score 0.
// Query 0 sees key 0: output v0 = 3, lse log(1) = 0. Query 1 sees both
// keys with probability 1/2: output (3 + 5) / 2 = 4, lse log(2).
// With dout = [1, 1]: dv_j sums the probabilities of the queries that see
// key j (1 + 1/2 and 1/2); dq_1 is the covariance of k and v under those
// probabilities, (1 * 3 + 2 * 5) / 2 - 1.5 * 4 = 0.5 (dq_0 = 0: one key);
// dk = ds * q = 0.
// LSE: result #0: tensor<1x1x2x1xf32> = [3, 4]
// LSE: result #1: tensor<1x1x2xf32> = [0, 0.693147182]
// LSE: result #2: tensor<1x1x2x1xf32> = [0, 0.5]
// LSE: result #3: tensor<1x1x2x1xf32> = [0, 0]
// LSE: result #4: tensor<1x1x2x1xf32> = [1.5, 0.5]
// RUN: amp-run %s --function=attention_by_hand | FileCheck %s --check-prefix=LSE
func.func @attention_by_hand() -> (tensor<1x1x2x1xf32>, tensor<1x1x2xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>) {
  %q = amp.constant dense<0.0> : tensor<1x1x2x1xf32>
  %k = amp.constant dense<[[[[1.0], [2.0]]]]> : tensor<1x1x2x1xf32>
  %v = amp.constant dense<[[[[3.0], [5.0]]]]> : tensor<1x1x2x1xf32>
  %do = amp.constant dense<1.0> : tensor<1x1x2x1xf32>
  %o, %lse = amp.attention %q, %k, %v causal with_lse : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
  %dq, %dk, %dv = amp.attention_grad %q, %k, %v, %o, %lse, %do causal : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2xf32>, tensor<1x1x2x1xf32>
  return %o, %lse, %dq, %dk, %dv : tensor<1x1x2x1xf32>, tensor<1x1x2xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
}

// amp.sum_squares squares in f32: 300^2 = 90000 is past f16's range, yet
// [1, -2, 3, -4, 5, -6] and [300, 1, 0.5] give 91 + 90001.25 = 90092.25.
// The tensors' sums are added in operand order from 0: 4096^2 = 2^24, and
// 2^24 + 1 rounds to 2^24 in f32 (ties to even), twice; 1 + 1 first would
// give 2^24 + 2. No tensors: 0.
// SQUARES: result #0: tensor<f32> = [90092.25]
// SQUARES: result #1: tensor<f32> = [16777216]
// SQUARES: result #2: tensor<f32> = [0]
// RUN: %python %S/Inputs/make_npy.py %t/hs.npy '<f2' 3 300 1 0.5
// RUN: amp-run %s --function=sum_squares --input=%t/x.npy --input=%t/hs.npy | FileCheck %s --check-prefix=SQUARES
func.func @sum_squares(%x: tensor<2x3xf32>, %h: tensor<3xf16>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %s = amp.sum_squares %x, %h : tensor<2x3xf32>, tensor<3xf16>
  %big = amp.constant dense<4096.0> : tensor<1xf32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %ordered = amp.sum_squares %big, %one, %one : tensor<1xf32>, tensor<f32>, tensor<f32>
  %none = amp.sum_squares
  return %s, %ordered, %none : tensor<f32>, tensor<f32>, tensor<f32>
}

// The interpreter is one process: one replica, over which a sum or a
// maximum is the value itself, with or without `when`; the count is 1.
// REPLICAS: result #0: tensor<2x3xf32> = [1, -2, 3, -4, 5, -6]
// REPLICAS: result #1: tensor<f32> = [4096]
// REPLICAS: result #2: tensor<f32> = [1]
// RUN: amp-run %s --function=replicas --input=%t/x.npy | FileCheck %s --check-prefix=REPLICAS
func.func @replicas(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<f32>, tensor<f32>) {
  %big = amp.constant dense<4096.0> : tensor<f32>
  %no = amp.constant dense<false> : tensor<i1>
  %sum:2 = amp.all_reduce sum %x, %big : tensor<2x3xf32>, tensor<f32>
  %max = amp.all_reduce max %sum#1 when %no : tensor<f32>
  %n = amp.replica_count : tensor<f32>
  return %sum#0, %max, %n : tensor<2x3xf32>, tensor<f32>, tensor<f32>
}

// ZeRO stage 1's ops over one replica: the part is the tensor flattened,
// the gather its inverse; with `when` false the gather returns its priors.
// SHARDS: result #0: tensor<6xf32> = [1, -2, 3, -4, 5, -6]
// SHARDS: result #1: tensor<2x3xf32> = [1, -2, 3, -4, 5, -6]
// SHARDS: result #2: tensor<2x3xf32> = [0, 0, 0, 0, 0, 0]
// RUN: amp-run %s --function=shards --input=%t/x.npy | FileCheck %s --check-prefix=SHARDS
func.func @shards(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %part = amp.replica_shard %x {replicas = 1} : tensor<2x3xf32> -> tensor<6xf32>
  %whole = amp.all_gather %part {replicas = 1} : tensor<6xf32> -> tensor<2x3xf32>
  %zero = amp.constant dense<0.0> : tensor<2x3xf32>
  %no = amp.constant dense<false> : tensor<i1>
  %kept = amp.all_gather %part else %zero(tensor<2x3xf32>) when %no {replicas = 1} : tensor<6xf32> -> tensor<2x3xf32>
  return %part, %whole, %kept : tensor<6xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Parts of several replicas are not the interpreter's: it is one.
// RUN: not amp-run %s --function=two_replicas --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: error: 'amp.all_gather' op gathers the parts of 2 replicas; the interpreter is one replica (compile for replicas=1 to interpret the step)
func.func @two_replicas(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %part = amp.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  %whole = amp.all_gather %part {replicas = 2} : tensor<6xf32> -> tensor<4x3xf32>
  return %whole : tensor<4x3xf32>
}

// amp.conv2d by hand on x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]:
// - the 2x2 window [[1, 0], [0, -1]] gives x[i][j] - x[i+1][j+1] = -4, plus
//   the bias 0.5;
// - a 3x3 window of ones, stride 2, padding 1, sums each padded window:
//   1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9;
// - the channels are summed in order: 2^24 + 1 rounds to 2^24 in f32, twice
//   (1 + 1 first would give 2^24 + 2);
// - the bias joins the f32 sum before the one rounding to f16: 2048 + 1 + 1
//   = 2050 (rounding 2049 to f16 first would give 2048, then 2049 -> 2048).
// amp.im2col reads the 2x2 windows of x, a row per kernel offset; amp.col2im
// of ones counts the windows over each position.
// CONV: result #0: tensor<1x1x2x2xf32> = [-3.5, -3.5, -3.5, -3.5]
// CONV: result #1: tensor<1x1x2x2xf32> = [12, 16, 24, 28]
// CONV: result #2: tensor<1x1x1x1xf32> = [16777216]
// CONV: result #3: tensor<1x1x1x1xf16> = [2050]
// CONV: result #4: tensor<1x4x4xf32> = [1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9]
// CONV: result #5: tensor<1x1x3x3xf32> = [1, 2, 1, 2, 4, 2, 1, 2, 1]
// RUN: amp-run %s --function=convolution | FileCheck %s --check-prefix=CONV
func.func @convolution() -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf16>, tensor<1x4x4xf32>, tensor<1x1x3x3xf32>) {
  %x = amp.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %w = amp.constant dense<[[[[1.0, 0.0], [0.0, -1.0]]]]> : tensor<1x1x2x2xf32>
  %b = amp.constant dense<0.5> : tensor<1xf32>
  %0 = amp.conv2d %x, %w bias %b : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1xf32> to tensor<1x1x2x2xf32>
  %ones = amp.constant dense<1.0> : tensor<1x1x3x3xf32>
  %1 = amp.conv2d %x, %ones {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32> to tensor<1x1x2x2xf32>
  %big = amp.constant dense<[[[[16777216.0]], [[1.0]], [[1.0]]]]> : tensor<1x3x1x1xf32>
  %w3 = amp.constant dense<1.0> : tensor<1x3x1x1xf32>
  %2 = amp.conv2d %big, %w3 : tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32> to tensor<1x1x1x1xf32>
  %h = amp.constant dense<[[[[2048.0, 1.0]]]]> : tensor<1x1x1x2xf16>
  %hw = amp.constant dense<1.0> : tensor<1x1x1x2xf16>
  %hb = amp.constant dense<1.0> : tensor<1xf16>
  %3 = amp.conv2d %h, %hw bias %hb : tensor<1x1x1x2xf16>, tensor<1x1x1x2xf16>, tensor<1xf16> to tensor<1x1x1x1xf16>
  %4 = amp.im2col %x {kernel = array<i64: 2, 2>} : tensor<1x1x3x3xf32> to tensor<1x4x4xf32>
  %c = amp.constant dense<1.0> : tensor<1x4x4xf32>
  %5 = amp.col2im %c {kernel = array<i64: 2, 2>} : tensor<1x4x4xf32> to tensor<1x1x3x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf16>, tensor<1x4x4xf32>, tensor<1x1x3x3xf32>
}

// amp.max_pool2d by hand on x = [[1, 5, 2], [5, 3, NaN], [0, -1, 4]] (a
// 2x2 window, strides 1): the maxima 5, NaN, 5 and NaN (a NaN in a window
// wins). Its gradient with dy = [1, 2, 3, 4]: the first window holds 5
// twice and passes 1 to the first in (kh, kw) order (position 1, not 3);
// the third window's maximum is the 5 at position 3 (3); the NaN takes the
// second and fourth windows' (2 + 4). With a 3x3 window, strides 2 and padding 1
// over the rows [1, 2, 3] [4, 5, 6] [7, 8, 9], the padding takes no part:
// 5, 6, 8, 9.
// POOL: result #0: tensor<1x1x2x2xf32> = [5, nan, 5, nan]
// POOL: result #1: tensor<1x1x3x3xf32> = [0, 1, 0, 3, 0, 6, 0, 0, 0]
// POOL: result #2: tensor<1x1x2x2xf32> = [5, 6, 8, 9]
// RUN: amp-run %s --function=max_pool | FileCheck %s --check-prefix=POOL
func.func @max_pool() -> (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) {
  %x = amp.constant dense<[[[[1.0, 5.0, 2.0], [5.0, 3.0, 0x7FC00000], [0.0, -1.0, 4.0]]]]> : tensor<1x1x3x3xf32>
  %0 = amp.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32> to tensor<1x1x2x2xf32>
  %dy = amp.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %1 = amp.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32> to tensor<1x1x3x3xf32>
  %n = amp.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %2 = amp.max_pool2d %n {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x1x3x3xf32> to tensor<1x1x2x2xf32>
  return %0, %1, %2 : tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>
}

// amp.avg_pool2d by hand on the rows [1, 2, 3] [4, 5, 6] [7, 8, 9]: 2x2
// windows with strides 1 give (1+2+4+5)/4 = 3, 4, 6, 7; 3x3 windows with
// strides 2 and padding 1 count the padding's zeros: 12/9, 16/9, 24/9 and
// 28/9, each rounded once to f32.
// AVG: result #0: tensor<1x1x2x2xf32> = [3, 4, 6, 7]
// AVG: result #1: tensor<1x1x2x2xf32> = [1.33333337, 1.77777779, 2.66666675, 3.11111116]
// RUN: amp-run %s --function=avg_pool | FileCheck %s --check-prefix=AVG
func.func @avg_pool() -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %x = amp.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %0 = amp.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32> to tensor<1x1x2x2xf32>
  %1 = amp.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x1x3x3xf32> to tensor<1x1x2x2xf32>
  return %0, %1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// amp.batch_norm by hand. Training, x = [[1, 2], [3, 6]] (two channels of
// two values): means [2, 4], biased variances [1, 4], so with epsilon 0 the
// normalised values are [-1, 1] in each channel; scale [2, 3] and bias
// [0.5, -1] make [[-1.5, -4], [2.5, 2]]. With momentum 0.5 the running
// statistics [0, 0] and [1, 1] become [1, 2] and, from the unbiased
// variances [2, 8], [1.5, 4.5]. Evaluation with running statistics [1, 2]
// and [3, 8] and epsilon 1 divides x - [1, 2] by sqrt([4, 9]) and returns
// them unchanged. Images: one channel of [1, 2, 3, 4] in f16 has mean 2.5
// and variance 1.25; (x - 2.5) / sqrt(1.25) is +-1.34164079 and
// +-0.447213595, which round to f16's 1.341796875 (printed to 9 digits)
// and 0.447265625.
// BN: result #0: tensor<2x2xf32> = [-1.5, -4, 2.5, 2]
// BN: result #1: tensor<2xf32> = [1, 2]
// BN: result #2: tensor<2xf32> = [1.5, 4.5]
// BN: result #3: tensor<2x2xf32> = [0, 0, 1, 1.33333337]
// BN: result #4: tensor<2xf32> = [1, 2]
// BN: result #5: tensor<2xf32> = [3, 8]
// BN: result #6: tensor<2x1x1x2xf16> = [-1.34179688, -0.447265625, 0.447265625, 1.34179688]
// RUN: amp-run %s --function=batch_norm | FileCheck %s --check-prefix=BN
func.func @batch_norm() -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>,
                            tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>,
                            tensor<2x1x1x2xf16>) {
  %x = amp.constant dense<[[1.0, 2.0], [3.0, 6.0]]> : tensor<2x2xf32>
  %zeros = amp.constant dense<0.0> : tensor<2xf32>
  %ones = amp.constant dense<1.0> : tensor<2xf32>
  %g = amp.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %b = amp.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %0:3 = amp.batch_norm %x running(%zeros, %ones : tensor<2xf32>)
      scale(%g : tensor<2xf32>) bias(%b : tensor<2xf32>)
      {epsilon = 0.0, momentum = 0.5, training} : tensor<2x2xf32>
  %rm = amp.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %rv = amp.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %1:3 = amp.batch_norm %x running(%rm, %rv : tensor<2xf32>) {epsilon = 1.0}
      : tensor<2x2xf32>
  %h = amp.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf16>
  %z1 = amp.constant dense<0.0> : tensor<1xf32>
  %2:3 = amp.batch_norm %h running(%z1, %z1 : tensor<1xf32>)
      {epsilon = 0.0, training} : tensor<2x1x1x2xf16>
  return %0#0, %0#1, %0#2, %1#0, %1#1, %1#2, %2#0
      : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>,
        tensor<2xf32>, tensor<2xf32>, tensor<2x1x1x2xf16>
}

// amp.norm_stats of [[1, 2, 3, 4], [5, 6, 7, 8]] with epsilon 0: means 2.5
// and 6.5, deviations sqrt(1.25) = 1.1180339887 (f32 1.11803401) in both
// rows; without centering (RMS norm's), sqrt(30 / 4) = 2.7386127875 (f32
// 2.73861289) and sqrt(174 / 4) = 6.5954529791 (f32 6.59545279), means 0.
// With epsilon 1e-5, (x - mean) / deviation elementwise in f32 is the
// layer norm without weight and bias, bit for bit (the same two results).
// RUN: amp-run %s --function=norm_stats | FileCheck %s --check-prefix=STATS
// STATS: result #0: tensor<2x1xf32> = [2.5, 6.5]
// STATS: result #1: tensor<2x1xf32> = [1.11803401, 1.11803401]
// STATS: result #2: tensor<2x1xf32> = [0, 0]
// STATS: result #3: tensor<2x1xf32> = [2.73861289, 6.59545279]
// STATS: result #4: tensor<2x4xf32> = [[NORMED:\[-1.34163547, .*\]]]
// STATS: result #5: tensor<2x4xf32> = [[NORMED]]{{$}}
func.func @norm_stats() -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>,
                            tensor<2x1xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %x = amp.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]>
      : tensor<2x4xf32>
  %mean, %dev = amp.norm_stats %x {centered, epsilon = 0.0}
      : tensor<2x4xf32> to tensor<2x1xf32>, tensor<2x1xf32>
  %zero, %rms = amp.norm_stats %x {epsilon = 0.0}
      : tensor<2x4xf32> to tensor<2x1xf32>, tensor<2x1xf32>
  %m, %d = amp.norm_stats %x {centered, epsilon = 1.0e-05}
      : tensor<2x4xf32> to tensor<2x1xf32>, tensor<2x1xf32>
  %c = amp.sub %x, %m : tensor<2x4xf32>, tensor<2x1xf32>
  %h = amp.div %c, %d : tensor<2x4xf32>, tensor<2x1xf32>
  %y = amp.layer_norm %x {epsilon = 1.0e-05} : tensor<2x4xf32>
  return %mean, %dev, %zero, %rms, %h, %y
      : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>,
        tensor<2x4xf32>, tensor<2x4xf32>
}
