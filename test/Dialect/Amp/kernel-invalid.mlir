// RUN: amp-opt %s -split-input-file -verify-diagnostics

// Every reason an amp.fusion's ops make no kernel the backend runs
// (KernelAnalysis.cpp), and a stated kernel that is not the one its ops
// make: each is the fusion's verifier's error, before any pass runs.

func.func @empty() -> tensor<f32> {
  %c = amp.constant dense<1.0> : tensor<f32>
  // expected-error@+1 {{'amp.fusion' op holds no ops; a kernel computes at least one}}
  %k = amp.fusion(%a = %c) : (tensor<f32>) -> tensor<f32> {
    amp.yield %a : tensor<f32>
  }
  return %k : tensor<f32>
}

// -----

func.func @loop_shapes(%x: tensor<3x2xf32>, %y: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>) {
  // expected-error@+1 {{'amp.fusion' op is no loop: 'amp.neg' has a result that does not broadcast to the last op's shape, which the loop runs over}}
  %k:2 = amp.fusion(%a = %x, %b = %y) : (tensor<3x2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>) {
    %0 = amp.neg %a : tensor<3x2xf32>
    %1 = amp.exp %b : tensor<2xf32>
    amp.yield %0, %1 : tensor<3x2xf32>, tensor<2xf32>
  }
  return %k#0, %k#1 : tensor<3x2xf32>, tensor<2xf32>
}

// -----

// The bias add is the matmul's bias operand now, never an op of its kernel.
func.func @gemm_add(%x: tensor<2x2xf32>, %b: tensor<2xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'amp.fusion' op is no GEMM: an amp.matmul's kernel holds only the matmul and, when it has a bias, the amp.relu that alone reads its result}}
  %k = amp.fusion(%a = %x, %c = %b) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32> {
    %0 = amp.matmul %a, %a : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
    %1 = amp.add %0, %c : tensor<2x2xf32>, tensor<2xf32>
    amp.yield %1 : tensor<2x2xf32>
  }
  return %k : tensor<2x2xf32>
}

// -----

func.func @gemm_relu_without_bias(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'amp.fusion' op is no GEMM}}
  %k = amp.fusion(%a = %x) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = amp.matmul %a, %a : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
    %1 = amp.relu %0 : tensor<2x2xf32>
    amp.yield %1 : tensor<2x2xf32>
  }
  return %k : tensor<2x2xf32>
}

// -----

