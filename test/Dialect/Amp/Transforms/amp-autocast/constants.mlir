// Constants: converted in place when exact, kept in f32 when not.
// RUN: amp-opt %s --amp-autocast -split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-autocast=remarks=true -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// 0.25 is exact in f16: the scale multiply between two matmuls reads an f16
// constant, no cast.
// CHECK-LABEL: func.func @exact_constant
// REMARK: remark: amp-autocast: f16, between lower-precision ops
// CHECK-NOT: dense<2.500000e-01> : tensor<f32>
// CHECK: %[[C:.*]] = amp.constant dense<2.500000e-01> : tensor<f16>
// CHECK: amp.mul %{{.*}}, %[[C]] : tensor<4x4xf16>, tensor<f16>
// CHECK-NOT: amp.cast %[[C]]
func.func @exact_constant(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = amp.constant dense<0.25> : tensor<f32>
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %s = amp.mul %m, %c : tensor<4x4xf32>, tensor<f32>
  %o = amp.matmul %s, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}

// -----

// -1e9 is beyond f16 (it would become -inf): the constant stays f32 and
// keeps its consumer in f32, even between two matmuls.
// CHECK-LABEL: func.func @mask_constant_kept
// REMARK: remark: amp-autocast: constant kept in f32: a value of the constant is not exactly representable in f16 (-1.0E+9 would become -Inf)
// REMARK: remark: amp-autocast: f32, f32 constant input 'amp.constant'
// CHECK: %[[C:.*]] = amp.constant dense<-1.000000e+09> : tensor<f32>
// CHECK: %[[M:.*]] = amp.matmul {{.*}} to tensor<4x4xf16>
// CHECK: %[[MF:.*]] = amp.cast %[[M]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: amp.select %{{.*}}, %[[MF]], %[[C]] : tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>
// CHECK-NOT: 0xFC00
func.func @mask_constant_kept(%x: tensor<4x4xf32>, %keep: tensor<4x4xi1>) -> tensor<4x4xf32> {
  %c = amp.constant dense<-1.0e9> : tensor<f32>
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %s = amp.select %keep, %m, %c : tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>
  %o = amp.matmul %s, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}

// -----

// 0.1 is inexact in f16 (0.0999755859375): kept in f32 as well.
// CHECK-LABEL: func.func @inexact_constant_kept
// REMARK: remark: amp-autocast: constant kept in f32: a value of the constant is not exactly representable in f16 (0.100000001 would become 0.099976)
// CHECK: amp.constant dense<1.000000e-01> : tensor<f32>
func.func @inexact_constant_kept(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = amp.constant dense<0.1> : tensor<f32>
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %s = amp.mul %m, %c : tensor<4x4xf32>, tensor<f32>
  return %s : tensor<4x4xf32>
}

// -----

// -inf is exact in f16: a causal mask constant is converted and the
// masking stays in f16 up to the softmax.
// CHECK-LABEL: func.func @infinite_mask_exact
// CHECK: %[[C:.*]] = amp.constant dense<0xFC00> : tensor<f16>
// CHECK: %[[S:.*]] = amp.select %{{.*}}, %{{.*}}, %[[C]] : tensor<4x4xi1>, tensor<4x4xf16>, tensor<f16>
// CHECK: %[[SF:.*]] = amp.cast %[[S]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: amp.softmax %[[SF]]
func.func @infinite_mask_exact(%x: tensor<4x4xf32>, %keep: tensor<4x4xi1>) -> tensor<4x4xf32> {
  %c = amp.constant dense<0xFF800000> : tensor<f32>
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %s = amp.select %keep, %m, %c : tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>
  %p = amp.softmax %s dim = 1 : tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}
