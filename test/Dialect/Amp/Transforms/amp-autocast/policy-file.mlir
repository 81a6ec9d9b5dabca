// A policy file moves ops to other categories; JSON and YAML read the same.
// The allow/deny options win over the file.
// RUN: amp-opt %s --amp-autocast="policy=%S/Inputs/policy.yaml" | FileCheck %s
// RUN: amp-opt %s --amp-autocast="policy=%S/Inputs/policy.json" | FileCheck %s
// RUN: amp-opt %s --amp-autocast="policy=%S/Inputs/policy.json deny=amp.softmax" | FileCheck %s --check-prefix=OPTION

// CHECK-LABEL: func.func @policy
// CHECK: %[[M:.*]] = amp.matmul {{.*}} to tensor<4x4xf16>
// CHECK: %[[MF:.*]] = amp.cast %[[M]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: amp.gelu %[[MF]] : tensor<4x4xf32>
// CHECK: amp.softmax %[[M]] dim = 1 : tensor<4x4xf16>
// OPTION: amp.softmax %{{.*}} dim = 1 : tensor<4x4xf32>
func.func @policy(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %g = amp.gelu %m : tensor<4x4xf32>
  %s = amp.softmax %m dim = 1 : tensor<4x4xf32>
  return %g, %s : tensor<4x4xf32>, tensor<4x4xf32>
}
