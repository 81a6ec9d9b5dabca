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
  %s = amp.sum %w dims = [0] {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<4xf32> to tensor<f32>
  return %s : tensor<f32>
}

// -----

// A loss that is not an f32 scalar.
// expected-error@+1 {{the loss must be an f32 scalar; it is 'tensor<2xf32>'}}
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<2xf32>)
    attributes {amp.arena_size = 256 : i64} {
  %n = amp.neg %w {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2xf32>
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

// Planned, but one op was added after fusion and has no kernel.
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{this op has no kernel; run --amp-fuse first}}
  %n = amp.neg %w : tensor<2xf32>
  %s = amp.sum %n dims = [0] {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2xf32> to tensor<f32>
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

// Dynamic shapes (amp ops have static ones, but a function argument may
// not) are refused before any code is made.
// expected-error@+1 {{the backend needs static shapes; argument #1 is 'tensor<?xf32>'}}
func.func @step(%w: tensor<2xf32> {amp.param}, %x: tensor<?xf32>) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  %s = amp.sum %w dims = [0] {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2xf32> to tensor<f32>
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

// A buffer plan the emitted code could not trust (hand-edited IR): a
// result without a place, a slot past the arena's end, a fused value read
// in another kernel, an argument of another type, scratch memory outside
// the arena. (Malformed places and negative sizes are the dialect's errors:
// attributes-invalid.mlir.)
func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{amp-to-cuda: this op has no place for each result (amp.place); run --amp-plan-buffers again}}
  %s = amp.sum %w dims = [0] {amp.kernel = 0 : i64, placement = ["arena 0"]} : tensor<2xf32> to tensor<f32>
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{result #0 has no place inside the 256-byte arena (#amp.place<arena 254>)}}
  %s = amp.sum %w dims = [0] {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 254>]} : tensor<2xf32> to tensor<f32>
  return %w, %s : tensor<2xf32>, tensor<f32>
}


// -----

func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{result #0 is fused into its kernel but read outside it}}
  %n = amp.neg %w {amp.kernel = 0 : i64, amp.place = [#amp.place<fused>]} : tensor<2xf32>
  %s = amp.sum %n dims = [0] {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2xf32> to tensor<f32>
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{result #0 is placed in argument 0, which is not an argument of its type}}
  %s = amp.sum %w dims = [0] {amp.kernel = 0 : i64, amp.place = [#amp.place<arg 0>]} : tensor<2xf32> to tensor<f32>
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2x3xf32> {amp.param}, %labels: tensor<2xi64>)
    -> (tensor<2x3xf32>, tensor<f32>) attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{its scratch memory (amp.scratch) is not inside the arena}}
  %l = amp.cross_entropy %w, %labels {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>], amp.scratch = 252 : i64} : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %w, %l : tensor<2x3xf32>, tensor<f32>
}

// -----

// Kernels that --amp-fuse would not form (hand-edited IR; the first crashed
// the emitter, which took the op after an epilogue matmul for its bias
// add): a bias epilogue alone in its kernel, a relu epilogue without the
// relu, a matmul sharing its kernel without an epilogue, and an op reading
// a value of a later kernel.
func.func @step(%w: tensor<2x2xf32> {amp.param}, %x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<f32>)
    attributes {amp.arena_size = 1024 : i64} {
  // expected-error@+1 {{amp-to-cuda: the kernel of this matmul is not the matmul and the bias add its amp.epilogue #amp.epilogue<bias> names; run --amp-fuse again}}
  %c = amp.matmul %x, %w {amp.kernel = 0 : i64, amp.epilogue = #amp.epilogue<bias>, amp.place = [#amp.place<arena 0>]} : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  %s = amp.sum %c dims = [0, 1] {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 256>]} : tensor<2x2xf32> to tensor<f32>
  return %w, %s : tensor<2x2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2x2xf32> {amp.param}, %b: tensor<2xf32>, %x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<f32>)
    attributes {amp.arena_size = 1024 : i64} {
  // expected-error@+1 {{amp-to-cuda: the kernel of this matmul is not the matmul and the bias add and relu its amp.epilogue #amp.epilogue<bias_relu> names; run --amp-fuse again}}
  %c = amp.matmul %x, %w {amp.kernel = 0 : i64, amp.epilogue = #amp.epilogue<bias_relu>, amp.place = [#amp.place<fused>]} : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  %a = amp.add %c, %b {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2x2xf32>, tensor<2xf32>
  %s = amp.sum %a dims = [0, 1] {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 256>]} : tensor<2x2xf32> to tensor<f32>
  return %w, %s : tensor<2x2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2x2xf32> {amp.param}, %x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<f32>)
    attributes {amp.arena_size = 1024 : i64} {
  // expected-error@+1 {{amp-to-cuda: this matmul shares its kernel with other ops but has no amp.epilogue; run --amp-fuse again}}
  %c = amp.matmul %x, %w {amp.kernel = 0 : i64, amp.place = [#amp.place<fused>]} : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  %n = amp.neg %c {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2x2xf32>
  %s = amp.sum %n dims = [0, 1] {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 256>]} : tensor<2x2xf32> to tensor<f32>
  return %w, %s : tensor<2x2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2x2xf32> {amp.param}, %b: tensor<2xf32>, %x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<f32>)
    attributes {amp.arena_size = 1024 : i64} {
  // expected-error@+1 {{amp-to-cuda: this matmul has a bias operand but has no amp.epilogue; run --amp-fuse again}}
  %c = amp.matmul %x, %w bias %b {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32> to tensor<2x2xf32>
  %s = amp.sum %c dims = [0, 1] {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 256>]} : tensor<2x2xf32> to tensor<f32>
  return %w, %s : tensor<2x2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2x2xf32> {amp.param}, %b: tensor<2xf32>, %x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<f32>)
    attributes {amp.arena_size = 1024 : i64} {
  // expected-error@+1 {{amp-to-cuda: the kernel of this matmul is not the matmul and relu its amp.epilogue #amp.epilogue<bias_relu> names; run --amp-fuse again}}
  %c = amp.matmul %x, %w bias %b {amp.kernel = 0 : i64, amp.epilogue = #amp.epilogue<bias_relu>, amp.place = [#amp.place<arena 0>]} : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32> to tensor<2x2xf32>
  %s = amp.sum %c dims = [0, 1] {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 256>]} : tensor<2x2xf32> to tensor<f32>
  return %w, %s : tensor<2x2xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
    attributes {amp.arena_size = 512 : i64} {
  %n = amp.neg %w {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2xf32>
  // expected-error@+1 {{amp-to-cuda: this op (kernel 0) reads a value of kernel 1, which runs after it; run --amp-fuse again}}
  %s = amp.sum %n dims = [0] {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 256>]} : tensor<2xf32> to tensor<f32>
  return %w, %s : tensor<2xf32>, tensor<f32>
}

// -----

// Indices that do not come from the batch are checked when the step is
// compiled: a constant label past the classes, an iota past the table.
func.func @step(%w: tensor<2x3xf32> {amp.param}) -> (tensor<2x3xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-note@+1 {{the constant}}
  %labels = amp.constant {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} dense<[0, 3]> : tensor<2xi64>
  // expected-error@+1 {{index 3 of a constant is outside [0, 3)}}
  %l = amp.cross_entropy %w, %labels {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 16>], amp.scratch = 32 : i64} : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %w, %l : tensor<2x3xf32>, tensor<f32>
}

// -----

func.func @step(%w: tensor<3x2xf32> {amp.param}) -> (tensor<3x2xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  // expected-note@+1 {{the iota}}
  %ids = amp.iota dim = 1 {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<1x4xi64>
  %flat = amp.reshape %ids {amp.place = [#amp.place<view>]} : tensor<1x4xi64> to tensor<4xi64>
  // expected-error@+1 {{index 3 of an iota is outside [0, 3)}}
  %e = amp.embedding %w[%flat] {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 64>]} : tensor<3x2xf32>, tensor<4xi64>
  %s = amp.sum %e dims = [0, 1] {amp.kernel = 2 : i64, amp.place = [#amp.place<arena 128>]} : tensor<4x2xf32> to tensor<f32>
  return %w, %s : tensor<3x2xf32>, tensor<f32>
}

// -----

// amp-autodiff writes the mean's gradient with ignore_index as a summed
// one divided by the count; the mean itself would need the count per row.
func.func @step(%w: tensor<2x3xf32> {amp.param}, %labels: tensor<2xi64>, %g: tensor<f32>)
    -> (tensor<2x3xf32>, tensor<f32>) attributes {amp.arena_size = 256 : i64} {
  // expected-error@+1 {{a cross_entropy_grad with ignore_index and reduction = mean is not supported}}
  %d = amp.cross_entropy_grad %w, %labels, %g ignore_index = -100 {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2x3xf32>, tensor<2xi64>, tensor<f32>
  %s = amp.sum %d dims = [0, 1] {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 32>]} : tensor<2x3xf32> to tensor<f32>
  return %w, %s : tensor<2x3xf32>, tensor<f32>
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
    %s = amp.sum %w dims = [0] {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2xf32> to tensor<f32>
    return %w, %s : tensor<2xf32>, tensor<f32>
  }
  func.func @b(%w: tensor<2xf32> {amp.param}) -> (tensor<2xf32>, tensor<f32>)
      attributes {amp.arena_size = 256 : i64} {
    %s = amp.sum %w dims = [0] {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} : tensor<2xf32> to tensor<f32>
    return %w, %s : tensor<2xf32>, tensor<f32>
  }
}
