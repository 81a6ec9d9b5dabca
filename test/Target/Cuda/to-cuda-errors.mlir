// RUN: split-file %s %t
// RUN: amp-translate --amp-to-cuda --amp-function=step --split-input-file --verify-diagnostics %t/named.mlir
// RUN: amp-translate --amp-to-cuda --split-input-file --verify-diagnostics %t/default.mlir
// RUN: not amp-translate --amp-to-cuda --amp-function=absent %t/default.mlir 2>&1 | FileCheck %s --check-prefix=ABSENT
// ABSENT: error: amp-to-cuda: no function @absent

// Input amp-to-cuda cannot translate: each is refused with an error at the
// op or function at fault, and nothing is printed.

//--- named.mlir

// A function whose results are not its parameters and a loss.
// expected-error@+1 {{@step is not a training step}}
func.func @step(%w: tensor<4xf32> {amp.param}) -> tensor<f32> {
  %s = amp.fusion(%wi = %w) : (tensor<4xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %0 = amp.sum %wi dims = [0] : tensor<4xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// A loss that is not an f32 scalar.
// expected-error@+1 {{the loss must be an f32 scalar; it is 'tensor<2xf32>'}}
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<2xf32>)
    attributes {amp.arena_size = 256 : i64} {
  %n = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<2xf32> attributes {amp.place = [#amp.place<arena 0>]} {
    %0 = amp.neg %wi : tensor<2xf32>
    amp.yield %0 : tensor<2xf32>
  }
  return %w, %n : tensor<2xf32>, tensor<2xf32>
}

// -----

// Not planned: --amp-fuse and --amp-plan-buffers have not run.
// expected-error@+1 {{@step has no buffer plan; run --amp-fuse and --amp-plan-buffers first}}
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>) {
  %s = amp.sum %w dims = [0] : tensor<2xf32> to tensor<f32>
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

// Planned, but one op was added after fusion and is in no kernel.
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{this op is in no kernel; run --amp-fuse first}}
  %n = amp.neg %w : tensor<2xf32>
  %s = amp.fusion(%ni = %n) : (tensor<2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %0 = amp.sum %ni dims = [0] : tensor<2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

// Dynamic shapes (amp ops have static ones, but a function argument may
// not) are refused before any code is made.
// expected-error@+1 {{the backend needs static shapes; argument #1 is 'tensor<?xf32>'}}
func.func @step(%w: tensor<2xf32> {amp.param}, %x: tensor<?xf32>) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  %s = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %0 = amp.sum %wi dims = [0] : tensor<2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

// An op of another dialect.
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{'arith.constant' is not supported by the backend (only amp ops are compiled)}}
  %c = arith.constant dense<1.0> : tensor<f32>
  return %w, %c : tensor<2xf32>, tensor<f32>
}

// -----

// An op of another dialect inside a kernel.
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  %c = amp.fusion() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    // expected-error@+1 {{'arith.constant' is not supported by the backend (only amp ops are compiled)}}
    %0 = arith.constant dense<1.0> : tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %c : tensor<2xf32>, tensor<f32>
}

// -----

