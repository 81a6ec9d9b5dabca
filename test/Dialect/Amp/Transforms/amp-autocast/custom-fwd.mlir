// Functions with their own backward (amp.custom_vjp) under autocast, as
// PyTorch's custom_fwd and custom_bwd: without amp.cast_inputs the function
// and its backward are cast as any function (a custom_fwd forward runs
// under the surrounding autocast state, its custom_bwd backward under the
// same); with amp.cast_inputs = f32 (custom_fwd(cast_inputs=torch.float32))
// every op of both is pinned to f32, saying why, and the caller hands it
// f32 values.
// RUN: amp-opt %s --amp-autocast=compute-type=f16 | FileCheck %s
// RUN: amp-opt %s "--amp-autocast=compute-type=f16 report=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

// CHECK-LABEL: func.func private @attend
// CHECK-SAME: amp.cast_inputs = f32
// CHECK: amp.softmax %arg0 dim = 1 {amp.precision = f32, amp.precision_reason = "custom_fwd(cast_inputs=f32) of @attend"} : tensor<4x3xf32>
// CHECK: amp.matmul {{.*}}{amp.precision = f32, amp.precision_reason = "custom_fwd(cast_inputs=f32) of @attend", transpose_rhs} : tensor<4x3xf32>, tensor<4x3xf32> to tensor<4x4xf32>
// CHECK-LABEL: func.func private @attend_backward
// CHECK: amp.matmul {{.*}}{amp.precision = f32, amp.precision_reason = "custom_fwd(cast_inputs=f32) of @attend", transpose_rhs} : tensor<4x3xf32>, tensor<4x3xf32> to tensor<4x4xf32>
// REPORT: "reason": "forced by amp.precision (custom_fwd(cast_inputs=f32) of @attend)"
func.func private @attend(%x: tensor<4x3xf32>) -> tensor<4x4xf32>
    attributes {amp.custom_vjp = @attend_backward, amp.cast_inputs = f32} {
  %y = amp.softmax %x dim = 1 : tensor<4x3xf32>
  %z = amp.matmul %y, %x {transpose_rhs} : tensor<4x3xf32>, tensor<4x3xf32> to tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}
func.func private @attend_backward(%x: tensor<4x3xf32>, %z: tensor<4x4xf32>, %g: tensor<4x4xf32>) -> tensor<4x3xf32> {
  %d = amp.matmul %x, %x {transpose_rhs} : tensor<4x3xf32>, tensor<4x3xf32> to tensor<4x4xf32>
  %e = amp.add %d, %g : tensor<4x4xf32>, tensor<4x4xf32>
  %f = amp.matmul %e, %x : tensor<4x4xf32>, tensor<4x3xf32> to tensor<4x3xf32>
  return %f : tensor<4x3xf32>
}

// Without cast_inputs: the matmuls in f16, in the forward and in the
// backward alike.
// CHECK-LABEL: func.func private @project
// CHECK: amp.matmul {{.*}} : tensor<4x3xf16>, tensor<3x3xf16> to tensor<4x3xf16>
// CHECK-LABEL: func.func private @project_backward
// CHECK: amp.matmul {{.*}} : tensor<4x3xf16>, tensor<3x3xf16> to tensor<4x3xf16>
func.func private @project(%x: tensor<4x3xf32>, %w: tensor<3x3xf32>) -> tensor<4x3xf32>
    attributes {amp.custom_vjp = @project_backward} {
  %y = amp.matmul %x, %w : tensor<4x3xf32>, tensor<3x3xf32> to tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
func.func private @project_backward(%x: tensor<4x3xf32>, %w: tensor<3x3xf32>, %y: tensor<4x3xf32>, %g: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>) {
  %dx = amp.matmul %g, %w {transpose_rhs} : tensor<4x3xf32>, tensor<3x3xf32> to tensor<4x3xf32>
  %dw = amp.matmul %x, %g {transpose_lhs} : tensor<4x3xf32>, tensor<4x3xf32> to tensor<3x3xf32>
  return %dx, %dw : tensor<4x3xf32>, tensor<3x3xf32>
}

// The caller's f16 matmul is cast up for the pinned function.
// CHECK-LABEL: func.func @model
// CHECK: %[[H:.*]] = amp.matmul {{.*}} : tensor<4x5xf16>, tensor<5x3xf16> to tensor<4x3xf16>
// CHECK: %[[UP:.*]] = amp.cast %[[H]] : tensor<4x3xf16> to tensor<4x3xf32>
// CHECK: call @attend(%[[UP]])
func.func @model(%x: tensor<4x5xf32>, %w: tensor<5x3xf32> {amp.param}, %v: tensor<3x3xf32> {amp.param}) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<4x5xf32>, tensor<5x3xf32> to tensor<4x3xf32>
  %a = func.call @attend(%h) : (tensor<4x3xf32>) -> tensor<4x4xf32>
  %p = func.call @project(%h, %v) : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %s = amp.sum %a dims = [0, 1] : tensor<4x4xf32> to tensor<f32>
  %t = amp.sum %p dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
  %l = amp.add %s, %t : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}
