// Delayed FP8 scaling in the interpreter, against values worked by hand.
//
// An FP8 GEMM reading its scales: x = [[1, 3]], w = [[0.5], [0.1]].
//  - scales [64, 512]: x s = [64, 192], both e4m3 values; w s = [256, 51.2],
//    rounded to [256, 52] (quanta 4 in [32, 64)). The sum 64 * 256 +
//    192 * 52 = 26368, times f32(1 / 64) * f32(1 / 512) = 2^-15: 0.8046875.
//  - scales [256, 512]: x s = [256, 768], and 768 saturates to 448 (an
//    overflow, which the GEMM does not see): 256 * 256 + 448 * 52 = 88832,
//    times 2^-17: 0.677734375.
//
// The state's update, two columns (e4m3, e5m2), a history of 3 rows:
// scale [2, 1], history [[0, 0], [5, 100], [7, 50]], amax [300, 60000].
//  - overflows: 300 * 2 = 600 > 448 and 60000 * 1 > 57344: both count one.
//  - the history's maxima with this step's amax in row 0: 300 and 60000;
//    scales f32(448 / 300) = 1.49333334 and f32(57344 / 60000) =
//    0.955733359.
//  - rolled: row 1 takes row 2's [7, 50], row 2 row 0's [300, 60000],
//    row 0 becomes 0.
//  - most_recent with margin 1: 224 / 300 = 0.74666667 and
//    28672 / 60000 = 0.477866679 (the same amax here; the history is not
//    read).
// The same product of operands cast before (amp.fp8_cast, as amp-fp8-casts
// places it): the same value. The cast of [[1, 3], [0.5, -700]] at scale
// 64: [64, 192, 32, -44800], the last saturated to -448; its transpose;
// and the amax, 700.
// An amax of 0 keeps the scale (3 stays 3, no overflow). A NaN amax counts
// as an overflow; the maximum skips it (the history's 7 gives 448 / 7 = 64)
// and the history keeps it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 1x2 1 3
// RUN: %python %S/Inputs/make_npy.py %t/w.npy '<f4' 2x1 0.5 0.1
// RUN: %python %S/Inputs/make_npy.py %t/s1.npy '<f4' 3 64 512 1
// RUN: %python %S/Inputs/make_npy.py %t/s2.npy '<f4' 3 256 512 1
// RUN: amp-run %s --function=gemm --input=%t/x.npy --input=%t/w.npy --input=%t/s1.npy | FileCheck %s --check-prefix=GEMM1
// RUN: amp-run %s --function=gemm --input=%t/x.npy --input=%t/w.npy --input=%t/s2.npy | FileCheck %s --check-prefix=GEMM2
// RUN: amp-run %s --function=gemm_of_casts --input=%t/x.npy --input=%t/w.npy --input=%t/s1.npy | FileCheck %s --check-prefix=GEMM1
// RUN: %python %S/Inputs/make_npy.py %t/c.npy '<f4' 2x2 1 3 0.5 -700
// RUN: amp-run %s --function=cast --input=%t/c.npy --input=%t/s1.npy | FileCheck %s --check-prefix=CAST
// RUN: %python %S/Inputs/make_npy.py %t/scale.npy '<f4' 2 2 1
// RUN: %python %S/Inputs/make_npy.py %t/history.npy '<f4' 3x2 0 0 5 100 7 50
// RUN: %python %S/Inputs/make_npy.py %t/zeros.npy '<f4' 2 0 0
// RUN: %python %S/Inputs/make_npy.py %t/a300.npy '<f4' scalar 300
// RUN: %python %S/Inputs/make_npy.py %t/a60000.npy '<f4' scalar 60000
// RUN: amp-run %s --function=update --input=%t/scale.npy --input=%t/history.npy --input=%t/zeros.npy --input=%t/a300.npy --input=%t/a60000.npy | FileCheck %s --check-prefix=UPDATE
// RUN: amp-run %s --function=recent --input=%t/scale.npy --input=%t/history.npy --input=%t/zeros.npy --input=%t/a300.npy --input=%t/a60000.npy | FileCheck %s --check-prefix=RECENT
// RUN: %python %S/Inputs/make_npy.py %t/s3.npy '<f4' 1 3
// RUN: %python %S/Inputs/make_npy.py %t/h0.npy '<f4' 2x1 0 0
// RUN: %python %S/Inputs/make_npy.py %t/h7.npy '<f4' 2x1 0 7
// RUN: %python %S/Inputs/make_npy.py %t/o0.npy '<f4' 1 0
// RUN: %python %S/Inputs/make_npy.py %t/a0.npy '<f4' scalar 0
// RUN: %python %S/Inputs/make_npy.py %t/anan.npy '<f4' scalar nan
// RUN: amp-run %s --function=single --input=%t/s3.npy --input=%t/h0.npy --input=%t/o0.npy --input=%t/a0.npy | FileCheck %s --check-prefix=ZERO
// RUN: amp-run %s --function=single --input=%t/s3.npy --input=%t/h7.npy --input=%t/o0.npy --input=%t/anan.npy | FileCheck %s --check-prefix=NAN

