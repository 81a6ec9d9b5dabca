// Each function argument gets its SSA name from this file as amp.name;
// a name given already is kept, and no name is given twice
// (amp-name-arguments-clash.mlir).
// RUN: amp-opt %s --amp-name-arguments | FileCheck %s
// The names survive printing: a second run from a pipe changes nothing.
// RUN: amp-opt %s --amp-name-arguments | amp-opt --amp-name-arguments | FileCheck %s
// From standard input there is no file to read the names from.
// RUN: amp-opt --amp-name-arguments < %s | FileCheck %s --check-prefix=STDIN

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%{{[^:]*}}: tensor<2x4xf32> {amp.name = "x"}, %{{[^:]*}}: tensor<2xi64> {amp.name = "labels"},
// CHECK-SAME: %{{[^:]*}}: tensor<4x3xf32> {amp.name = "w1", amp.param}, %{{[^:]*}}: tensor<3xf32> {amp.name = "b_1.bias$-x", amp.param})
// STDIN-LABEL: func.func @mlp
// STDIN-SAME: (%{{[^:]*}}: tensor<2x4xf32>, %{{[^:]*}}: tensor<2xi64>, %{{[^:]*}}: tensor<4x3xf32> {amp.param}, %{{[^:]*}}: tensor<3xf32> {amp.param})
func.func @mlp(%x: tensor<2x4xf32>, %labels: tensor<2xi64>,
               %w1: tensor<4x3xf32> {amp.param}, %b_1.bias$-x: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %h = amp.matmul %x, %w1 : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %z = amp.add %h, %b_1.bias$-x : tensor<2x3xf32>, tensor<3xf32>
  %l = amp.cross_entropy %z, %labels : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %l : tensor<f32>
}

// A name given in the source is kept.
// CHECK-LABEL: func.func @given
// CHECK-SAME: (%{{[^:]*}}: tensor<4xf32> {amp.name = "w"}, %{{[^:]*}}: tensor<4xf32> {amp.name = "v"})
func.func @given(%a: tensor<4xf32> {amp.name = "w"}, %v: tensor<4xf32>) {
  return
}

// Declarations have no SSA names.
// CHECK-LABEL: func.func private @declared(tensor<4xf32>)
func.func private @declared(tensor<4xf32>)
