// Errors the pass reports at an op of the input.
// RUN: amp-opt %s --amp-autocast=compute-type=bf16 -split-input-file -verify-diagnostics

func.func @forced_other_half_type(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'amp.gelu' op forces 'f16' but the compute type is 'bf16'}}
  %g = amp.gelu %x {amp.precision = f16} : tensor<2x2xf32>
  return %g : tensor<2x2xf32>
}

// -----

// Multi-block functions are out of scope of the pass.
// expected-error @+1 {{amp-autocast handles single-block functions only}}
func.func @two_blocks(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  cf.br ^next
^next:
  return %x : tensor<2x2xf32>
}
