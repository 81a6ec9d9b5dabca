// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-fuse))' | FileCheck %s
// Canonicalization and CSE leave the kernels as they are, and fusing a fused
// step again gives the same kernels.
// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-fuse,canonicalize,cse))' | FileCheck %s
// RUN: amp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(amp-fuse,amp-fuse))' | FileCheck %s

// --amp-fuse outlines every kernel into an amp.fusion where its last op
// was: the kernels run in the order of the fusion ops, and only what a
// fusion yields leaves its kernel.

// An elementwise chain of one shape becomes one kernel; a bias add after a
// matmul with an f32 result becomes its bias operand, and the relu after
// that joins its kernel (the GEMM's bias_relu epilogue).
// CHECK-LABEL: func.func @chain
// CHECK: %[[GEMM:.*]] = amp.fusion<gemm, root = 0>(%[[X:arg[0-9]+]] = %arg2, %[[W:arg[0-9]+]] = %arg0, %[[B:arg[0-9]+]] = %arg1) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %[[MM:.*]] = amp.matmul %[[X]], %[[W]] bias %[[B]] : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> to tensor<2x3xf32>
// CHECK-NEXT: %[[H:.*]] = amp.relu %[[MM]]
// CHECK-NEXT: amp.yield %[[H]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[LOSS:.*]] = amp.fusion<reduction, root = 0>(%[[IN:arg[0-9]+]] = %[[GEMM]]) : (tensor<2x3xf32>) -> tensor<f32> {
// CHECK-NEXT: amp.sum %[[IN]]
// CHECK: %[[LR:.*]] = amp.fusion<loop, root = 0>() : () -> tensor<f32> {
// CHECK-NEXT: amp.constant dense<5.000000e-01>
// CHECK: %[[NEW:.*]] = amp.fusion<loop, root = 1>(%[[W2:arg[0-9]+]] = %arg0, %[[LR2:arg[0-9]+]] = %[[LR]]) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32> {
// CHECK-NEXT: %[[G:.*]] = amp.mul %[[W2]], %[[LR2]]
// CHECK-NEXT: %[[S:.*]] = amp.sub %[[W2]], %[[G]]
// CHECK-NEXT: amp.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[NEW]], %arg1, %[[LOSS]]
func.func @chain(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param},
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

// -----

// An f16 matmul result is not folded with a separate add: the epilogue
// would add the bias before the matmul's rounding to f16, which the graph
// does after it.
// CHECK-LABEL: func.func @narrow
// CHECK: %[[MM:.*]] = amp.fusion<gemm, root = 0>
// CHECK-NEXT: amp.matmul
// CHECK-NOT: bias
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<loop, root = 0>(%{{.*}} = %[[MM]], %{{.*}} = %arg2)
// CHECK-NEXT: amp.add
func.func @narrow(%a: tensor<2x4xf16>, %w: tensor<4x3xf16>, %b: tensor<3xf16>) -> tensor<2x3xf16> {
  %mm = amp.matmul %a, %w : tensor<2x4xf16>, tensor<4x3xf16> to tensor<2x3xf16>
  %y = amp.add %mm, %b : tensor<2x3xf16>, tensor<3xf16>
  return %y : tensor<2x3xf16>
}

// -----

// A matmul with a bias operand (autocast folds a low-precision bias add into
// it) has a bias epilogue in any result type, and takes the relu after it.
// CHECK-LABEL: func.func @bias_operand
// CHECK: %[[H:.*]] = amp.fusion<gemm, root = 0>
// CHECK-NEXT: amp.matmul {{.*}} bias
// CHECK-NEXT: amp.relu
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<gemm, root = 0>(%{{.*}} = %[[H]],
// CHECK-NEXT: amp.matmul {{.*}} bias
// CHECK-NEXT: amp.yield
func.func @bias_operand(%a: tensor<2x4xbf16>, %w: tensor<4x4xbf16>, %b: tensor<4xbf16>) -> tensor<2x4xbf16> {
  %mm = amp.matmul %a, %w bias %b : tensor<2x4xbf16>, tensor<4x4xbf16>, tensor<4xbf16> to tensor<2x4xbf16>
  %h = amp.relu %mm : tensor<2x4xbf16>
  %y = amp.matmul %h, %w bias %b : tensor<2x4xbf16>, tensor<4x4xbf16>, tensor<4xbf16> to tensor<2x4xbf16>
  return %y : tensor<2x4xbf16>
}

// -----

// A value read outside the chain (here: returned) must reach memory, so
// its op ends a kernel.
// CHECK-LABEL: func.func @shared
// CHECK: %[[E:.*]] = amp.fusion<loop, root = 0>(%{{.*}} = %arg0)
// CHECK-NEXT: amp.exp
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[N:.*]] = amp.fusion<loop, root = 0>(%{{.*}} = %[[E]])
// CHECK-NEXT: amp.neg
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[E]], %[[N]]
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = amp.exp %x : tensor<4xf32>
  %n = amp.neg %e : tensor<4xf32>
  return %e, %n : tensor<4xf32>, tensor<4xf32>
}