// GEMM1: result #0: tensor<1x1xf32> = [0.8046875]
// GEMM2: result #0: tensor<1x1xf32> = [0.677734375]
// CAST: result #0: tensor<2x2xf8E4M3FN> = [64, 192, 32, -448]
// CAST: result #1: tensor<2x2xf8E4M3FN> = [64, 32, 192, -448]
// CAST: result #2: tensor<f32> = [700]
// UPDATE: result #0: tensor<2xf32> = [1.49333334, 0.955733359]
// UPDATE: result #1: tensor<3x2xf32> = [0, 0, 7, 50, 300, 60000]
// UPDATE: result #2: tensor<2xf32> = [1, 1]
// RECENT: result #0: tensor<2xf32> = [0.74666667, 0.477866679]
// ZERO: result #0: tensor<1xf32> = [3]
// ZERO: result #1: tensor<2x1xf32> = [0, 0]
// ZERO: result #2: tensor<1xf32> = [0]
// NAN: result #0: tensor<1xf32> = [64]
// NAN: result #1: tensor<2x1xf32> = [0, nan]
// NAN: result #2: tensor<1xf32> = [1]

func.func @gemm(%x: tensor<1x2xf32>, %w: tensor<2x1xf32>, %s: tensor<3xf32>) -> tensor<1x1xf32> {
  %y = amp.matmul %x, %w scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, fp8_scale_index = array<i64: 0, 1>} : tensor<1x2xf32>, tensor<2x1xf32> scales tensor<3xf32> to tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

func.func @update(%s: tensor<2xf32>, %h: tensor<3x2xf32>, %o: tensor<2xf32>, %a: tensor<f32>, %b: tensor<f32>)
    -> (tensor<2xf32>, tensor<3x2xf32>, tensor<2xf32>) {
  %0:3 = amp.fp8_scaling_update %s, %h, %o, amax(%a, %b : tensor<f32>, tensor<f32>) {formats = [f8E4M3FN, f8E5M2], margin = 0.0} : tensor<2xf32>, tensor<3x2xf32>
  return %0#0, %0#1, %0#2 : tensor<2xf32>, tensor<3x2xf32>, tensor<2xf32>
}

func.func @recent(%s: tensor<2xf32>, %h: tensor<3x2xf32>, %o: tensor<2xf32>, %a: tensor<f32>, %b: tensor<f32>)
    -> tensor<2xf32> {
  %0:3 = amp.fp8_scaling_update %s, %h, %o, amax(%a, %b : tensor<f32>, tensor<f32>) {formats = [f8E4M3FN, f8E5M2], margin = 1.0, most_recent} : tensor<2xf32>, tensor<3x2xf32>
  return %0#0 : tensor<2xf32>
}

func.func @single(%s: tensor<1xf32>, %h: tensor<2x1xf32>, %o: tensor<1xf32>, %a: tensor<f32>)
    -> (tensor<1xf32>, tensor<2x1xf32>, tensor<1xf32>) {
  %0:3 = amp.fp8_scaling_update %s, %h, %o, amax(%a : tensor<f32>) {formats = [f8E4M3FN], margin = 0.0} : tensor<1xf32>, tensor<2x1xf32>
  return %0#0, %0#1, %0#2 : tensor<1xf32>, tensor<2x1xf32>, tensor<1xf32>
}

func.func @gemm_of_casts(%x: tensor<1x2xf32>, %w: tensor<2x1xf32>, %s: tensor<3xf32>) -> tensor<1x1xf32> {
  %qx, %qxt, %ax = amp.fp8_cast %x, %s {fp8_scale_index = 0 : i64, format = f8E4M3FN} : tensor<1x2xf32>, tensor<3xf32> to tensor<1x2xf8E4M3FN>, tensor<2x1xf8E4M3FN>
  %qw, %qwt, %aw = amp.fp8_cast %w, %s {fp8_scale_index = 1 : i64, format = f8E4M3FN} : tensor<2x1xf32>, tensor<3xf32> to tensor<2x1xf8E4M3FN>, tensor<1x2xf8E4M3FN>
  %y = amp.matmul %qx, %qwt scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, transpose_rhs, fp8_scale_index = array<i64: 0, 1>} : tensor<1x2xf8E4M3FN>, tensor<1x2xf8E4M3FN> scales tensor<3xf32> to tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

func.func @cast(%x: tensor<2x2xf32>, %s: tensor<3xf32>) -> (tensor<2x2xf8E4M3FN>, tensor<2x2xf8E4M3FN>, tensor<f32>) {
  %q, %qt, %a = amp.fp8_cast %x, %s {fp8_scale_index = 0 : i64, format = f8E4M3FN} : tensor<2x2xf32>, tensor<3xf32> to tensor<2x2xf8E4M3FN>, tensor<2x2xf8E4M3FN>
  return %q, %qt, %a : tensor<2x2xf8E4M3FN>, tensor<2x2xf8E4M3FN>, tensor<f32>
}
