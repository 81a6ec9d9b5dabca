// RUN: amp-opt %s --split-input-file --verify-diagnostics

// The backend's annotations are checked by the dialect: misplaced or
// malformed ones are errors at the op that carries them.

// Kernels are amp.fusion ops: the integer tags that named them before are
// no annotation of the dialect.
func.func @kernel(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{unknown amp attribute 'amp.kernel'}}
  %y = amp.neg %x {amp.kernel = 0 : i64} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @scratch(%x: tensor<2x3xf32>, %l: tensor<2xi64>) -> tensor<f32> {
  // expected-error@+1 {{'amp.scratch' is a byte count, a non-negative i64}}
  %y = amp.cross_entropy %x, %l {amp.scratch = 1.5 : f32} : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %y : tensor<f32>
}

// -----

// expected-error@+1 {{'amp.arena_size' is a byte count, a non-negative i64}}
func.func @arena(%x: tensor<2xf32>) -> tensor<2xf32> attributes {amp.arena_size = [1]} {
  return %x : tensor<2xf32>
}

// -----

// amp.epilogue is gone: a GEMM's epilogue is its fusion's (a gemm kernel
// with the matmul's bias and the relu after it).
func.func @epilogue(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{unknown amp attribute 'amp.epilogue'}}
  %c = amp.matmul %a, %a {amp.epilogue = "bias"} : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

func.func @kernel_kind(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+2 {{expected ::mlir::amp::KernelKind to be one of: loop, gemm, reduction, rows, gather, updates, loss_grad, single}}
  // expected-error@+1 {{failed to parse Amp_KernelAttr parameter 'kind'}}
  %c = "amp.fusion"(%a) <{kernel = #amp.kernel<fused, root = 0>}> ({
  ^bb0(%x: tensor<2xf32>):
    %0 = amp.neg %x : tensor<2xf32>
    amp.yield %0 : tensor<2xf32>
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

func.func @place_compute(%x: tensor<2xf32>) -> tensor<2xf32> {
  // A value computed outside any kernel has no place of its own.
  // expected-error@+1 {{'amp.place' is an array of one #amp.place per result of an amp.fusion or a view}}
  %y = amp.neg %x {amp.place = [#amp.place<arena 0>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_count(%x: tensor<2xf32>) -> tensor<2x1xf32> {
  // expected-error@+1 {{'amp.place' is an array of one #amp.place per result of an amp.fusion or a view}}
  %y = amp.neg %x {amp.place = [#amp.place<arena 0>, #amp.place<arena 256>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_type(%x: tensor<2xf32>) -> tensor<2x1xf32> {
  // expected-error@+1 {{'amp.place' is an array of one #amp.place per result of an amp.fusion or a view}}
  %y = amp.neg %x {amp.place = [0]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// The string form --amp-plan-buffers wrote before the attribute was typed.
func.func @place_string(%x: tensor<2xf32>) -> tensor<2x1xf32> {
  // expected-error@+1 {{'amp.place' is an array of one #amp.place per result of an amp.fusion or a view}}
  %y = amp.neg %x {amp.place = ["arena 0"]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_bare(%x: tensor<2xf32>) -> tensor<2x1xf32> {
  // expected-error@+1 {{'amp.place' is an array of one #amp.place per result of an amp.fusion or a view}}
  %y = amp.neg %x {amp.place = #amp.place<view>} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @memory(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'amp.memory' is an #amp.memory attribute on a function}}
  %y = amp.neg %x {amp.memory = #amp.memory<arena = 0, arguments = 0, peak = 0, peak_f32 = 0>} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @scratch_negative(%x: tensor<2x3xf32>, %l: tensor<2xi64>) -> tensor<f32> {
  // expected-error@+1 {{'amp.scratch' is a byte count, a non-negative i64}}
  %y = amp.cross_entropy %x, %l {amp.scratch = -8 : i64} : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %y : tensor<f32>
}

// -----

// expected-error@+1 {{'amp.arena_size' is a byte count, a non-negative i64}}
func.func @arena_negative(%x: tensor<2xf32>) -> tensor<2xf32> attributes {amp.arena_size = -256 : i64} {
  return %x : tensor<2xf32>
}

// -----

func.func @place_negative(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{the arena offset of a place is non-negative, got -8}}
  %y = amp.neg %x {amp.place = [#amp.place<arena -8>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_negative_arg(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{the argument index of a place is non-negative, got -1}}
  %y = amp.neg %x {amp.place = [#amp.place<arg -1>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_unknown(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{a place is arena, arg or view, got 'somewhere'}}
  %y = amp.neg %x {amp.place = [#amp.place<somewhere>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_no_offset(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{a place in the arena needs its offset}}
  %y = amp.neg %x {amp.place = [#amp.place<arena>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_no_index(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{a place in the arguments needs the argument's index}}
  %y = amp.neg %x {amp.place = [#amp.place<arg>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_view_number(%x: tensor<2xf32>) -> tensor<2x1xf32> {
  // expected-error@+1 {{a 'view' place has no number}}
  %y = amp.reshape %x {amp.place = [#amp.place<view 3>]} : tensor<2xf32> to tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}

// -----

// Values inside a kernel need no place; the kind that said so is gone.
func.func @place_fused(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{a place is arena, arg or view, got 'fused'}}
  %y = amp.neg %x {amp.place = [#amp.place<fused>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @place_huge(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{integer value too large}}
  %y = amp.neg %x {amp.place = [#amp.place<arena 99999999999999999999>]} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// The dictionary --amp-plan-buffers wrote before the attribute was typed.
// expected-error@+1 {{'amp.memory' is an #amp.memory attribute on a function}}
func.func @memory_dictionary(%x: tensor<2xf32>) -> tensor<2xf32> attributes {amp.memory = {arena = 0 : i64}} {
  return %x : tensor<2xf32>
}

// -----

// expected-error@+1 {{the 'peak' of #amp.memory is a non-negative byte count, got -1}}
func.func @memory_negative(%x: tensor<2xf32>) -> tensor<2xf32> attributes {amp.memory = #amp.memory<arena = 0, arguments = 0, peak = -1, peak_f32 = 0>} {
  return %x : tensor<2xf32>
}

// -----

// expected-error@+1 {{duplicate or unknown struct parameter name: bytes}}
func.func @memory_unknown(%x: tensor<2xf32>) -> tensor<2xf32> attributes {amp.memory = #amp.memory<bytes = 8>} {
  return %x : tensor<2xf32>
}

// -----

func.func @attention_view_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  // Only a slice or a transpose can be an attention's view.
  // expected-error@+1 {{'amp.attention_view' is a unit attribute of an amp.slice or amp.transpose}}
  %y = amp.neg %x {amp.attention_view} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @attention_view_value(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error@+1 {{'amp.attention_view' is a unit attribute of an amp.slice or amp.transpose}}
  %y = amp.transpose %x, [1, 0] {amp.attention_view = 1 : i64} : tensor<2x3xf32> to tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
