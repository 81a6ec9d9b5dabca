// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | FileCheck %s

// An elementwise chain becomes one kernel whose inner values never reach
// memory; a bias add and relu after an f32 matmul fold into its epilogue;
// the new parameter is written over the old one in place.

// CHECK-LABEL: func.func @step
// CHECK-SAME: amp.arena_size =
// CHECK: amp.matmul {{.*}}amp.epilogue = "bias_relu", amp.kernel = 0 : i64, amp.place = ["fused"]
// CHECK: amp.add {{.*}}amp.kernel = 0 : i64, amp.place = ["fused"]
// CHECK: amp.relu {{.*}}amp.kernel = 0 : i64, amp.place = ["arena 0"]
// CHECK: amp.sum {{.*}}amp.kernel = 1 : i64, amp.place = ["arena 256"]
// CHECK: amp.constant {amp.kernel = 2 : i64, amp.place = ["arena 0"]}
// CHECK: amp.mul {{.*}}amp.kernel = 3 : i64, amp.place = ["fused"]
// CHECK: amp.sub {{.*}}amp.kernel = 3 : i64, amp.place = ["arg 0"]
func.func @step(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param},
                %x: tensor<2x4xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) {
  %mm = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %pre = amp.add %mm, %b : tensor<2x3xf32>, tensor<3xf32>
  %h = amp.relu %pre : tensor<2x3xf32>
  %loss = amp.sum %h dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  %lr = amp.constant dense<0.5> : tensor<f32>
  %g = amp.mul %w, %lr : tensor<4x3xf32>, tensor<f32>
  %neww = amp.sub %w, %g : tensor<4x3xf32>, tensor<4x3xf32>
  return %neww, %b, %loss : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
}
