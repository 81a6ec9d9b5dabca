// Overrides: the per-op attribute, and the allow/deny option lists.
// RUN: amp-opt %s --amp-autocast -split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-autocast="allow=amp.softmax deny=amp.matmul" -split-input-file | FileCheck %s --check-prefix=LISTS

// amp.precision = f32 keeps one matmul in f32; amp.precision = f16 puts a
// softmax in f16. The attribute wins over the option lists too.
// CHECK-LABEL: func.func @attribute
// CHECK: amp.matmul %{{.*}}, %{{.*}} {amp.precision = f32} : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
// CHECK: amp.softmax %{{.*}} dim = 1 {amp.precision = f16} : tensor<4x4xf16>
// LISTS-LABEL: func.func @attribute
// LISTS: amp.matmul %{{.*}}, %{{.*}} {amp.precision = f32} : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
// LISTS: amp.softmax %{{.*}} dim = 1 {amp.precision = f16} : tensor<4x4xf16>
func.func @attribute(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = amp.matmul %x, %x {amp.precision = f32} : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %s = amp.softmax %m dim = 1 {amp.precision = f16} : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// deny=amp.matmul keeps every matmul in f32; allow=amp.softmax runs
// softmax in f16.
// CHECK-LABEL: func.func @lists
// CHECK: amp.matmul {{.*}} to tensor<4x4xf16>
// CHECK: amp.softmax %{{.*}} dim = 1 : tensor<4x4xf32>
// LISTS-LABEL: func.func @lists
// LISTS: amp.matmul %{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
// LISTS: %[[H:.*]] = amp.cast %{{.*}} : tensor<4x4xf32> to tensor<4x4xf16>
// LISTS: amp.softmax %[[H]] dim = 1 : tensor<4x4xf16>
func.func @lists(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %s = amp.softmax %m dim = 1 : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
