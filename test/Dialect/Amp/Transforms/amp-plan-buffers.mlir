// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-plan-buffers))' | FileCheck %s
// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-plan-buffers{by-size-limit=0}))' | FileCheck %s --check-prefix=ORDER
// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-plan-buffers{report=%t.json}))' -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: not amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-plan-buffers{report=%t.missing/dir/r.json}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// --amp-plan-buffers places every result of a fused step's kernels (given
// here as --amp-fuse would give them) in one 256-byte-aligned arena by
// liveness, and new state over the old; the values inside a kernel need
// no place.

// CHECK-LABEL: func.func @step
// CHECK-SAME: amp.arena_size = 512 : i64
// CHECK-SAME: amp.memory = #amp.memory<arena = 512, arguments = 92, peak = 604, peak_f32 = 604>
// CHECK: amp.fusion<gemm, root = 0>{{.*}}attributes {amp.place = [#amp.place<arena 0>]}
// CHECK-NEXT: amp.matmul {{[^{]*}}
// CHECK-NEXT: amp.relu {{[^{]*}}
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 256>]}
// CHECK-NEXT: amp.sum
// The constant reuses the relu's bytes, free once the sum has read them.
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 0>]}
// CHECK-NEXT: amp.constant
// The new weight is written over the old: nothing reads it afterwards.
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arg 0>]}
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.sub
// The planner for large graphs (forced by by-size-limit=0): program order,
// best fit; the same plan here.
// ORDER-LABEL: func.func @step
// ORDER-SAME: amp.arena_size = 512
// ORDER: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 0>]}
// ORDER: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 256>]}
// ORDER: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 0>]}
// ORDER-NEXT: amp.constant
func.func @step(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param},
                %x: tensor<2x4xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) {
  %h = amp.fusion(%xi = %x, %wi = %w, %bi = %b) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
    %mm = amp.matmul %xi, %wi bias %bi : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> to tensor<2x3xf32>
    %r = amp.relu %mm : tensor<2x3xf32>
    amp.yield %r : tensor<2x3xf32>
  }
  %loss = amp.fusion(%hi = %h) : (tensor<2x3xf32>) -> tensor<f32> {
    %s = amp.sum %hi dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  %lr = amp.fusion() : () -> tensor<f32> {
    %c = amp.constant dense<0.5> : tensor<f32>
    amp.yield %c : tensor<f32>
  }
  %neww = amp.fusion(%wi = %w, %lri = %lr) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32> {
    %g = amp.mul %wi, %lri : tensor<4x3xf32>, tensor<f32>
    %n = amp.sub %wi, %g : tensor<4x3xf32>, tensor<4x3xf32>
    amp.yield %n : tensor<4x3xf32>
  }
  return %neww, %b, %loss : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// A reduced gradient takes the slot of the gradient it reduces
// (amp_replica_all_reduce works in place: TiedOperandOpInterface), which
// nothing else reads; the one read again keeps its own.
// CHECK-LABEL: func.func @reduced
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena [[SLOT:[0-9]+]]>]}
// CHECK-NEXT: amp.mul
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena [[SLOT]]>]}
// CHECK-NEXT: amp.all_reduce
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 256>]}
// CHECK-NEXT: amp.neg
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 512>]}
// CHECK-NEXT: amp.all_reduce
func.func @reduced(%w: tensor<4x3xf32> {amp.param}, %x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %g = amp.fusion(%wi = %w, %xi = %x) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = amp.mul %wi, %xi : tensor<4x3xf32>, tensor<4x3xf32>
    amp.yield %0 : tensor<4x3xf32>
  }
  %r = amp.fusion(%gi = %g) : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = amp.all_reduce sum %gi : tensor<4x3xf32>
    amp.yield %0 : tensor<4x3xf32>
  }
  %h = amp.fusion(%xi = %x) : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = amp.neg %xi : tensor<4x3xf32>
    amp.yield %0 : tensor<4x3xf32>
  }
  %s = amp.fusion(%hi = %h) : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = amp.all_reduce sum %hi : tensor<4x3xf32>
    amp.yield %0 : tensor<4x3xf32>
  }
  return %r, %h, %s : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// A guarded optimizer update: its kernel yields the selects, which write
