// --check-finite names the first op that creates an inf or NaN, and exits 2.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/a.npy '<f2' 2 65504 1
// RUN: %python %S/Inputs/make_npy.py %t/b.npy '<f2' 2 32 2
// RUN: sh -c 'amp-run %s --function=overflow --input=%t/a.npy --input=%t/b.npy --check-finite 2>&1; echo "exit code $?"' | FileCheck %s --check-prefix=OVERFLOW
// Without the flag the run goes through and prints the inf.
// RUN: amp-run %s --function=overflow --input=%t/a.npy --input=%t/b.npy | FileCheck %s --check-prefix=PLAIN
// RUN: amp-run %s --function=masked_softmax --random-inputs=1 --check-finite | FileCheck %s --check-prefix=MASKED
// RUN: sh -c 'amp-run %s --function=all_masked --random-inputs=1 --check-finite 2>&1; echo "exit code $?"' | FileCheck %s --check-prefix=ALLMASKED
// RUN: %python %S/Inputs/make_npy.py %t/nan.npy '<f4' 3 1 nan 2
// RUN: sh -c 'amp-run %s --function=identity --input=%t/nan.npy --check-finite 2>&1; echo "exit code $?"' | FileCheck %s --check-prefix=ARG

// 65504 + 32 = 65536 lies beyond the fp16 tie at 65520: inf.
// OVERFLOW: check-finite.mlir:[[# @LINE + 6]]:8: error: first non-finite value: 'amp.add' produced inf at [0] of result #0 (1 of 2 elements non-finite)
// OVERFLOW: note: operand #0 ('tensor<2xf16>') is finite, largest magnitude 6.550400e+04
// OVERFLOW: note: operand #1 ('tensor<2xf16>') is finite, largest magnitude 3.200000e+01
// OVERFLOW: exit code 2
// PLAIN: result #0: tensor<2xf16> = [inf, 3]
func.func @overflow(%a: tensor<2xf16>, %b: tensor<2xf16>) -> tensor<2xf16> {
  %s = amp.add %a, %b : tensor<2xf16>, tensor<2xf16>
  return %s : tensor<2xf16>
}

// A -inf mask is a literal passed along by select; softmax turns it into
// zeros. Nothing is reported.
// MASKED: result #0: tensor<2x2xf32> = [1, 0,
// MASKED: check-finite: no op produced a non-finite value
func.func @masked_softmax(%scores: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %row = amp.iota dim = 0 : tensor<2x2xi64>
  %col = amp.iota dim = 1 : tensor<2x2xi64>
  %causal = amp.compare ge, %row, %col : tensor<2x2xi64>, tensor<2x2xi64>
  %ninf = amp.constant dense<0xFF800000> : tensor<f32>
  %masked = amp.select %causal, %scores, %ninf : tensor<2x2xi1>, tensor<2x2xf32>, tensor<f32>
  %p = amp.softmax %masked dim = 1 : tensor<2x2xf32>
  return %p : tensor<2x2xf32>
}

// A row masked entirely: softmax computes -inf - (-inf) = NaN. The NaN is
// new (its input held only -inf), so softmax is the op reported.
// ALLMASKED: error: first non-finite value: 'amp.softmax' produced nan at [0, 0] of result #0 (4 of 4 elements non-finite)
// ALLMASKED: note: operand #0 ('tensor<2x2xf32>') holds 4 non-finite values, the first at [0, 0]
// ALLMASKED: exit code 2
func.func @all_masked(%scores: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %none = amp.constant dense<false> : tensor<2x2xi1>
  %ninf = amp.constant dense<0xFF800000> : tensor<f32>
  %masked = amp.select %none, %scores, %ninf : tensor<2x2xi1>, tensor<2x2xf32>, tensor<f32>
  %p = amp.softmax %masked dim = 1 : tensor<2x2xf32>
  return %p : tensor<2x2xf32>
}

// ARG: error: first non-finite value: argument #0 holds 1 non-finite values, the first at [1]
// ARG: exit code 2
func.func @identity(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
