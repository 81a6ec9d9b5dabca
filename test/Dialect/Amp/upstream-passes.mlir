// The upstream passes amp-opt registers work on amp graphs: a helper
// function is inlined, the duplicate computation it leaves is merged, and
// the dead helper is removed.
// RUN: amp-opt %s -inline -cse -symbol-dce | FileCheck %s

// CHECK-NOT: func.func private @linear
func.func private @linear(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %y = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @model
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<4x3xf32> {amp.param})
// CHECK-NEXT: %[[Y:.*]] = amp.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[S:.*]] = amp.add %[[Y]], %[[Y]]
// CHECK-NEXT: return %[[S]]
func.func @model(%x: tensor<2x4xf32>, %w: tensor<4x3xf32> {amp.param}) -> tensor<2x3xf32> {
  %a = func.call @linear(%x, %w) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %b = func.call @linear(%x, %w) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %s = amp.add %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
