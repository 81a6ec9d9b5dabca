// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The dialect's typed attributes print as they parse, in the custom and
// the generic form.

// A fusion's kernel prints before its inputs, in the generic form as the
// #amp.kernel it is.
// CHECK-LABEL: func.func @kernels
// CHECK: amp.fusion<gemm, root = 0>(
// CHECK: amp.fusion<loop, root = 1>(
// GENERIC-LABEL: sym_name = "kernels"
// GENERIC: "amp.fusion"(%{{.*}}, %{{.*}}, %{{.*}}) <{kernel = #amp.kernel<gemm, root = 0>}>
// GENERIC: "amp.fusion"(%{{.*}}) <{kernel = #amp.kernel<loop, root = 1>}>
func.func @kernels(%a: tensor<2x2xf32>, %b: tensor<2xf32>) -> tensor<2x2xf32> {
  %c = amp.fusion<gemm, root = 0>(%x = %a, %y = %a, %z = %b) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32> {
    %0 = amp.matmul %x, %y bias %z : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32> to tensor<2x2xf32>
    %1 = amp.relu %0 : tensor<2x2xf32>
    amp.yield %1 : tensor<2x2xf32>
  }
  %d = amp.fusion<loop, root = 1>(%x = %c) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = amp.neg %x : tensor<2x2xf32>
    %1 = amp.exp %0 : tensor<2x2xf32>
    amp.yield %1 : tensor<2x2xf32>
  }
  return %d : tensor<2x2xf32>
}

// An evaluation names its results and the function it evaluates.
// CHECK-LABEL: func.func private @f_eval(tensor<4xf32>) -> (tensor<f32> {amp.name = "loss"}, tensor<4xf32> {amp.name = "logits"}) attributes {amp.evaluation_of = @f}
// GENERIC-LABEL: sym_name = "f_eval"
func.func private @f_eval(tensor<4xf32>) -> (tensor<f32> {amp.name = "loss"}, tensor<4xf32> {amp.name = "logits"}) attributes {amp.evaluation_of = @f}

// CHECK-LABEL: func.func @places
func.func @places(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 0>, #amp.place<arena 9223372036854775807>, #amp.place<arg 0>]}
  %a:3 = amp.fusion(%in = %x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) attributes {amp.place = [#amp.place<arena 0>, #amp.place<arena 9223372036854775807>, #amp.place<arg 0>]} {
    %0 = amp.neg %in : tensor<2xf32>
    %1 = amp.exp %0 : tensor<2xf32>
    %2 = amp.abs %1 : tensor<2xf32>
    amp.yield %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  // CHECK: amp.reshape {{.*}}{amp.place = [#amp.place<view>]}
  %e = amp.reshape %a#2 {amp.place = [#amp.place<view>]} : tensor<2xf32> to tensor<2x1xf32>
  // CHECK: amp.reshape {{.*}}{amp.place = [#amp.place<arena 256>]}
  %f = amp.reshape %e {amp.place = [#amp.place<arena 256>]} : tensor<2x1xf32> to tensor<2xf32>
  return %f : tensor<2xf32>
}

// CHECK-LABEL: func.func @memory
// CHECK-SAME: amp.memory = #amp.memory<arena = 512, arguments = 92, peak = 604, peak_f32 = 1208>
func.func @memory(%x: tensor<2xf32>) -> tensor<2xf32> attributes {amp.memory = #amp.memory<arena = 512, arguments = 92, peak = 604, peak_f32 = 1208>} {
  return %x : tensor<2xf32>
}

// The settings print in one order (mode, init_scale, the dynamic settings,
// the clamps) whatever order they were written in, scales and factors as
// f64 in full precision.
// CHECK-LABEL: func.func @loss_scaling_dynamic
// CHECK-SAME: amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 6.553600e+04, growth_factor = 2.000000e+00, backoff_factor = 5.000000e-01, growth_interval = 2000, hysteresis = 1>
// GENERIC-LABEL: sym_name = "loss_scaling_dynamic"
// GENERIC: amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 6.553600e+04, growth_factor = 2.000000e+00, backoff_factor = 5.000000e-01, growth_interval = 2000, hysteresis = 1>
func.func @loss_scaling_dynamic() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, hysteresis = 1, growth_factor = 2.0, init_scale = 65536.0, growth_interval = 2000, backoff_factor = 0.5>} {
  return
}

// CHECK-LABEL: func.func @loss_scaling_clamped
// CHECK-SAME: amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 1.024000e+03, growth_factor = 1.500000e+00, backoff_factor = 2.500000e-01, growth_interval = 16777216, hysteresis = 3, min_scale = 1.000000e+00, max_scale = 1.000000e+10>
// GENERIC-LABEL: sym_name = "loss_scaling_clamped"
// GENERIC: amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 1.024000e+03, growth_factor = 1.500000e+00, backoff_factor = 2.500000e-01, growth_interval = 16777216, hysteresis = 3, min_scale = 1.000000e+00, max_scale = 1.000000e+10>
func.func @loss_scaling_clamped() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 1024.0, growth_factor = 1.5, backoff_factor = 0.25, growth_interval = 16777216, hysteresis = 3, min_scale = 1.0, max_scale = 1.0e10>} {
  return
}

// A value that %e with six digits would round prints in full.
// CHECK-LABEL: func.func @loss_scaling_static
// CHECK-SAME: amp.loss_scaling = #amp.loss_scaling<static, init_scale = 3.1415926535897931>
// GENERIC-LABEL: sym_name = "loss_scaling_static"
// GENERIC: amp.loss_scaling = #amp.loss_scaling<static, init_scale = 3.1415926535897931>
func.func @loss_scaling_static() attributes {amp.loss_scaling = #amp.loss_scaling<static, init_scale = 3.14159265358979311600> } {
  return
}
