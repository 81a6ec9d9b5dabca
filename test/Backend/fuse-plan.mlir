// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers{by-size-limit=0}))' | FileCheck %s --check-prefix=ORDER

// The planner for large graphs (forced by by-size-limit=0) places values in
// program order, each in the smallest free block: the constant reuses the
// relu's bytes, free once the sum has read them.
// ORDER-LABEL: func.func @step
// ORDER-SAME: amp.arena_size = 512
// ORDER: amp.relu {{.*}}amp.place = ["arena 0"]
// ORDER: amp.sum {{.*}}amp.place = ["arena 256"]
// ORDER: amp.constant {amp.kernel = 2 : i64, amp.place = ["arena 0"]}

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

// On a step with loss scaling, the selects that keep the old state when
// found_inf is set join the optimizer update they guard: the update's
// results never reach memory (fused) and the selects write the parameter
// and its momentum buffer in place. The unscaled gradient takes the slot
// of the gradient it scales.
// CHECK-LABEL: func.func @guarded
// CHECK: %[[G:.*]] = amp.mul {{.*}}amp.kernel = 0 : i64, amp.place = ["arena [[SLOT:[0-9]+]]"]
// CHECK: amp.unscale {{.*}}amp.kernel = 2 : i64, amp.place = ["arena [[SLOT]]", "arena {{[0-9]+}}"]
// CHECK: amp.compare {{.*}}amp.kernel = 3 : i64
// CHECK: amp.sgd_momentum_update {{.*}}amp.kernel = 4 : i64, amp.place = ["fused", "fused"]
// CHECK: amp.select {{.*}}amp.kernel = 4 : i64, amp.place = ["arg 0"]
// CHECK: amp.select {{.*}}amp.kernel = 4 : i64, amp.place = ["arg 1"]
func.func @guarded(%w: tensor<4x3xf32> {amp.param}, %buf: tensor<4x3xf32> {amp.state},
                   %step: tensor<f32> {amp.state}, %x: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<f32>) {
  %g = amp.mul %w, %x : tensor<4x3xf32>, tensor<4x3xf32>
  %inv = amp.constant dense<0.5> : tensor<f32>
  %u:2 = amp.unscale %inv, %g : tensor<f32>, tensor<4x3xf32>
  %zero = amp.constant dense<0.0> : tensor<f32>
  %ok = amp.compare eq, %u#1, %zero : tensor<f32>, tensor<f32>
  %nw, %nbuf = amp.sgd_momentum_update %w, %u#0, %buf, %step {lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.0 : f64, weight_decay = 0.0 : f64} : tensor<4x3xf32>, tensor<f32>
  %kw = amp.select %ok, %nw, %w : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  %kbuf = amp.select %ok, %nbuf, %buf : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  %loss = amp.sum %x dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
  return %kw, %kbuf, %step, %loss : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<f32>
}

// The cross-entropy kernel gets scratch memory for one loss per row
// (8 rows of f32, aligned to 256 bytes), live during its kernel only.
// CHECK-LABEL: func.func @loss
// CHECK: amp.cross_entropy {{.*}}amp.kernel = 0 : i64, amp.place = ["arena [[OUT:[0-9]+]]"], amp.scratch = [[SCRATCH:[0-9]+]] : i64
func.func @loss(%w: tensor<8x5xf32> {amp.param}, %labels: tensor<8xi64>)
    -> (tensor<8x5xf32>, tensor<f32>) {
  %l = amp.cross_entropy %w, %labels : tensor<8x5xf32>, tensor<8xi64> to tensor<f32>
  return %w, %l : tensor<8x5xf32>, tensor<f32>
}
