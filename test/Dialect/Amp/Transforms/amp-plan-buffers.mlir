// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-plan-buffers))' | FileCheck %s
// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-plan-buffers{by-size-limit=0}))' | FileCheck %s --check-prefix=ORDER
// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-plan-buffers{report=%t.json}))' -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: not amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-plan-buffers{report=%t.missing/dir/r.json}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// --amp-plan-buffers places every value of a fused step (the kernels are
// given here as --amp-fuse would give them): fused values nowhere, the
// others in one 256-byte-aligned arena by liveness, new state over the old.

// CHECK-LABEL: func.func @step
// CHECK-SAME: amp.arena_size = 512 : i64
// CHECK-SAME: amp.memory = #amp.memory<arena = 512, arguments = 92, peak = 604, peak_f32 = 604>
// CHECK: amp.matmul {{.*}}amp.place = [#amp.place<fused>]
// CHECK: amp.add {{.*}}amp.place = [#amp.place<fused>]
// CHECK: amp.relu {{.*}}amp.place = [#amp.place<arena 0>]
// CHECK: amp.sum {{.*}}amp.place = [#amp.place<arena 256>]
// The constant reuses the relu's bytes, free once the sum has read them.
// CHECK: amp.constant {amp.kernel = 2 : i64, amp.place = [#amp.place<arena 0>]}
// CHECK: amp.mul {{.*}}amp.place = [#amp.place<fused>]
// The new weight is written over the old: nothing reads it afterwards.
// CHECK: amp.sub {{.*}}amp.place = [#amp.place<arg 0>]
// The planner for large graphs (forced by by-size-limit=0): program order,
// best fit; the same plan here.
// ORDER-LABEL: func.func @step
// ORDER-SAME: amp.arena_size = 512
// ORDER: amp.relu {{.*}}amp.place = [#amp.place<arena 0>]
// ORDER: amp.sum {{.*}}amp.place = [#amp.place<arena 256>]
// ORDER: amp.constant {amp.kernel = 2 : i64, amp.place = [#amp.place<arena 0>]}
func.func @step(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param},
                %x: tensor<2x4xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) {
  %mm = amp.matmul %x, %w {amp.epilogue = #amp.epilogue<bias_relu>, amp.kernel = 0 : i64} : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %pre = amp.add %mm, %b {amp.kernel = 0 : i64} : tensor<2x3xf32>, tensor<3xf32>
  %h = amp.relu %pre {amp.kernel = 0 : i64} : tensor<2x3xf32>
  %loss = amp.sum %h dims = [0, 1] {amp.kernel = 1 : i64} : tensor<2x3xf32> to tensor<f32>
  %lr = amp.constant {amp.kernel = 2 : i64} dense<0.5> : tensor<f32>
  %g = amp.mul %w, %lr {amp.kernel = 3 : i64} : tensor<4x3xf32>, tensor<f32>
  %neww = amp.sub %w, %g {amp.kernel = 3 : i64} : tensor<4x3xf32>, tensor<4x3xf32>
  return %neww, %b, %loss : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// A guarded optimizer update: its results are fused into the selects,
// which write the parameter and its buffer in place. The unscaled gradient
// takes the slot of the gradient it scales, which nothing else reads.
// CHECK-LABEL: func.func @guarded
// CHECK: amp.mul {{.*}}amp.place = [#amp.place<arena [[SLOT:[0-9]+]]>]
// CHECK: amp.unscale {{.*}}amp.place = [#amp.place<arena [[SLOT]]>, #amp.place<arena {{[0-9]+}}>]
// CHECK: amp.sgd_momentum_update {{.*}}amp.place = [#amp.place<fused>, #amp.place<fused>]
// CHECK: amp.select {{.*}}amp.place = [#amp.place<arg 0>]
// CHECK: amp.select {{.*}}amp.place = [#amp.place<arg 1>]
func.func @guarded(%w: tensor<4x3xf32> {amp.param}, %buf: tensor<4x3xf32> {amp.state},
                   %step: tensor<f32> {amp.state}, %x: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<f32>) {
  %g = amp.mul %w, %x {amp.kernel = 0 : i64} : tensor<4x3xf32>, tensor<4x3xf32>
  %inv = amp.constant {amp.kernel = 1 : i64} dense<0.5> : tensor<f32>
  %u:2 = amp.unscale %inv, %g {amp.kernel = 2 : i64} : tensor<f32>, tensor<4x3xf32>
  %zero = amp.constant {amp.kernel = 3 : i64} dense<0.0> : tensor<f32>
  %ok = amp.compare eq, %u#1, %zero {amp.kernel = 3 : i64} : tensor<f32>, tensor<f32>
  %nw, %nbuf = amp.sgd_momentum_update %w, %u#0, %buf, %step {amp.kernel = 4 : i64, lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.0 : f64, weight_decay = 0.0 : f64} : tensor<4x3xf32>, tensor<f32>
  %kw = amp.select %ok, %nw, %w {amp.kernel = 4 : i64} : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  %kbuf = amp.select %ok, %nbuf, %buf {amp.kernel = 4 : i64} : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  %loss = amp.sum %x dims = [0, 1] {amp.kernel = 5 : i64} : tensor<4x3xf32> to tensor<f32>
  return %kw, %kbuf, %step, %loss : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<f32>
}

// -----

// The cross-entropy's kernel gets scratch memory for one loss per row,
// live during that kernel only; a reshape is a view of its operand.
// CHECK-LABEL: func.func @loss
// CHECK: amp.reshape {{.*}}amp.place = [#amp.place<view>]
// CHECK: amp.cross_entropy {{.*}}amp.kernel = 1 : i64, amp.place = [#amp.place<arena [[OUT:[0-9]+]]>], amp.scratch = {{[0-9]+}} : i64
func.func @loss(%w: tensor<2x4x5xf32> {amp.param}, %labels: tensor<8xi64>)
    -> (tensor<2x4x5xf32>, tensor<f32>) {
  %n = amp.neg %w {amp.kernel = 0 : i64} : tensor<2x4x5xf32>
  %flat = amp.reshape %n : tensor<2x4x5xf32> to tensor<8x5xf32>
  %l = amp.cross_entropy %flat, %labels {amp.kernel = 1 : i64} : tensor<8x5xf32>, tensor<8xi64> to tensor<f32>
  return %w, %l : tensor<2x4x5xf32>, tensor<f32>
}

// -----

// peak_f32: the same plan with every f16 value counted as f32. Largest
// first: %y (4096 bytes, kernels 2..) at 0; %h (2048, kernels 0..1) also
// at 0, dead before %y is written; %e (kernels 1..2) meets both: at 4096.
// Arena 6144, peak 6144 + 4096 of arguments; as f32, %e is 4096 bytes:
// 8192 + 4096.
// CHECK-LABEL: func.func @half
// CHECK-SAME: amp.memory = #amp.memory<arena = 6144, arguments = 4096, peak = 10240, peak_f32 = 12288>
// CHECK: amp.cast {{.*}}amp.place = [#amp.place<arena 0>]
// CHECK: amp.exp {{.*}}amp.place = [#amp.place<arena 4096>]
// CHECK: amp.cast {{.*}}amp.place = [#amp.place<arena 0>]
// report=FILE writes the same figures as JSON (here: the last function
// planned).
// REPORT: "arena_bytes": 6144,
// REPORT-NEXT: "argument_bytes": 4096,
// REPORT-NEXT: "function": "half",
// REPORT-NEXT: "peak_bytes": 10240,
// REPORT-NEXT: "peak_bytes_f32": 12288
func.func @half(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %h = amp.cast %x {amp.kernel = 0 : i64} : tensor<1024xf32> to tensor<1024xf16>
  %e = amp.exp %h {amp.kernel = 1 : i64} : tensor<1024xf16>
  %y = amp.cast %e {amp.kernel = 2 : i64} : tensor<1024xf16> to tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// -----

// A step that was not fused.
func.func @unfused(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{amp-plan-buffers: this op has no kernel; run --amp-fuse first}}
  %y = amp.neg %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
// An unwritable report is an error at the function, not a lost figure.
// UNWRITABLE: error: amp-plan-buffers: cannot write the report: cannot open output file '{{.*}}dir/r.json'
