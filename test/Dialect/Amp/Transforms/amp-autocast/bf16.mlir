// compute-type=bf16: the same placement with bf16, whose range holds
// constants f16 cannot.
// RUN: amp-opt %s --amp-autocast=compute-type=bf16 | FileCheck %s

// CHECK-LABEL: func.func @bf16
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32> {amp.name = "x"}, %[[B:.*]]: tensor<4xf32> {amp.name = "b", amp.param})
// CHECK-DAG: %[[XB:.*]] = amp.cast %[[X]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK-DAG: %[[BB:.*]] = amp.cast %[[B]] : tensor<4xf32> to tensor<4xbf16>
// -1e9 is not exact in bf16 either (bf16 holds 8 significant bits): kept.
// CHECK-DAG: %[[C:.*]] = amp.constant dense<-1.000000e+09> : tensor<f32>
// 65536 is exact in bf16 (beyond the f16 range): converted.
// CHECK-DAG: %[[BIG:.*]] = amp.constant dense<6.553600e+04> : tensor<bf16>
// The bias add joins the matmul (one rounding).
// CHECK: %[[M:.*]] = amp.matmul %[[XB]], %[[XB]] bias %[[BB]] {acc_type = f32} : tensor<4x4xbf16>, tensor<4x4xbf16>, tensor<4xbf16> to tensor<4x4xbf16>
// CHECK: %[[S:.*]] = amp.mul %[[M]], %[[BIG]] : tensor<4x4xbf16>, tensor<bf16>
// CHECK: amp.matmul %[[S]], %[[XB]] {acc_type = f32} : tensor<4x4xbf16>, tensor<4x4xbf16> to tensor<4x4xbf16>
func.func @bf16(%x: tensor<4x4xf32>, %b: tensor<4xf32> {amp.param}) -> (tensor<4x4xf32>, tensor<f32>) {
  %c = amp.constant dense<-1.0e9> : tensor<f32>
  %big = amp.constant dense<65536.0> : tensor<f32>
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %a = amp.add %m, %b : tensor<4x4xf32>, tensor<4xf32>
  %s = amp.mul %a, %big : tensor<4x4xf32>, tensor<f32>
  %o = amp.matmul %s, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  return %o, %c : tensor<4x4xf32>, tensor<f32>
}
