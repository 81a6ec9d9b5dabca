// RUN: amp-opt %s | amp-opt | FileCheck %s

// The backend's typed attributes print as they parse.

// CHECK-LABEL: func.func @epilogues
func.func @epilogues(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK: amp.matmul {{.*}}{amp.epilogue = #amp.epilogue<bias>}
  %b = amp.matmul %a, %a {amp.epilogue = #amp.epilogue<bias>} : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  // CHECK: amp.matmul {{.*}}{amp.epilogue = #amp.epilogue<bias_relu>}
  %c = amp.matmul %b, %a {amp.epilogue = #amp.epilogue<bias_relu>} : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @places
func.func @places(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: amp.neg {{.*}}{amp.place = [#amp.place<arena 0>]}
  %a = amp.neg %x {amp.place = [#amp.place<arena 0>]} : tensor<2xf32>
  // CHECK: amp.neg {{.*}}{amp.place = [#amp.place<arena 9223372036854775807>]}
  %b = amp.neg %a {amp.place = [#amp.place<arena 9223372036854775807>]} : tensor<2xf32>
  // CHECK: amp.neg {{.*}}{amp.place = [#amp.place<arg 0>]}
  %c = amp.neg %b {amp.place = [#amp.place<arg 0>]} : tensor<2xf32>
  // CHECK: amp.neg {{.*}}{amp.place = [#amp.place<fused>]}
  %d = amp.neg %c {amp.place = [#amp.place<fused>]} : tensor<2xf32>
  // CHECK: amp.reshape {{.*}}{amp.place = [#amp.place<view>]}
  %e = amp.reshape %d {amp.place = [#amp.place<view>]} : tensor<2xf32> to tensor<2x1xf32>
  // CHECK: amp.reshape {{.*}}{amp.place = [#amp.place<arena 256>]}
  %f = amp.reshape %e {amp.place = [#amp.place<arena 256>]} : tensor<2x1xf32> to tensor<2xf32>
  return %f : tensor<2xf32>
}

// CHECK-LABEL: func.func @memory
// CHECK-SAME: amp.memory = #amp.memory<arena = 512, arguments = 92, peak = 604, peak_f32 = 1208>
func.func @memory(%x: tensor<2xf32>) -> tensor<2xf32> attributes {amp.memory = #amp.memory<arena = 512, arguments = 92, peak = 604, peak_f32 = 1208>} {
  return %x : tensor<2xf32>
}
