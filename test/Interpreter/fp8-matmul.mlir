// amp.matmul as an FP8 GEMM with current (tensorwise) scaling, against
// values worked by hand. x = [[1, 3]], w = [[0.5], [0.1]] (x w = 0.8 in f32):
//  - x in e4m3: amax 3, s = f32(448 / 3) = 149.33333; x s = [149.33, 448],
//    which e4m3 (quanta 16 in [128, 256), 32 in [256, 448]) rounds to
//    [144, 448].
//  - w in e4m3: amax 0.5, s = 896; w s = [448, 89.6], rounded to [448, 88]
//    (quanta 8 in [64, 128)).
//  - the sum 144 * 448 + 448 * 88 = 103936, times f32(1 / 149.33333) *
//    f32(1 / 896) = 0.0066964286 * 0.0011160715: 0.7767858 (f32;
//    0.776785791 to 9 digits).
//  - w in e5m2 instead: s = 57344 / 0.5 = 114688; w s = [57344, 11468.8],
//    rounded to [57344, 12288] (quanta 2048 in [8192, 16384)); the sum
//    144 * 57344 + 448 * 12288 = 13762560, times the inverse scales:
//    0.80357146 (0.803571463 printed to 9 digits).
// A NaN in an operand makes its amax, scale and every product NaN.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 1x2 1 3
// RUN: %python %S/Inputs/make_npy.py %t/w.npy '<f4' 2x1 0.5 0.1
// RUN: %python %S/Inputs/make_npy.py %t/nan.npy '<f4' 1x2 1 nan
// RUN: amp-run %s --function=e4m3 --input=%t/x.npy --input=%t/w.npy | FileCheck %s --check-prefix=E4M3
// RUN: amp-run %s --function=e5m2 --input=%t/x.npy --input=%t/w.npy | FileCheck %s --check-prefix=E5M2
// RUN: amp-run %s --function=plain --input=%t/x.npy --input=%t/w.npy | FileCheck %s --check-prefix=PLAIN
// RUN: amp-run %s --function=e4m3 --input=%t/nan.npy --input=%t/w.npy | FileCheck %s --check-prefix=NAN

// E4M3: result #0: tensor<1x1xf32> = [0.776785791]
// E5M2: result #0: tensor<1x1xf32> = [0.803571463]
// PLAIN: result #0: tensor<1x1xf32> = [0.800000012]
// NAN: result #0: tensor<1x1xf32> = [nan]

func.func @e4m3(%x: tensor<1x2xf32>, %w: tensor<2x1xf32>) -> tensor<1x1xf32> {
  %y = amp.matmul %x, %w {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<1x2xf32>, tensor<2x1xf32> to tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

func.func @e5m2(%x: tensor<1x2xf32>, %w: tensor<2x1xf32>) -> tensor<1x1xf32> {
  %y = amp.matmul %x, %w {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E5M2} : tensor<1x2xf32>, tensor<2x1xf32> to tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

func.func @plain(%x: tensor<1x2xf32>, %w: tensor<2x1xf32>) -> tensor<1x1xf32> {
  %y = amp.matmul %x, %w : tensor<1x2xf32>, tensor<2x1xf32> to tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}