// The relu's epilogue replaces the product, which is then never stored.
func.func @gemm_product_yielded(%x: tensor<2x2xf32>, %b: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error@+1 {{'amp.fusion' op is no GEMM}}
  %k:2 = amp.fusion(%a = %x, %c = %b) : (tensor<2x2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %0 = amp.matmul %a, %a bias %c : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32> to tensor<2x2xf32>
    %1 = amp.relu %0 : tensor<2x2xf32>
    amp.yield %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
  }
  return %k#0, %k#1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

func.func @update_with_other_op(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f64>, %wd: tensor<f64>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error@+1 {{'amp.fusion' op is no run of updates: 'amp.neg' is neither an optimizer update, the select that guards one nor the multiply that scales its gradient}}
  %k:2 = amp.fusion(%a = %w, %b = %g, %c = %lr, %d = %wd) : (tensor<4xf32>, tensor<4xf32>, tensor<f64>, tensor<f64>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = amp.sgd_update %a, %b lr(%c) weight_decay(%d) : tensor<4xf32>
    %1 = amp.neg %b : tensor<4xf32>
    amp.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  return %k#0, %k#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @updates_unlike(%w: tensor<4xf32>, %v: tensor<4xf32>, %g: tensor<4xf32>, %lr1: tensor<f64>, %lr2: tensor<f64>, %wd: tensor<f64>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error@+1 {{'amp.fusion' op is no run of updates: one launch runs updates of one op with the same attributes, step, hyperparameters, guard and gradient scale, none reading another's result}}
  %k:2 = amp.fusion(%a = %w, %b = %v, %c = %g, %d = %lr1, %e = %lr2, %f = %wd) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = amp.sgd_update %a, %c lr(%d) weight_decay(%f) : tensor<4xf32>
    %1 = amp.sgd_update %b, %c lr(%e) weight_decay(%f) : tensor<4xf32>
    amp.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  return %k#0, %k#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @gather_concat_first(%x: tensor<4x8xf32>, %y: tensor<4x2xf32>) -> tensor<10x4xf32> {
  // expected-error@+1 {{'amp.fusion' op is no gather: only its last op may be an amp.concat}}
  %k = amp.fusion(%a = %x, %b = %y) : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<10x4xf32> {
    %0 = amp.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x2xf32> to tensor<4x10xf32>
    %1 = amp.transpose %0, [1, 0] : tensor<4x10xf32> to tensor<10x4xf32>
    amp.yield %1 : tensor<10x4xf32>
  }
  return %k : tensor<10x4xf32>
}

// -----

func.func @reduction_epilogue(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error@+1 {{'amp.fusion' op is no reduction: its kernel computes only the elementwise ops before it that make its operand}}
  %k = amp.fusion(%a = %x) : (tensor<4xf32>) -> tensor<f32> {
    %0 = amp.sum %a dims = [0] : tensor<4xf32> to tensor<f32>
    %1 = amp.neg %0 : tensor<f32>
    amp.yield %1 : tensor<f32>
  }
  return %k : tensor<f32>
}

// -----

func.func @reduction_prologue_stored(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  // expected-error@+1 {{'amp.fusion' op is no reduction: 'amp.neg', which its loads compute, is yielded; a value computed in a load is never stored}}
  %k:2 = amp.fusion(%a = %x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
    %0 = amp.neg %a : tensor<4xf32>
    %1 = amp.sum %0 dims = [0] : tensor<4xf32> to tensor<f32>
    amp.yield %0, %1 : tensor<4xf32>, tensor<f32>
  }
  return %k#0, %k#1 : tensor<4xf32>, tensor<f32>
}

// -----

// The row's input may be yielded (the row kernel stores it as it stores
// the row), a value it is computed from may not.
func.func @rows_prologue_stored(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  // expected-error@+1 {{'amp.fusion' op is no row kernel: 'amp.neg', which its loads compute, is yielded; a value computed in a load is never stored, but for the row's input, which the row kernel stores as it stores the row}}
  %k:2 = amp.fusion(%a = %x) : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %0 = amp.neg %a : tensor<2x4xf32>
    %1 = amp.exp %0 : tensor<2x4xf32>
    %2 = amp.softmax %1 dim = 1 : tensor<2x4xf32>
    amp.yield %0, %2 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  return %k#0, %k#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

func.func @rows_epilogue_shape(%x: tensor<2x4xf32>, %y: tensor<3x2x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error@+1 {{'amp.fusion' op is no row kernel: 'amp.add', which its stores compute, has a result of another shape than the row op's}}
  %k = amp.fusion(%a = %x, %b = %y) : (tensor<2x4xf32>, tensor<3x2x4xf32>) -> tensor<3x2x4xf32> {
    %0 = amp.softmax %a dim = 1 : tensor<2x4xf32>
    %1 = amp.add %0, %b : tensor<2x4xf32>, tensor<3x2x4xf32>
    amp.yield %1 : tensor<3x2x4xf32>
  }
  return %k : tensor<3x2x4xf32>
}

// -----

// cross_entropy_grad reads its labels and the loss's gradient as they are.
func.func @rows_without_loads(%x: tensor<4x8xf32>, %ids: tensor<4xi64>, %dl: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'amp.fusion' op is no row kernel: 'amp.cross_entropy_grad' does not compute its operands in its loads}}
  %k = amp.fusion(%a = %x, %b = %ids, %c = %dl) : (tensor<4x8xf32>, tensor<4xi64>, tensor<f32>) -> tensor<4x8xf32> {
    %0 = amp.neg %a : tensor<4x8xf32>
    %1 = amp.cross_entropy_grad %0, %b, %c : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
    amp.yield %1 : tensor<4x8xf32>
  }
  return %k : tensor<4x8xf32>
}

// -----

func.func @own_kernel(%w: tensor<8x4xf32>, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'amp.fusion' op is no kernel the backend runs: 'amp.embedding' is a kernel of its own and computes no other op}}
  %k = amp.fusion(%a = %w, %b = %ids) : (tensor<8x4xf32>, tensor<3xi64>) -> tensor<3x4xf32> {
    %0 = amp.embedding %a[%b] : tensor<8x4xf32>, tensor<3xi64>
    %1 = amp.neg %0 : tensor<3x4xf32>
    amp.yield %1 : tensor<3x4xf32>
  }
  return %k : tensor<3x4xf32>
}

// -----

func.func @two_roots(%x: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  // expected-error@+1 {{'amp.fusion' op is no kernel the backend runs: it holds 2 ops that are not elementwise ('amp.sum' first), where a kernel has one at most}}
  %k:2 = amp.fusion(%a = %x) : (tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
    %0 = amp.sum %a dims = [0] : tensor<4xf32> to tensor<f32>
    %1 = amp.max %a dims = [0] : tensor<4xf32> to tensor<f32>
    amp.yield %0, %1 : tensor<f32>, tensor<f32>
  }
  return %k#0, %k#1 : tensor<f32>, tensor<f32>
}

// -----

func.func @declared_wrong(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'amp.fusion' op is declared <gemm, root = 0> but its ops make <loop, root = 1>}}
  %k = amp.fusion<gemm, root = 0>(%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %0 = amp.neg %a : tensor<4xf32>
    %1 = amp.exp %0 : tensor<4xf32>
    amp.yield %1 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @declared_wrong_root(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'amp.fusion' op is declared <loop, root = 0> but its ops make <loop, root = 1>}}
  %k = amp.fusion<loop, root = 0>(%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %0 = amp.neg %a : tensor<4xf32>
    %1 = amp.exp %0 : tensor<4xf32>
    amp.yield %1 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @generic_without_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'amp.fusion' op has no kernel; its ops make <loop, root = 0>}}
  %k = "amp.fusion"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %0 = amp.neg %a : tensor<4xf32>
    amp.yield %0 : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %k : tensor<4xf32>
}

// -----

func.func @unknown_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fused' is no kind of kernel (#amp.kernel)}}
  %k = amp.fusion<fused, root = 0>(%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %0 = amp.neg %a : tensor<4xf32>
    amp.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @kernel_as_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{amp.fusion states its kernel as <kind, root = N>, not as an attribute}}
  %k = amp.fusion(%a = %x) : (tensor<4xf32>) -> tensor<4xf32> attributes {kernel = #amp.kernel<loop, root = 0>} {
    %0 = amp.neg %a : tensor<4xf32>
    amp.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}