// -----

// The selects that keep the old state on a step with inf/NaN gradients
// join the optimizer update they guard; the scalar compare is its own.
// CHECK-LABEL: func.func @guarded
// CHECK: %[[OK:.*]] = amp.fusion<loop, root = 1>(%{{.*}} = %arg4) : (tensor<f32>) -> tensor<i1> {
// CHECK-NEXT: amp.constant
// CHECK-NEXT: amp.compare
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[KEPT:.*]]:2 = amp.fusion<updates, root = 0>({{.*}}, %[[OK2:arg[0-9]+]] = %[[OK]]) : {{.*}} -> (tensor<4x3xf32>, tensor<4x3xf32>) {
// CHECK-NEXT: amp.sgd_momentum_update
// CHECK-NEXT: %[[K1:.*]] = amp.select %[[OK2]]
// CHECK-NEXT: %[[K2:.*]] = amp.select %[[OK2]]
// CHECK-NEXT: amp.yield %[[K1]], %[[K2]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[KEPT]]#0, %[[KEPT]]#1, %arg2, %arg4
func.func @guarded(%w: tensor<4x3xf32> {amp.param}, %buf: tensor<4x3xf32> {amp.state},
                   %step: tensor<f32> {amp.state}, %g: tensor<4x3xf32>, %found: tensor<f32>,
                   %lr: tensor<f64>, %mu: tensor<f64>, %wd: tensor<f64>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<f32>) {
  %zero = amp.constant dense<0.0> : tensor<f32>
  %ok = amp.compare eq, %found, %zero : tensor<f32>, tensor<f32>
  %nw, %nbuf = amp.sgd_momentum_update %w, %g, %buf, %step lr(%lr) momentum(%mu) weight_decay(%wd) {dampening = 0.0 : f64} : tensor<4x3xf32>, tensor<f32>
  %kw = amp.select %ok, %nw, %w : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  %kbuf = amp.select %ok, %nbuf, %buf : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  return %kw, %kbuf, %step, %found : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<f32>
}

// -----

// A select that keeps something other than the replaced state is an
// ordinary elementwise op: the update stays alone.
// CHECK-LABEL: func.func @unguarded
// CHECK: %[[NW:.*]] = amp.fusion<updates, root = 0>
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<loop, root = 0>(%{{.*}} = %arg3, %{{.*}} = %[[NW]], %{{.*}} = %arg2)
// CHECK-NEXT: amp.select
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<reduction, root = 0>
// CHECK-NEXT: amp.sum
func.func @unguarded(%w: tensor<4xf32> {amp.param}, %g: tensor<4xf32>, %other: tensor<4xf32>,
                     %ok: tensor<i1>, %lr: tensor<f64>, %wd: tensor<f64>) -> (tensor<4xf32>, tensor<f32>) {
  %nw = amp.sgd_update %w, %g lr(%lr) weight_decay(%wd) : tensor<4xf32>
  %kw = amp.select %ok, %nw, %other : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %l = amp.sum %g dims = [0] : tensor<4xf32> to tensor<f32>
  return %kw, %l : tensor<4xf32>, tensor<f32>
}

// -----

// Adjacent like updates (same op, attributes, step count and guard) are
// one kernel, run as one multi-tensor launch at the position of its last
// op: both updates and all their selects share the second kernel.
// CHECK-LABEL: func.func @update_run
// CHECK: %[[OK:.*]] = amp.fusion<loop, root = 1>
// CHECK-NEXT: amp.constant
// CHECK-NEXT: amp.compare
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[KEPT:.*]]:6 = amp.fusion<updates, root = 0>({{.*}} = %[[OK]]) : {{.*}} -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
// CHECK-NEXT: amp.adamw_update
// CHECK-NEXT: amp.adamw_update
// CHECK-COUNT-6: amp.select
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[NEXT:.*]] = amp.fusion<loop, root = 1>
// CHECK-NEXT: amp.constant
// CHECK-NEXT: amp.add
// CHECK: return %[[KEPT]]#0, %[[KEPT]]#3, %[[KEPT]]#1, %[[KEPT]]#2, %[[KEPT]]#4, %[[KEPT]]#5, %[[NEXT]]
func.func @update_run(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param},
                      %mw: tensor<4x3xf32> {amp.state}, %vw: tensor<4x3xf32> {amp.state},
                      %mb: tensor<3xf32> {amp.state}, %vb: tensor<3xf32> {amp.state},
                      %step: tensor<f32> {amp.state}, %gw: tensor<4x3xf32>,
                      %gb: tensor<3xf32>, %found: tensor<f32>, %lr: tensor<f64>,
                      %beta1: tensor<f64>, %beta2: tensor<f64>, %eps: tensor<f64>, %wd: tensor<f64>)
    -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4x3xf32>,
        tensor<3xf32>, tensor<3xf32>, tensor<f32>) {
  %zero = amp.constant dense<0.0> : tensor<f32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %w2, %mw2, %vw2 = amp.adamw_update %w, %gw, %mw, %vw, %step
      lr(%lr) betas(%beta1, %beta2) eps(%eps) weight_decay(%wd) : tensor<4x3xf32>, tensor<f32>
  %b2, %mb2, %vb2 = amp.adamw_update %b, %gb, %mb, %vb, %step
      lr(%lr) betas(%beta1, %beta2) eps(%eps) weight_decay(%wd) : tensor<3xf32>, tensor<f32>
  %ok = amp.compare eq, %found, %zero : tensor<f32>, tensor<f32>
  %kw = amp.select %ok, %w2, %w : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  %kmw = amp.select %ok, %mw2, %mw : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  %kvw = amp.select %ok, %vw2, %vw : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
  %kb = amp.select %ok, %b2, %b : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  %kmb = amp.select %ok, %mb2, %mb : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  %kvb = amp.select %ok, %vb2, %vb : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  %next = amp.add %step, %one : tensor<f32>, tensor<f32>
  return %kw, %kb, %kmw, %kvw, %kmb, %kvb, %next
      : tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4x3xf32>,
        tensor<3xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// Updates stay apart when their hyperparameters differ and when they are
// not adjacent; adjacent like ones join (%d2, %e2).
// CHECK-LABEL: func.func @update_runs_refused
// CHECK: amp.fusion<updates, root = 0>({{.*}}, %[[LR1:.*]] = %arg5,
// CHECK-NEXT: amp.sgd_update {{.*}}lr(%[[LR1]])
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<updates, root = 0>({{.*}}, %[[LR2:.*]] = %arg6,
// CHECK-NEXT: amp.sgd_update {{.*}}lr(%[[LR2]])
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<reduction, root = 0>
// CHECK-NEXT: amp.sum
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<updates, root = 0>
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.yield
func.func @update_runs_refused(%a: tensor<4xf32> {amp.param}, %b: tensor<4xf32> {amp.param},
                               %d: tensor<4xf32> {amp.param}, %e: tensor<4xf32> {amp.param},
                               %g: tensor<4xf32>, %lr1: tensor<f64>, %lr2: tensor<f64>,
                               %wd: tensor<f64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %a2 = amp.sgd_update %a, %g lr(%lr1) weight_decay(%wd) : tensor<4xf32>
  %b2 = amp.sgd_update %b, %g lr(%lr2) weight_decay(%wd) : tensor<4xf32>
  %s = amp.sum %g dims = [0] : tensor<4xf32> to tensor<f32>
  %d2 = amp.sgd_update %d, %g lr(%lr2) weight_decay(%wd) : tensor<4xf32>
  %e2 = amp.sgd_update %e, %g lr(%lr2) weight_decay(%wd) : tensor<4xf32>
  return %a2, %b2, %d2, %e2, %s
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// Merged, the first update would run at the second's last select, after
// the sum that reads the first's new value: they stay apart.
// CHECK-LABEL: func.func @update_run_read_early
// CHECK: %[[KA:.*]] = amp.fusion<updates, root = 0>
// CHECK-NEXT: amp.sgd_update %[[A:arg[0-9]+]],
// CHECK-NEXT: amp.select %{{.*}}, %{{.*}}, %[[A]]
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<reduction, root = 0>(%{{.*}} = %[[KA]])
// CHECK-NEXT: amp.sum
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<updates, root = 0>
// CHECK-NEXT: amp.sgd_update %[[B:arg[0-9]+]],
// CHECK-NEXT: amp.select %{{.*}}, %{{.*}}, %[[B]]
func.func @update_run_read_early(%a: tensor<4xf32> {amp.param}, %b: tensor<4xf32> {amp.param},
                                 %g: tensor<4xf32>, %ok: tensor<i1>, %lr: tensor<f64>,
                                 %wd: tensor<f64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %a2 = amp.sgd_update %a, %g lr(%lr) weight_decay(%wd) : tensor<4xf32>
  %b2 = amp.sgd_update %b, %g lr(%lr) weight_decay(%wd) : tensor<4xf32>
  %ka = amp.select %ok, %a2, %a : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %s = amp.sum %ka dims = [0] : tensor<4xf32> to tensor<f32>
  %kb = amp.select %ok, %b2, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  return %ka, %kb, %s : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// The same op in two kernels stays in both: CSE after fusion cannot merge
// them across the kernels' boundaries (with kernel numbers as attributes it
// did, and the second kernel then read a value the first kept to itself).
// CHECK-LABEL: func.func @same_op_two_kernels
// CHECK: amp.fusion<loop, root = 1>(%[[X1:arg[0-9]+]] = %arg0)
// CHECK-NEXT: amp.exp %[[X1]]
// CHECK-NEXT: amp.neg
// CHECK: amp.fusion<loop, root = 1>(%[[X2:arg[0-9]+]] = %arg0)
// CHECK-NEXT: amp.exp %[[X2]]
// CHECK-NEXT: amp.abs
func.func @same_op_two_kernels(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e1 = amp.exp %x : tensor<4xf32>
  %n = amp.neg %e1 : tensor<4xf32>
  %e2 = amp.exp %x : tensor<4xf32>
  %a = amp.abs %e2 : tensor<4xf32>
  return %n, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// What the backend cannot compile is refused at the op.
func.func @other_dialect(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'arith.addf' is not supported by the backend (only amp ops are compiled)}}
  %y = arith.addf %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// The runtime's attention: heads of at most 256 channels, values as wide as
// keys, and a causal mask only on as many queries as keys.
func.func @attention_wide_values(%q: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  // expected-error@+1 {{the backend's attention takes f16, bf16 or f32 heads of at most 256 channels, with values as wide as keys}}
  %o = amp.attention %q, %q, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

func.func @attention_causal_lengths(%q: tensor<1x1x2x8xf32>, %k: tensor<1x1x4x8xf32>) -> tensor<1x1x2x8xf32> {
  // expected-error@+1 {{the backend's causal attention needs as many queries as keys; this one has 2 and 4}}
  %o = amp.attention %q, %k, %k causal : tensor<1x1x2x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
  return %o : tensor<1x1x2x8xf32>
}

// -----

func.func @attention_grad_f64(%q: tensor<1x1x4x8xf64>, %lse: tensor<1x1x4xf64>) -> tensor<1x1x4x8xf64> {
  // expected-error@+1 {{the backend's attention takes f16, bf16 or f32 heads of at most 256 channels, with values as wide as keys}}
  %dq, %dk, %dv = amp.attention_grad %q, %q, %q, %q, %lse, %q : tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>, tensor<1x1x4xf64>, tensor<1x1x4x8xf64>
  return %dq : tensor<1x1x4x8xf64>
}

// -----

// A cross-entropy and its gradient over the same logits and labels are one
// kernel, where the gradient was: each row is read once for both.
// CHECK-LABEL: func.func @cross_entropy_with_grad
// CHECK: %[[K:.*]]:2 = amp.fusion<loss_grad, root = 0>(%[[X:arg[0-9]+]] = %arg0, %[[Y:arg[0-9]+]] = %arg1, %[[G:arg[0-9]+]] = %arg2) : (tensor<4x8xf16>, tensor<4xi64>, tensor<f32>) -> (tensor<f32>, tensor<4x8xf16>) {
// CHECK-NEXT: %[[L:.*]] = amp.cross_entropy %[[X]], %[[Y]]
// CHECK-NEXT: %[[D:.*]] = amp.cross_entropy_grad %[[X]], %[[Y]], %[[G]]
// CHECK-NEXT: amp.yield %[[L]], %[[D]]
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @cross_entropy_with_grad(%x: tensor<4x8xf16>, %y: tensor<4xi64>, %g: tensor<f32>) -> (tensor<f32>, tensor<4x8xf16>) {
  %l = amp.cross_entropy %x, %y : tensor<4x8xf16>, tensor<4xi64> to tensor<f32>
  %d = amp.cross_entropy_grad %x, %y, %g : tensor<4x8xf16>, tensor<4xi64>, tensor<f32>
  return %l, %d : tensor<f32>, tensor<4x8xf16>
}

// -----

// Not when the loss is read before the gradient (the gradient's seed here),
// nor for other labels: three kernels of one op each.
// CHECK-LABEL: func.func @cross_entropy_apart
// CHECK: amp.fusion<single, root = 0>{{.*}} {
// CHECK-NEXT: amp.cross_entropy %
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<rows, root = 0>{{.*}} {
// CHECK-NEXT: amp.cross_entropy_grad
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<rows, root = 0>{{.*}} {
// CHECK-NEXT: amp.cross_entropy_grad
// CHECK-NEXT: amp.yield
func.func @cross_entropy_apart(%x: tensor<4x8xf32>, %y: tensor<4xi64>, %z: tensor<4xi64>) -> (tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %l = amp.cross_entropy %x, %y : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
  %d = amp.cross_entropy_grad %x, %y, %l : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
  %e = amp.cross_entropy_grad %x, %z, %l : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
  return %l, %d, %e : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// An elementwise kernel read only by one reduction of its last value runs
// in that reduction's loads: a layer norm's scale gradient (a product with
// a broadcast operand summed over the rows) and a squared norm of a cast.
// CHECK-LABEL: func.func @reduction_prologue
// CHECK: amp.fusion<reduction, root = 1>{{.*}} -> tensor<8xf32> {
// CHECK-NEXT: %[[P:.*]] = amp.mul
// CHECK-NEXT: %[[S:.*]] = amp.sum %[[P]] dims = [0]
// CHECK-NEXT: amp.yield %[[S]]
// CHECK: amp.fusion<reduction, root = 2>{{.*}} -> tensor<f32> {
// CHECK-NEXT: %[[C:.*]] = amp.cast
// CHECK-NEXT: %[[Q:.*]] = amp.mul %[[C]], %[[C]]
// CHECK-NEXT: %[[N:.*]] = amp.max %[[Q]]
// CHECK-NEXT: amp.yield %[[N]]
func.func @reduction_prologue(%dy: tensor<4x8xf32>, %g: tensor<8xf32>, %c: tensor<4x8xbf16>) -> (tensor<8xf32>, tensor<f32>) {
  %p = amp.mul %dy, %g : tensor<4x8xf32>, tensor<8xf32>
  %s = amp.sum %p dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  %w = amp.cast %c : tensor<4x8xbf16> to tensor<4x8xf32>
  %q = amp.mul %w, %w : tensor<4x8xf32>, tensor<4x8xf32>
  %n = amp.max %q dims = [0, 1] : tensor<4x8xf32> to tensor<f32>
  return %s, %n : tensor<8xf32>, tensor<f32>
}

// -----

// Not when the chain's value is read elsewhere too (its kernel stores
// it; an exp of it read only by the sum still joins the sum), nor a
// matmul's (its bias add is the matmul's bias): those reductions read
// memory.
// CHECK-LABEL: func.func @reduction_prologue_apart
// CHECK: amp.fusion<loop, root = 0>{{.*}} {
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<reduction, root = 0>{{.*}} {
// CHECK-NEXT: amp.sum
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<reduction, root = 1>{{.*}} {
// CHECK-NEXT: amp.exp
// CHECK-NEXT: amp.sum
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<gemm, root = 0>{{.*}} {
// CHECK-NEXT: amp.matmul {{.*}} bias
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<reduction, root = 0>{{.*}} {
// CHECK-NEXT: amp.mean
// CHECK-NEXT: amp.yield
func.func @reduction_prologue_apart(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<f32>) {
  %p = amp.mul %x, %x : tensor<4x8xf32>, tensor<4x8xf32>
  %s = amp.sum %p dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  %e = amp.exp %p : tensor<4x8xf32>
  %t = amp.sum %e dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  %mm = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32> to tensor<4x3xf32>
  %h = amp.add %mm, %b : tensor<4x3xf32>, tensor<3xf32>
  %m = amp.mean %h dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
  return %s, %p, %t, %m : tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<f32>
}

// -----

// The elementwise kernel that reads a row op's result runs in the row
// kernel's stores: a layer norm's cast for the next GEMM, the result still
// yielded for the sum after it.
// CHECK-LABEL: func.func @row_epilogue
// CHECK: %[[K:.*]]:2 = amp.fusion<rows, root = 0>{{.*}} -> (tensor<4x8xf32>, tensor<4x8xbf16>) {
// CHECK-NEXT: %[[N:.*]] = amp.layer_norm
// CHECK-NEXT: %[[C:.*]] = amp.cast %[[N]]
// CHECK-NEXT: amp.yield %[[N]], %[[C]]
// CHECK: amp.matmul
// CHECK: amp.sum
func.func @row_epilogue(%x: tensor<4x8xf32>, %w: tensor<8x3xbf16>) -> (tensor<4x3xbf16>, tensor<8xf32>) {
  %n = amp.layer_norm %x : tensor<4x8xf32>
  %c = amp.cast %n : tensor<4x8xf32> to tensor<4x8xbf16>
  %mm = amp.matmul %c, %w : tensor<4x8xbf16>, tensor<8x3xbf16> to tensor<4x3xbf16>
  %s = amp.sum %n dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  return %mm, %s : tensor<4x3xbf16>, tensor<8xf32>
}

// -----

// Not when another op reads the result before the elementwise kernel would
// run, nor when two elementwise kernels read it; an elementwise op before
// the row op may join (the kernel runs where its last op was).
// CHECK-LABEL: func.func @row_epilogue_apart
// CHECK: amp.fusion<rows, root = 0>{{.*}} {
// CHECK-NEXT: amp.softmax
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<reduction, root = 0>{{.*}} {
// CHECK-NEXT: amp.max
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<loop, root = 0>{{.*}} {
// CHECK-NEXT: amp.cast
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<rows, root = 0>{{.*}} {
// CHECK-NEXT: amp.layer_norm
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<loop, root = 0>{{.*}} {
// CHECK-NEXT: amp.exp
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<loop, root = 0>{{.*}} {
// CHECK-NEXT: amp.sqrt
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<rows, root = 1>{{.*}} {
// CHECK-NEXT: amp.neg
// CHECK-NEXT: amp.rms_norm
// CHECK-NEXT: amp.add
// CHECK-NEXT: amp.yield
func.func @row_epilogue_apart(%x: tensor<4x8xf32>) -> (tensor<f32>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p = amp.softmax %x dim = 1 : tensor<4x8xf32>
  %m = amp.max %p dims = [0, 1] : tensor<4x8xf32> to tensor<f32>
  %c = amp.cast %p : tensor<4x8xf32> to tensor<4x8xf16>
  %n = amp.layer_norm %x : tensor<4x8xf32>
  %e = amp.exp %n : tensor<4x8xf32>
  %r = amp.sqrt %n : tensor<4x8xf32>
  %early = amp.neg %x : tensor<4x8xf32>
  %q = amp.rms_norm %x : tensor<4x8xf32>
  %sum = amp.add %early, %q : tensor<4x8xf32>, tensor<4x8xf32>
  return %m, %c, %e, %r, %sum : tensor<f32>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A transpose or slice read only by another transpose, slice or concat
// (through reshapes only it reads) runs in that op's loads: a head split
// (slice, reshape, transpose) is one kernel, and so is a merge of head
// gradients (transposes, reshapes, concat). A transpose read twice keeps
// its kernel.
// CHECK-LABEL: func.func @gathers
// CHECK: %[[Q:.*]] = amp.fusion<gather, root = 2>{{.*}} {
// CHECK-NEXT: amp.slice
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.transpose
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<gather, root = 4>{{.*}} {
// CHECK-NEXT: amp.transpose
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.transpose
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.concat
// CHECK-NEXT: amp.yield
// CHECK: %[[T:.*]] = amp.fusion<gather, root = 0>{{.*}} {
// CHECK-NEXT: amp.transpose
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<gather, root = 0>{{.*}} {
// CHECK-NEXT: amp.concat
// CHECK-NEXT: amp.yield
func.func @gathers(%qkv: tensor<2x4x24xf32>, %d: tensor<2x2x4x4xf32>) -> (tensor<2x2x4x4xf32>, tensor<2x4x16xf32>, tensor<2x4x2x4xf32>, tensor<4x4x2x4xf32>) {
  %s = amp.slice %qkv [0, 0, 0] to [2, 4, 8] : tensor<2x4x24xf32> to tensor<2x4x8xf32>
  %r = amp.reshape %s : tensor<2x4x8xf32> to tensor<2x4x2x4xf32>
  %q = amp.transpose %r, [0, 2, 1, 3] : tensor<2x4x2x4xf32> to tensor<2x2x4x4xf32>
  %a = amp.transpose %d, [0, 2, 1, 3] : tensor<2x2x4x4xf32> to tensor<2x4x2x4xf32>
  %am = amp.reshape %a : tensor<2x4x2x4xf32> to tensor<2x4x8xf32>
  %b = amp.transpose %q, [0, 2, 1, 3] : tensor<2x2x4x4xf32> to tensor<2x4x2x4xf32>
  %bm = amp.reshape %b : tensor<2x4x2x4xf32> to tensor<2x4x8xf32>
  %c = amp.concat %am, %bm dim = 2 : tensor<2x4x8xf32>, tensor<2x4x8xf32> to tensor<2x4x16xf32>
  %t = amp.transpose %d, [0, 2, 1, 3] : tensor<2x2x4x4xf32> to tensor<2x4x2x4xf32>
  %tt = amp.concat %t, %t dim = 0 : tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32> to tensor<4x4x2x4xf32>
  return %q, %c, %t, %tt : tensor<2x2x4x4xf32>, tensor<2x4x16xf32>, tensor<2x4x2x4xf32>, tensor<4x4x2x4xf32>
}

// -----

// An elementwise kernel read only by a row op, as an operand, runs in the
// row kernel's loads (a layer norm gradient's dy * scale).
// CHECK-LABEL: func.func @row_prologue
// CHECK: amp.fusion<rows, root = 1>{{.*}} -> tensor<4x8xf32> {
// CHECK-NEXT: %[[G:.*]] = amp.mul
// CHECK-NEXT: %[[D:.*]] = amp.layer_norm_grad %{{.*}}, %[[G]]
// CHECK-NEXT: amp.yield %[[D]]
func.func @row_prologue(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %g = amp.mul %dy, %w : tensor<4x8xf32>, tensor<8xf32>
  %dx = amp.layer_norm_grad %x, %g {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

// Where others read the row's input too, and all of them after the row
// kernel, the row kernel computes it in its loads and stores it once as it
// stores the row (a residual sum before a layer norm: read by the next
// residual add and the backward), with the row's epilogue (here a cast).
// CHECK-LABEL: func.func @row_stored_input
// CHECK: %[[K:.*]]:2 = amp.fusion<rows, root = 1>{{.*}} -> (tensor<4x8xf32>, tensor<4x8xbf16>) {
// CHECK-NEXT: %[[R:.*]] = amp.add
// CHECK-NEXT: %[[N:.*]] = amp.softmax %[[R]]
// CHECK-NEXT: %[[C:.*]] = amp.cast %[[N]]
// CHECK-NEXT: amp.yield %[[R]], %[[C]]
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<loop, root = 0>(%{{.*}} = %[[K]]#0
// CHECK-NEXT: amp.neg
func.func @row_stored_input(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
  %r = amp.add %x, %y : tensor<4x8xf32>, tensor<4x8xf32>
  %s = amp.softmax %r dim = 1 : tensor<4x8xf32>
  %c = amp.cast %s : tensor<4x8xf32> to tensor<4x8xbf16>
  %m = amp.neg %r : tensor<4x8xf32>
  return %c, %m : tensor<4x8xbf16>, tensor<4x8xf32>
}

// -----

// Not when another op reads the input before the row kernel would run,
// nor when the input has another shape than the row's result (a broadcast
// operand is no row input); there the row kernel reads memory.
// CHECK-LABEL: func.func @row_stored_input_apart
// CHECK: amp.fusion<loop, root = 0>
// CHECK-NEXT: amp.neg
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<reduction, root = 0>
// CHECK-NEXT: amp.sum
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.softmax
// CHECK-NEXT: amp.yield
func.func @row_stored_input_apart(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %n = amp.neg %x : tensor<4x8xf32>
  %s = amp.sum %n dims = [1] : tensor<4x8xf32> to tensor<4xf32>
  %t = amp.softmax %n dim = 1 : tensor<4x8xf32>
  return %s, %t : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Nor when the row op reads its input as another operand too (each of its
// loads would compute it, one of them stored).
// CHECK-LABEL: func.func @row_stored_input_read_twice
// CHECK: amp.fusion<loop, root = 0>
// CHECK-NEXT: amp.neg
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<rows, root = 0>
// CHECK-NEXT: amp.softmax_grad
// CHECK-NEXT: amp.yield
func.func @row_stored_input_read_twice(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %n = amp.neg %x : tensor<4x8xf32>
  %g = amp.softmax_grad %n, %n dim = 1 : tensor<4x8xf32>
  return %g, %n : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A widening cast whose readers can all compute it in their loads is
// copied into each: the sum and the layer norm gradient read the bf16
// tensor, and its f32 copy is never stored. A narrowing cast, or one a
// matmul reads, stays one kernel.
// CHECK-LABEL: func.func @widening_casts
// CHECK: amp.fusion<reduction, root = 1>{{.*}} -> tensor<8xf32> {
// CHECK-NEXT: amp.cast %{{.*}} : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: amp.sum
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<rows, root = 1>{{.*}} -> tensor<4x8xf32> {
// CHECK-NEXT: amp.cast %{{.*}} : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: amp.layer_norm_grad
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<loop, root = 0>{{.*}} -> tensor<4x8xbf16> {
// CHECK-NEXT: amp.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<loop, root = 0>{{.*}} -> tensor<8x3xf32> {
// CHECK-NEXT: amp.cast %{{.*}} : tensor<8x3xbf16> to tensor<8x3xf32>
// CHECK-NEXT: amp.yield
// CHECK-NOT: amp.cast
func.func @widening_casts(%dy: tensor<4x8xbf16>, %x: tensor<4x8xf32>, %w: tensor<8x3xbf16>) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<4x8xbf16>, tensor<4x3xf32>, tensor<8x3xf32>) {
  %g = amp.cast %dy : tensor<4x8xbf16> to tensor<4x8xf32>
  %s = amp.sum %g dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  %dx = amp.layer_norm_grad %x, %g {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  %n = amp.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %ns = amp.sum %n dims = [0] : tensor<4x8xbf16> to tensor<8xbf16>
  %wf = amp.cast %w : tensor<8x3xbf16> to tensor<8x3xf32>
  %mm = amp.matmul %x, %wf : tensor<4x8xf32>, tensor<8x3xf32> to tensor<4x3xf32>
  return %s, %dx, %ns, %n, %mm, %wf : tensor<8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<4x8xbf16>, tensor<4x3xf32>, tensor<8x3xf32>
}

// -----

// The multiplies that scale gradients by clipping's coefficient (f32, by
// one number, each product read by its update alone) run in the updates'
// kernel, which multiplies each gradient as it loads it: no launch of
// their own, no product in memory.
// CHECK-LABEL: func.func @gradient_scale
// CHECK: %[[K:.*]]:2 = amp.fusion<updates, root = 2>
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]#0, %[[K]]#1
func.func @gradient_scale(%a: tensor<4xf32> {amp.param}, %b: tensor<2x3xf32> {amp.param},
                          %ga: tensor<4xf32>, %gb: tensor<2x3xf32>, %c: tensor<f32>,
                          %lr: tensor<f64>, %wd: tensor<f64>)
    -> (tensor<4xf32>, tensor<2x3xf32>) {
  %sa = amp.mul %ga, %c : tensor<4xf32>, tensor<f32>
  %sb = amp.mul %c, %gb : tensor<f32>, tensor<2x3xf32>
  %a2 = amp.sgd_update %a, %sa lr(%lr) weight_decay(%wd) : tensor<4xf32>
  %b2 = amp.sgd_update %b, %sb lr(%lr) weight_decay(%wd) : tensor<2x3xf32>
  return %a2, %b2 : tensor<4xf32>, tensor<2x3xf32>
}

// -----

// A product that something else reads too, and a product by more than one
// number, are kernels of their own; the updates, neither scaled, are one.
// CHECK-LABEL: func.func @gradient_scale_refused
// CHECK: amp.fusion<loop, root = 0>
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<loop, root = 0>
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<updates, root = 0>
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.yield
func.func @gradient_scale_refused(%a: tensor<4xf32> {amp.param}, %b: tensor<4xf32> {amp.param},
                                  %ga: tensor<4xf32>, %gb: tensor<4xf32>, %c: tensor<f32>,
                                  %cs: tensor<4xf32>, %lr: tensor<f64>, %wd: tensor<f64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %sa = amp.mul %ga, %c : tensor<4xf32>, tensor<f32>
  %sb = amp.mul %gb, %cs : tensor<4xf32>, tensor<4xf32>
  %a2 = amp.sgd_update %a, %sa lr(%lr) weight_decay(%wd) : tensor<4xf32>
  %b2 = amp.sgd_update %b, %sb lr(%lr) weight_decay(%wd) : tensor<4xf32>
  return %a2, %b2, %sa : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Updates scaled by different numbers are two launches.
// CHECK-LABEL: func.func @gradient_scales_differ
// CHECK: amp.fusion<updates, root = 1>
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.fusion<updates, root = 1>
// CHECK-NEXT: amp.mul
// CHECK-NEXT: amp.sgd_update
// CHECK-NEXT: amp.yield
func.func @gradient_scales_differ(%a: tensor<4xf32> {amp.param}, %b: tensor<4xf32> {amp.param},
                                  %ga: tensor<4xf32>, %gb: tensor<4xf32>, %c: tensor<f32>,
                                  %d: tensor<1xf32>, %lr: tensor<f64>, %wd: tensor<f64>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %sa = amp.mul %ga, %c : tensor<4xf32>, tensor<f32>
  %sb = amp.mul %gb, %d : tensor<4xf32>, tensor<1xf32>
  %a2 = amp.sgd_update %a, %sa lr(%lr) weight_decay(%wd) : tensor<4xf32>
  %b2 = amp.sgd_update %b, %sb lr(%lr) weight_decay(%wd) : tensor<4xf32>
  return %a2, %b2 : tensor<4xf32>, tensor<4xf32>
}
