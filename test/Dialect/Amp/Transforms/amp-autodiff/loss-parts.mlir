// A model may return its loss followed by parts of it to report (the terms
// of a sum, an accuracy): amp-autodiff differentiates the first result
// only and returns the parts after the gradients, named by their SSA names.
// RUN: amp-opt %s --amp-autodiff | FileCheck %s
// The gradient is the loss's alone: gradcheck against central differences
// in f64 of the first result.
// RUN: amp-run %s --function=regularized --random-inputs=3 --gradcheck | FileCheck %s --check-prefix=GRADCHECK
// GRADCHECK: gradcheck @regularized argument #0 'w' {{.*}} ok

// CHECK-LABEL: func.func @regularized
// CHECK-SAME: -> (tensor<f32>, tensor<f32> {amp.name = "fit"}, tensor<f32> {amp.name = "l2"})
// CHECK-LABEL: func.func @regularized_grad
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<f32> {amp.name = "fit"}, tensor<f32> {amp.name = "l2"})
// CHECK: %[[FIT:.*]] = amp.sum
// CHECK: %[[L2:.*]] = amp.sum
// CHECK: %[[LOSS:.*]] = amp.add
// CHECK: return %[[LOSS]], %{{.*}}, %[[FIT]], %[[L2]]
func.func @regularized(%w: tensor<3xf32> {amp.param}, %x: tensor<3xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %d = amp.sub %w, %x : tensor<3xf32>, tensor<3xf32>
  %sq = amp.mul %d, %d : tensor<3xf32>, tensor<3xf32>
  %fit = amp.sum %sq dims = [0] : tensor<3xf32> to tensor<f32>
  %ww = amp.mul %w, %w : tensor<3xf32>, tensor<3xf32>
  %l2 = amp.sum %ww dims = [0] : tensor<3xf32> to tensor<f32>
  %c = amp.constant dense<0.25> : tensor<f32>
  %reg = amp.mul %l2, %c : tensor<f32>, tensor<f32>
  %loss = amp.add %fit, %reg : tensor<f32>, tensor<f32>
  return %loss, %fit, %l2 : tensor<f32>, tensor<f32>, tensor<f32>
}

// A given amp.name is kept; an argument returned as a part is named as the
// argument; a value returned again, whose name another part holds, is
// named by its position.
// CHECK-LABEL: func.func @unnamed
// CHECK-SAME: -> (tensor<f32>, tensor<f32> {amp.name = "l"}, tensor<f32> {amp.name = "total"}, tensor<f32> {amp.name = "loss_part3"}, tensor<f32> {amp.name = "t"})
func.func @unnamed(%w: tensor<3xf32> {amp.param}, %t: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32> {amp.name = "total"}, tensor<f32>, tensor<f32>) {
  %l = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %l, %l, %l, %l, %t : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