// A buffer plan the emitted code could not trust (hand-edited IR): a
// kernel's result without a place, a slot past the arena's end, an
// argument of another type, scratch memory outside the arena, a kernel
// that computes nothing or hands on its input. (Malformed places and
// negative sizes are the dialect's errors: attributes-invalid.mlir.)
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{amp-to-cuda: this kernel has no place for each result (amp.place); run --amp-plan-buffers again}}
  %s = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<f32> attributes {placement = ["arena 0"]} {
    %0 = amp.sum %wi dims = [0] : tensor<2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{result #0 has no place inside the 256-byte arena (#amp.place<arena 254>)}}
  %s = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 254>]} {
    %0 = amp.sum %wi dims = [0] : tensor<2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{result #0 is placed in argument 0, which is not an argument of its type}}
  %s = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 0>]} {
    %0 = amp.sum %wi dims = [0] : tensor<2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2x3xf32> {amp.param}, %labels: tensor<2xi64>)
    -> (tensor<2x3xf32>, tensor<f32>) attributes {amp.arena_size = 256 : i64} {
  %l = amp.fusion(%wi = %w, %li = %labels) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    // expected-error@+1 {{its scratch memory (amp.scratch) is not inside the arena}}
    %0 = amp.cross_entropy %wi, %li {amp.scratch = 252 : i64} : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %l : tensor<2x3xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{'amp.fusion' op holds no ops; a kernel computes at least one}}
  %n = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<2xf32> attributes {amp.place = [#amp.place<arena 0>]} {
    amp.yield %wi : tensor<2xf32>
  }
  %s = amp.fusion(%ni = %n) : (tensor<2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %0 = amp.sum %ni dims = [0] : tensor<2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{amp-to-cuda: this kernel hands on its input as result #1; run --amp-fuse again}}
  %k:2 = amp.fusion(%wi = %w) : (tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>) attributes {amp.place = [#amp.place<arena 0>, #amp.place<arena 256>]} {
    %0 = amp.sum %wi dims = [0] : tensor<2xf32> to tensor<f32>
    amp.yield %0, %wi : tensor<f32>, tensor<2xf32>
  }
  return %w, %k#0 : tensor<2xf32>, tensor<f32>
}

// -----

// Kernels that --amp-fuse would not form (hand-edited IR; one crashed the
// emitter once, which took the op after an epilogue matmul for its bias
// add) are the dialect's errors, found as the file is read: a matmul
// sharing its kernel with an op that is not the relu of its epilogue.
func.func @step(%w: tensor<2x2xf32> {amp.param}, %x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<f32>)
    attributes {amp.arena_size = 1024 : i64} {
  // expected-error@+1 {{'amp.fusion' op is no GEMM: an amp.matmul's kernel holds only the matmul and, when it has a bias, the amp.relu that alone reads its result}}
  %n = amp.fusion(%xi = %x, %wi = %w) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> attributes {amp.place = [#amp.place<arena 0>]} {
    %0 = amp.matmul %xi, %wi : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
    %1 = amp.neg %0 : tensor<2x2xf32>
    amp.yield %1 : tensor<2x2xf32>
  }
  %s = amp.fusion(%ni = %n) : (tensor<2x2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 256>]} {
    %0 = amp.sum %ni dims = [0, 1] : tensor<2x2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2x2xf32>, tensor<f32>
}

// -----

// Ops that no kernel of the backend can run together.
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 512 : i64} {
  // expected-error@+1 {{'amp.fusion' op is no kernel the backend runs: it holds 2 ops that are not elementwise ('amp.sum' first), where a kernel has one at most}}
  %s = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %0 = amp.sum %wi dims = [0] : tensor<2xf32> to tensor<f32>
    %1 = amp.max %wi dims = [0] : tensor<2xf32> to tensor<f32>
    %2 = amp.add %0, %1 : tensor<f32>, tensor<f32>
    amp.yield %2 : tensor<f32>
  }
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

// Indices that do not come from the batch are checked when the step is
// compiled: a constant label past the classes, an iota past the table.
func.func @step(%w: tensor<2x3xf32> {amp.param}) -> (tensor<2x3xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  %labels = amp.fusion() : () -> tensor<2xi64> attributes {amp.place = [#amp.place<arena 0>]} {
    // expected-note@+1 {{the constant}}
    %0 = amp.constant dense<[0, 3]> : tensor<2xi64>
    amp.yield %0 : tensor<2xi64>
  }
  %l = amp.fusion(%wi = %w, %li = %labels) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 16>]} {
    // expected-error@+1 {{index 3 of a constant is outside [0, 3)}}
    %0 = amp.cross_entropy %wi, %li {amp.scratch = 32 : i64} : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %l : tensor<2x3xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<3x2xf32> {amp.param}) -> (tensor<3x2xf32>, tensor<f32>)
    attributes {amp.arena_size = 768 : i64} {
  %ids = amp.fusion() : () -> tensor<1x4xi64> attributes {amp.place = [#amp.place<arena 0>]} {
    // expected-note@+1 {{the iota}}
    %0 = amp.iota dim = 1 : tensor<1x4xi64>
    amp.yield %0 : tensor<1x4xi64>
  }
  %flat = amp.reshape %ids {amp.place = [#amp.place<view>]} : tensor<1x4xi64> to tensor<4xi64>
  %e = amp.fusion(%wi = %w, %fi = %flat) : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32> attributes {amp.place = [#amp.place<arena 256>]} {
    // expected-error@+1 {{index 3 of an iota is outside [0, 3)}}
    %0 = amp.embedding %wi[%fi] : tensor<3x2xf32>, tensor<4xi64>
    amp.yield %0 : tensor<4x2xf32>
  }
  %s = amp.fusion(%ei = %e) : (tensor<4x2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 512>]} {
    %0 = amp.sum %ei dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<3x2xf32>, tensor<f32>
}

// -----

// amp-autodiff writes the mean's gradient with ignore_index as a summed
// one divided by the count; the mean itself would need the count per row.
func.func @step(%w: tensor<2x3xf32> {amp.param}, %labels: tensor<2xi64>, %g: tensor<f32>)
    -> (tensor<2x3xf32>, tensor<f32>) attributes {amp.arena_size = 256 : i64} {
  %d = amp.fusion(%wi = %w, %li = %labels, %gi = %g) : (tensor<2x3xf32>, tensor<2xi64>, tensor<f32>) -> tensor<2x3xf32> attributes {amp.place = [#amp.place<arena 0>]} {
    // expected-error@+1 {{a cross_entropy_grad with ignore_index and reduction = mean is not supported}}
    %0 = amp.cross_entropy_grad %wi, %li, %gi ignore_index = -100 : tensor<2x3xf32>, tensor<2xi64>, tensor<f32>
    amp.yield %0 : tensor<2x3xf32>
  }
  %s = amp.fusion(%di = %d) : (tensor<2x3xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 32>]} {
    %0 = amp.sum %di dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2x3xf32>, tensor<f32>
}

// -----

// A batch norm left whole that the runtime does not run (its scale is
// f16): amp-decompose rewrites such a one, even with keep-batch-norms.
func.func @step(%x: tensor<4x2xf32>, %g: tensor<2xf16> {amp.param}, %rm: tensor<2xf32>)
    -> (tensor<2xf16>, tensor<f32>) attributes {amp.arena_size = 1024 : i64} {
  %y:3 = amp.fusion(%xi = %x, %gi = %g, %ri = %rm) : (tensor<4x2xf32>, tensor<2xf16>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) attributes {amp.place = [#amp.place<arena 0>, #amp.place<arena 256>, #amp.place<arena 512>]} {
    // expected-error@+1 {{amp-to-cuda: the runtime does not run this batch norm whole; run --amp-decompose first}}
    %0:3 = amp.batch_norm %xi running(%ri, %ri : tensor<2xf32>) scale(%gi : tensor<2xf16>) {training} : tensor<4x2xf32>
    amp.yield %0#0, %0#1, %0#2 : tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  %s = amp.fusion(%yi = %y#0) : (tensor<4x2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 768>]} {
    %0 = amp.sum %yi dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %g, %s : tensor<2xf16>, tensor<f32>
}

//--- default.mlir

// Without --amp-function the planned function is found, and there must be
// exactly one.
// expected-error@+1 {{no function with a buffer plan; run --amp-fuse and --amp-plan-buffers first}}
module {
  func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>) {
    %s = amp.sum %w dims = [0] : tensor<2xf32> to tensor<f32>
    return %w, %s : tensor<2xf32>, tensor<f32>
  }
}

// -----

// expected-error@+1 {{several planned functions (@a, @b); name one with --amp-function}}
module {
  func.func @a(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
      attributes {amp.arena_size = 256 : i64} {
    %s = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
      %0 = amp.sum %wi dims = [0] : tensor<2xf32> to tensor<f32>
      amp.yield %0 : tensor<f32>
    }
    return %w, %s : tensor<2xf32>, tensor<f32>
  }
  func.func @b(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
      attributes {amp.arena_size = 256 : i64} {
    %s = amp.fusion(%wi = %w) : (tensor<2xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
      %0 = amp.sum %wi dims = [0] : tensor<2xf32> to tensor<f32>
      amp.yield %0 : tensor<f32>
    }
    return %w, %s : tensor<2xf32>, tensor<f32>
  }
}
