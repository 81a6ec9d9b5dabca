// Each way amp-evaluation refuses a function or an output, with the
// reason at the function. The names come from this file, read whole: one
// function per RUN line, no split input.
// RUN: not amp-opt %s --amp-evaluation="function=mlp outputs=logits" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amp-opt %s --amp-evaluation="function=mlp outputs=loss" 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not amp-opt %s --amp-evaluation="function=mlp outputs=z,z" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not amp-opt %s --amp-evaluation="function=vector" 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not amp-opt %s --amp-evaluation="function=f" 2>&1 | FileCheck %s --check-prefix=EXISTS
// RUN: not amp-opt %s --amp-evaluation="function=nothing" 2>&1 | FileCheck %s --check-prefix=MISSING
// From standard input no name can be found.
// RUN: not amp-opt --amp-evaluation="function=mlp outputs=z" < %s 2>&1 | FileCheck %s --check-prefix=STDIN

// UNKNOWN: invalid.mlir:[[# @LINE + 6]]:1: error: amp-evaluation: @mlp defines no value named 'logits' in its source (it defines: loss, z)
// LOSS: invalid.mlir:[[# @LINE + 5]]:1: error: amp-evaluation: the loss is always the first result; 'loss' names no other output
// TWICE: invalid.mlir:[[# @LINE + 4]]:1: error: amp-evaluation: output 'z' is named twice
// STDIN: error: amp-evaluation: @mlp defines no value named 'z' in its source (its ops have no source positions or module paths to name them by)
// MISSING: error: amp-evaluation: no function named @nothing
// MISSING-NOT: error
func.func @mlp(%x: tensor<2x3xf32>, %w: tensor<3xf32> {amp.param},
               %labels: tensor<2xi64>) -> tensor<f32> {
  %z = amp.add %x, %w : tensor<2x3xf32>, tensor<3xf32>
  %loss = amp.cross_entropy %z, %labels : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %loss : tensor<f32>
}

// VECTOR: invalid.mlir:[[# @LINE + 1]]:1: error: amp-evaluation: @vector must return its loss, a 0-d floating-point tensor, first
func.func @vector(%w: tensor<3xf32> {amp.param}) -> tensor<3xf32> {
  %logits = amp.neg %w : tensor<3xf32>
  return %logits : tensor<3xf32>
}

// EXISTS: invalid.mlir:[[# @LINE + 1]]:1: error: amp-evaluation: @f_eval already exists
func.func @f(%w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %logits = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %logits : tensor<f32>
}
func.func @f_eval() {
  return
}
