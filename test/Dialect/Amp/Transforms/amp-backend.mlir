// RUN: amp-opt %s --amp-backend --mlir-print-debuginfo --mlir-print-local-scope \
// RUN:   | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(amp-backend{by-size-limit=0 report=%t.json})' -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: amp-opt --help | FileCheck %s --check-prefix=HELP

// --amp-backend takes a training step to the IR --amp-to-cuda translates:
// calls inlined (the callee gone), equal constants merged, every op in a
// kernel (the matmul with its bias and relu as one GEMM's epilogue) and
// every kernel's result placed in one arena, new weights over the old.

// CHECK-LABEL: func.func @step
// CHECK-SAME: amp.arena_size = 768 : i64
// CHECK-SAME: amp.memory = #amp.memory<arena = 768,
// CHECK-NOT: call
// The two learning rates are one constant, which the folder hoists and
// leaves without a location; amp-restore-locations gives it its first
// user's, the update of %w.
// CHECK: %[[LR:.*]] = amp.fusion<loop, root = 0>() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena {{[0-9]+}}>]} {
// CHECK-NEXT: amp.constant {{.*}}dense<5.000000e-01> : tensor<f32> loc("{{.*}}amp-backend.mlir":58:9)
// CHECK: amp.fusion<gemm, root = 0>({{.*}}) : {{.*}} -> tensor<2x3xf32> attributes {amp.place = [#amp.place<arena {{[0-9]+}}>]} {
// CHECK-NEXT: amp.matmul {{.*}} bias
// CHECK-NEXT: amp.relu
// CHECK: amp.fusion<reduction, root = 0>({{.*}}) : {{.*}} -> tensor<f32> attributes {amp.place = [#amp.place<arena {{[0-9]+}}>]} {
// CHECK-NEXT: amp.sum
// CHECK: amp.fusion<loop, root = 1>(%{{.*}} = %arg0, %{{.*}} = %[[LR]]) : {{.*}} attributes {amp.place = [#amp.place<arg 0>]} {
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.sub
// CHECK: amp.fusion<loop, root = 1>(%{{.*}} = %arg1, %{{.*}} = %[[LR]]) : {{.*}} attributes {amp.place = [#amp.place<arg 1>]} {
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.sub
// CHECK-NOT: amp.constant
// CHECK-NOT: func.func

// The options are amp-plan-buffers' and amp-decompose's keep-convolutions
// and keep-batch-norms.
// REPORT: "function": "step"
// amp-opt lists the pipeline and its options.
// HELP: --amp-backend
// HELP-NEXT: --by-size-limit
// HELP-NEXT: --keep-batch-norms
// HELP-NEXT: --keep-convolutions
// HELP-NEXT: --report

func.func private @layer(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>,
                         %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %mm = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %pre = amp.add %mm, %b : tensor<2x3xf32>, tensor<3xf32>
  %h = amp.relu %pre : tensor<2x3xf32>
  return %h : tensor<2x3xf32>
}

func.func @step(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param},
                %x: tensor<2x4xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) {
  %h = call @layer(%x, %w, %b) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %loss = amp.sum %h dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  %lr = amp.constant dense<0.5> : tensor<f32>
  %gw = amp.mul %w, %lr : tensor<4x3xf32>, tensor<f32>
  %neww = amp.sub %w, %gw : tensor<4x3xf32>, tensor<4x3xf32>
  %lr2 = amp.constant dense<0.5> : tensor<f32>
  %gb = amp.mul %b, %lr2 : tensor<3xf32>, tensor<f32>
  %newb = amp.sub %b, %gb : tensor<3xf32>, tensor<3xf32>
  return %neww, %newb, %loss : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
}