// the parameter and its buffer in place. The unscaled gradient takes the
// slot of the gradient it scales, which nothing else reads.
// CHECK-LABEL: func.func @guarded
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena [[SLOT:[0-9]+]]>]}
// CHECK-NEXT: amp.mul
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena [[SLOT]]>, #amp.place<arena {{[0-9]+}}>]}
// CHECK-NEXT: amp.unscale
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arg 0>, #amp.place<arg 1>]}
// CHECK-NEXT: amp.sgd_momentum_update
func.func @guarded(%w: tensor<4x3xf32> {amp.param}, %buf: tensor<4x3xf32> {amp.state},
                   %step: tensor<f32> {amp.state}, %x: tensor<4x3xf32>,
                   %lr: tensor<f64>, %mu: tensor<f64>, %wd: tensor<f64>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<f32>) {
  %g = amp.fusion(%wi = %w, %xi = %x) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = amp.mul %wi, %xi : tensor<4x3xf32>, tensor<4x3xf32>
    amp.yield %0 : tensor<4x3xf32>
  }
  %inv = amp.fusion() : () -> tensor<f32> {
    %0 = amp.constant dense<0.5> : tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  %u:2 = amp.fusion(%invi = %inv, %gi = %g) : (tensor<f32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<f32>) {
    %0:2 = amp.unscale %invi, %gi : tensor<f32>, tensor<4x3xf32>
    amp.yield %0#0, %0#1 : tensor<4x3xf32>, tensor<f32>
  }
  %ok = amp.fusion(%found = %u#1) : (tensor<f32>) -> tensor<i1> {
    %zero = amp.constant dense<0.0> : tensor<f32>
    %0 = amp.compare eq, %found, %zero : tensor<f32>, tensor<f32>
    amp.yield %0 : tensor<i1>
  }
  %kept:2 = amp.fusion(%wi = %w, %ui = %u#0, %bufi = %buf, %stepi = %step, %oki = %ok, %lri = %lr, %mui = %mu, %wdi = %wd) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<i1>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
    %nw, %nbuf = amp.sgd_momentum_update %wi, %ui, %bufi, %stepi lr(%lri) momentum(%mui) weight_decay(%wdi) {dampening = 0.0 : f64} : tensor<4x3xf32>, tensor<f32>
    %kw = amp.select %oki, %nw, %wi : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
    %kbuf = amp.select %oki, %nbuf, %bufi : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
    amp.yield %kw, %kbuf : tensor<4x3xf32>, tensor<4x3xf32>
  }
  %loss = amp.fusion(%xi = %x) : (tensor<4x3xf32>) -> tensor<f32> {
    %0 = amp.sum %xi dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %kept#0, %kept#1, %step, %loss : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<f32>
}

// -----

// A parameter read by a later kernel after its update's kernel is not
// updated in place: its new value goes to the arena and is copied back at
// the end.
// CHECK-LABEL: func.func @read_after_update
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 0>]}
// CHECK-NEXT: amp.sgd_update
func.func @read_after_update(%w: tensor<4xf32> {amp.param}, %g: tensor<4xf32>,
                             %lr: tensor<f64>, %wd: tensor<f64>)
    -> (tensor<4xf32>, tensor<f32>) {
  %nw = amp.fusion(%wi = %w, %gi = %g, %lri = %lr, %wdi = %wd) : (tensor<4xf32>, tensor<4xf32>, tensor<f64>, tensor<f64>) -> tensor<4xf32> {
    %0 = amp.sgd_update %wi, %gi lr(%lri) weight_decay(%wdi) : tensor<4xf32>
    amp.yield %0 : tensor<4xf32>
  }
  %loss = amp.fusion(%wi = %w) : (tensor<4xf32>) -> tensor<f32> {
    %0 = amp.sum %wi dims = [0] : tensor<4xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %nw, %loss : tensor<4xf32>, tensor<f32>
}

// -----

// The cross-entropy's kernel gets scratch memory for one loss per row,
// live during that kernel only; a reshape is a view of its operand.
// CHECK-LABEL: func.func @loss
// CHECK: amp.reshape {{.*}}amp.place = [#amp.place<view>]
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena {{[0-9]+}}>]}
// CHECK-NEXT: amp.cross_entropy {{.*}}{amp.scratch = {{[0-9]+}} : i64}
func.func @loss(%w: tensor<2x4x5xf32> {amp.param}, %labels: tensor<8xi64>)
    -> (tensor<2x4x5xf32>, tensor<f32>) {
  %n = amp.fusion(%wi = %w) : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
    %0 = amp.neg %wi : tensor<2x4x5xf32>
    amp.yield %0 : tensor<2x4x5xf32>
  }
  %flat = amp.reshape %n : tensor<2x4x5xf32> to tensor<8x5xf32>
  %l = amp.fusion(%fi = %flat, %li = %labels) : (tensor<8x5xf32>, tensor<8xi64>) -> tensor<f32> {
    %0 = amp.cross_entropy %fi, %li : tensor<8x5xf32>, tensor<8xi64> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
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
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 0>]}
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 4096>]}
// CHECK: amp.fusion{{.*}}attributes {amp.place = [#amp.place<arena 0>]}
// report=FILE writes the same figures as JSON (here: the last function
// planned).
// REPORT: "arena_bytes": 6144,
// REPORT-NEXT: "argument_bytes": 4096,
// REPORT-NEXT: "function": "half",
// REPORT-NEXT: "peak_bytes": 10240,
// REPORT-NEXT: "peak_bytes_f32": 12288
func.func @half(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %h = amp.fusion(%xi = %x) : (tensor<1024xf32>) -> tensor<1024xf16> {
    %0 = amp.cast %xi : tensor<1024xf32> to tensor<1024xf16>
    amp.yield %0 : tensor<1024xf16>
  }
  %e = amp.fusion(%hi = %h) : (tensor<1024xf16>) -> tensor<1024xf16> {
    %0 = amp.exp %hi : tensor<1024xf16>
    amp.yield %0 : tensor<1024xf16>
  }
  %y = amp.fusion(%ei = %e) : (tensor<1024xf16>) -> tensor<1024xf32> {
    %0 = amp.cast %ei : tensor<1024xf16> to tensor<1024xf32>
    amp.yield %0 : tensor<1024xf32>
  }
  return %y : tensor<1024xf32>
}

// -----

// A step that was not fused.
func.func @unfused(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{amp-plan-buffers: this op is in no kernel; run --amp-fuse first}}
  %y = amp.neg %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
// An unwritable report is an error at the function, not a lost figure.
// UNWRITABLE: error: amp-plan-buffers: cannot write the report: cannot open output file '{{.*}}dir/r.json'
