// RUN: amp-opt %s -split-input-file -verify-diagnostics

// Every diagnostic the amp dialect emits, one case per message (or per branch
// of a check that prints differently), plus representative ODS constraint
// errors.

//===----------------------------------------------------------------------===//
// Dialect attributes: amp.param and unknown amp.* attributes
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'amp.param' must be a unit attribute}}
func.func @param_not_unit(%w: tensor<4xf32> {amp.param = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'amp.param' on argument #1 needs a statically shaped f16, bf16, f32 or f64 tensor, got 'tensor<4xi32>'}}
func.func @param_on_integer_tensor(%x: tensor<4xf32>, %ids: tensor<4xi32> {amp.param}) {
  return
}

// -----

// expected-error @+1 {{'amp.param' on argument #0 needs a statically shaped f16, bf16, f32 or f64 tensor, got 'f32'}}
func.func @param_on_scalar(%w: f32 {amp.param}) {
  return
}

// -----

// expected-error @+1 {{'amp.param' on argument #0 needs a statically shaped f16, bf16, f32 or f64 tensor, got 'tensor<4xf8E4M3FN>'}}
func.func @param_on_fp8(%w: tensor<4xf8E4M3FN> {amp.param}) {
  return
}

// -----

// expected-error @+1 {{'amp.param' on argument #0 needs a statically shaped f16, bf16, f32 or f64 tensor, got 'tensor<?xf32>'}}
func.func @param_on_dynamic_shape(%w: tensor<?xf32> {amp.param}) {
  return
}

// -----

// Declarations have no body; the signature is checked all the same.
// expected-error @+1 {{'amp.param' on argument #1 needs a statically shaped f16, bf16, f32 or f64 tensor, got 'tensor<4xi64>'}}
func.func private @param_on_declaration(tensor<4xf32> {amp.param}, tensor<4xi64> {amp.param})

// -----

// expected-error @+1 {{unknown amp result attribute 'amp.param'}}
func.func private @param_on_result(tensor<4xf32>) -> (tensor<4xf32> {amp.param})

// -----

// An evaluation's outputs are named: each name a non-empty string, no two
// alike.
// expected-error @+1 {{'amp.name' on result #1 must be a non-empty string without NUL characters}}
func.func private @empty_result_name(tensor<4xf32>) -> (tensor<f32> {amp.name = "loss"}, tensor<4xf32> {amp.name = ""})

// -----

// expected-error @+1 {{'amp.name' on result #0 must be a non-empty string without NUL characters}}
func.func private @result_name_not_string(tensor<4xf32>) -> (tensor<f32> {amp.name = 1 : i64})

// -----

// expected-error @+1 {{results #0 and #2 are both named 'loss'}}
func.func private @result_names_twice(tensor<4xf32>) -> (tensor<f32> {amp.name = "loss"}, tensor<4xf32> {amp.name = "y"}, tensor<4xf32> {amp.name = "loss"})

// -----

// expected-error @+1 {{unknown amp argument attribute 'amp.parameter'}}
func.func @unknown_argument_attribute(%w: tensor<4xf32> {amp.parameter}) {
  return
}

// -----

// expected-error @+1 {{'amp.name' on argument #1 must be a non-empty string}}
func.func @name_not_a_string(%w: tensor<4xf32> {amp.name = "w"}, %x: tensor<4xf32> {amp.name = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'amp.name' on argument #0 must be a non-empty string}}
func.func @name_empty(%w: tensor<4xf32> {amp.name = ""}) {
  return
}

// -----

// Compiled steps write names as C strings.
// expected-error @+1 {{'amp.name' on argument #0 must not hold a NUL character}}
func.func @name_with_nul(%w: tensor<4xf32> {amp.name = "w\00x"}) {
  return
}

// -----

// Names key the tensors of a step and its state files.
// expected-error @+1 {{'amp.name' "w" names both argument #1 and argument #3}}
func.func @name_twice(%x: tensor<4xf32>, %w: tensor<4xf32> {amp.name = "w", amp.param},
                      %v: tensor<4xf32> {amp.name = "v"}, %u: tensor<4xf32> {amp.name = "w"}) {
  return
}

// -----

// Declarations have no body; their names are checked all the same.
// expected-error @+1 {{'amp.name' "w" names both argument #0 and argument #1}}
func.func private @name_twice_on_declaration(tensor<4xf32> {amp.name = "w"}, tensor<4xf32> {amp.name = "w"})

// -----

func.func @unknown_op_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown amp attribute 'amp.dtype'}}
  %0 = amp.neg %x {amp.dtype = f16} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @precision_not_a_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.precision' must be f16, bf16 or f32}}
  %0 = amp.neg %x {amp.precision = "f16"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @precision_f64(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.precision' must be f16, bf16 or f32}}
  %0 = amp.neg %x {amp.precision = f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @precision_on_cast(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'amp.precision' applies to ops with a precision category}}
  %0 = amp.cast %x {amp.precision = f16} : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @precision_reason_alone(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.precision_reason' is a string beside 'amp.precision': why the precision is forced}}
  %0 = amp.neg %x {amp.precision_reason = "autocast disabled"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @precision_reason_not_a_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.precision_reason' is a string beside 'amp.precision': why the precision is forced}}
  %0 = amp.neg %x {amp.precision = f32, amp.precision_reason = 3} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @precision_on_return(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.precision' applies to ops with a precision category}}
  return {amp.precision = f32} %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown amp attribute 'amp.param'}}
func.func @param_on_function() attributes {amp.param} {
  return
}

//===----------------------------------------------------------------------===//
// ODS constraints (representative)
//===----------------------------------------------------------------------===//

// -----

func.func @dynamic_operand_generic(%a: tensor<?xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'amp.add' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<?xf32>'}}
  %0 = "amp.add"(%a, %b) : (tensor<?xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.cast' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<?xf16>'}}
  %0 = amp.cast %x : tensor<4xf32> to tensor<?xf16>
  return
}

// -----

func.func @integer_operand(%a: tensor<2xi32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'amp.add' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2xi32>'}}
  %0 = amp.add %a, %b : tensor<2xi32>, tensor<2xi32>
  return
}

// -----

func.func @float_condition(%c: tensor<2xf32>, %a: tensor<2xf32>) {
  // expected-error @+1 {{'amp.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = amp.select %c, %a, %a : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @integer_acc_type(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{'amp.matmul' op attribute 'acc_type' failed to satisfy constraint: f16, bf16, f32 or f64 type attribute}}
  %0 = amp.matmul %a, %b {acc_type = i32} : tensor<2x3xf16>, tensor<3x4xf16> to tensor<2x4xf16>
  return
}

// -----

func.func @fp8_acc_type(%x: tensor<2x3xf16>) {
  // expected-error @+1 {{'amp.sum' op attribute 'acc_type' failed to satisfy constraint: f16, bf16, f32 or f64 type attribute}}
  %0 = amp.sum %x dims = [1] {acc_type = f8E4M3FN} : tensor<2x3xf16> to tensor<2xf16>
  return
}

//===----------------------------------------------------------------------===//
// Result type inference (generic form)
//===----------------------------------------------------------------------===//

// -----

func.func @inferred_type_mismatch(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{'amp.add' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'amp.add' op failed to infer returned types}}
  %0 = "amp.add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// amp.constant, amp.cast, amp.iota
//===----------------------------------------------------------------------===//

// -----

func.func @constant_dense_resource() {
  // expected-error @+1 {{'amp.constant' op value must be a dense elements attribute}}
  %0 = amp.constant dense_resource<blob> : tensor<2xf32>
  return
}

// -----

func.func @constant_sparse() {
  // expected-error @+1 {{'amp.constant' op value must be a dense elements attribute}}
  %0 = amp.constant sparse<[[0]], [1.0]> : tensor<2xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.cast' op result shape [8, 4] does not match the expected [4, 8]}}
  %0 = amp.cast %x : tensor<4x8xf32> to tensor<8x4xf16>
  return
}

// -----

func.func @iota_dim() {
  // expected-error @+1 {{'amp.iota' op dim 2 is out of range for a rank-2 tensor}}
  %0 = amp.iota dim = 2 : tensor<4x4xi64>
  return
}

// -----

func.func @iota_negative_dim() {
  // expected-error @+1 {{'amp.iota' op dim -1 is out of range for a rank-1 tensor}}
  %0 = amp.iota dim = -1 : tensor<4xi32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise: binary ops, select, compare
//===----------------------------------------------------------------------===//

// -----

func.func @binary_element_types(%a: tensor<2x4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'amp.add' op lhs and rhs element types differ: 'f32' vs 'f16' (insert an amp.cast to change precision)}}
  %0 = amp.add %a, %b : tensor<2x4xf32>, tensor<4xf16>
  return
}

// -----

func.func @binary_element_types_div(%a: tensor<4xbf16>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'amp.div' op lhs and rhs element types differ: 'bf16' vs 'f16'}}
  %0 = amp.div %a, %b : tensor<4xbf16>, tensor<4xf16>
  return
}

// -----

func.func @binary_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'amp.mul' op operand shapes [2, 3] and [2] are not broadcast-compatible}}
  %0 = amp.mul %a, %b : tensor<2x3xf32>, tensor<2xf32>
  return
}

// -----

func.func @binary_dynamic_operand(%a: tensor<?xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{operands must be statically shaped tensors}}
  %0 = amp.sub %a, %b : tensor<?xf32>, tensor<2xf32>
  return
}

// -----

func.func @select_element_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'amp.select' op on_true and on_false element types differ: 'f32' vs 'f16'}}
  %0 = amp.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @select_not_broadcastable(%c: tensor<3xi1>, %a: tensor<2x4xf32>, %b: tensor<f32>) {
  // expected-error @+1 {{operand shapes [3] and [2, 4] and [] are not broadcast-compatible}}
  %0 = amp.select %c, %a, %b : tensor<3xi1>, tensor<2x4xf32>, tensor<f32>
  return
}

// -----

func.func @compare_element_types(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'amp.compare' op lhs and rhs element types differ: 'i32' vs 'i64'}}
  %0 = amp.compare lt, %a, %b : tensor<4xi32>, tensor<4xi64>
  return
}

// -----

func.func @compare_not_broadcastable(%a: tensor<4x3xi64>, %b: tensor<4xi64>) {
  // expected-error @+1 {{operand shapes [4, 3] and [4] are not broadcast-compatible}}
  %0 = amp.compare eq, %a, %b : tensor<4x3xi64>, tensor<4xi64>
  return
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_types(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.reshape' op input and result element types differ: 'f32' vs 'f16'}}
  %0 = amp.reshape %x : tensor<2x3xf32> to tensor<6xf16>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.reshape' op cannot reshape 6 elements into 8}}
  %0 = amp.reshape %x : tensor<2x3xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @transpose_permutation_length(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.transpose' op permutation has 3 entries for a rank-2 input}}
  %0 = amp.transpose %x, [1, 0, 2] : tensor<2x3xf32> to tensor<3x2xf32>
  return
}

// -----

func.func @transpose_repeated_entry(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.transpose' op permutation [0, 0] is not a permutation of [0, 2)}}
  %0 = amp.transpose %x, [0, 0] : tensor<2x3xf32> to tensor<2x2xf32>
  return
}

// -----

func.func @transpose_entry_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.transpose' op permutation [2, 0] is not a permutation of [0, 2)}}
  %0 = amp.transpose %x, [2, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  return
}

// -----

func.func @transpose_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.transpose' op result shape [2, 3] does not match the expected [3, 2]}}
  %0 = amp.transpose %x, [1, 0] : tensor<2x3xf32> to tensor<2x3xf32>
  return
}

// -----

func.func @transpose_result_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.transpose' op result element type 'f16' does not match the expected 'f32'}}
  %0 = amp.transpose %x, [1, 0] : tensor<2x3xf32> to tensor<3x2xf16>
  return
}

// -----

func.func @broadcast_to_element_types(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.broadcast_to' op input and result element types differ: 'f32' vs 'bf16'}}
  %0 = amp.broadcast_to %x : tensor<4xf32> to tensor<2x4xbf16>
  return
}

// -----

func.func @broadcast_to_incompatible(%x: tensor<3xf32>) {
  // expected-error @+1 {{'amp.broadcast_to' op cannot broadcast shape [3] to [2, 4]}}
  %0 = amp.broadcast_to %x : tensor<3xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_to_lower_rank(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'amp.broadcast_to' op cannot broadcast shape [2, 4] to [4]}}
  %0 = amp.broadcast_to %x : tensor<2x4xf32> to tensor<4xf32>
  return
}

// -----

func.func @broadcast_to_shrink(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'amp.broadcast_to' op cannot broadcast shape [2, 4] to [1, 4]}}
  %0 = amp.broadcast_to %x : tensor<2x4xf32> to tensor<1x4xf32>
  return
}

// -----

func.func @slice_entry_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.slice' op start and limit need 2 entries each, got 1 and 2}}
  %0 = amp.slice %x [0] to [2, 4] : tensor<4x8xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @slice_limit_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.slice' op slice [4, 9) of dimension 1 is outside [0, 8]}}
  %0 = amp.slice %x [0, 4] to [4, 9] : tensor<4x8xf32> to tensor<4x5xf32>
  return
}

// -----

func.func @slice_start_after_limit(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.slice' op slice [3, 1) of dimension 0 is outside [0, 4]}}
  %0 = amp.slice %x [3, 0] to [1, 8] : tensor<4x8xf32> to tensor<2x8xf32>
  return
}

// -----

func.func @slice_negative_start(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.slice' op slice [-1, 2) of dimension 0 is outside [0, 4]}}
  %0 = amp.slice %x [-1, 0] to [2, 8] : tensor<4x8xf32> to tensor<3x8xf32>
  return
}

// -----

func.func @slice_result_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.slice' op result shape [2, 8] does not match the expected [2, 4]}}
  %0 = amp.slice %x [0, 0] to [2, 4] : tensor<4x8xf32> to tensor<2x8xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{'amp.concat' op expects at least one input}}
  %0 = "amp.concat"() {dim = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'amp.concat' op dim 2 is out of range for a rank-2 tensor}}
  %0 = amp.concat %a, %b dim = 2 : tensor<4x8xf32>, tensor<4x2xf32> to tensor<4x10xf32>
  return
}

// -----

func.func @concat_element_types(%a: tensor<4x8xf32>, %b: tensor<4x2xf16>) {
  // expected-error @+1 {{'amp.concat' op input #0 and input #1 element types differ: 'f32' vs 'f16'}}
  %0 = amp.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x2xf16> to tensor<4x10xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'amp.concat' op input #2 has rank 1, expected 2}}
  %0 = amp.concat %a, %b, %c dim = 1 : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4xf32> to tensor<4x14xf32>
  return
}

// -----

func.func @concat_shape(%a: tensor<4x8xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+1 {{'amp.concat' op input #1 has shape [3, 2], which differs from [4, 8] outside dimension 1}}
  %0 = amp.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<3x2xf32> to tensor<4x10xf32>
  return
}

// -----

func.func @concat_result_shape(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'amp.concat' op result shape [4, 8] does not match the expected [4, 10]}}
  %0 = amp.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x2xf32> to tensor<4x8xf32>
  return
}

// -----

func.func @concat_result_element_type(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'amp.concat' op result element type 'f16' does not match the expected 'f32'}}
  %0 = amp.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x2xf32> to tensor<4x10xf16>
  return
}

//===----------------------------------------------------------------------===//
// amp.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_element_types(%a: tensor<2x3xf16>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'amp.matmul' op lhs and rhs element types differ: 'f16' vs 'f32'}}
  %0 = amp.matmul %a, %b : tensor<2x3xf16>, tensor<3x4xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'amp.matmul' op operands must have rank 2 or more, got 1 and 2}}
  %0 = amp.matmul %a, %b : tensor<3xf32>, tensor<3x4xf32> to tensor<4xf32>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<2x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+1 {{'amp.matmul' op contracting dimensions differ: lhs has 4, rhs has 5}}
  %0 = amp.matmul %a, %b : tensor<2x4xf32>, tensor<5x6xf32> to tensor<2x6xf32>
  return
}

// -----

func.func @matmul_contracting_transposed(%a: tensor<4x2xf32>, %b: tensor<6x5xf32>) {
  // expected-error @+1 {{'amp.matmul' op contracting dimensions differ: lhs has 4, rhs has 5}}
  %0 = amp.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<4x2xf32>, tensor<6x5xf32> to tensor<2x6xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x8x4xf32>, %b: tensor<3x4x6xf32>) {
  // expected-error @+1 {{'amp.matmul' op batch dimensions [2] and [3] are not broadcast-compatible}}
  %0 = amp.matmul %a, %b : tensor<2x8x4xf32>, tensor<3x4x6xf32> to tensor<2x8x6xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<2x8x4xf32>, %b: tensor<4x6xf32>) {
  // expected-error @+1 {{'amp.matmul' op result shape [8, 6] does not match the expected [2, 8, 6]}}
  %0 = amp.matmul %a, %b : tensor<2x8x4xf32>, tensor<4x6xf32> to tensor<8x6xf32>
  return
}

// -----

func.func @matmul_fp8_one_operand(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error @+1 {{'amp.matmul' op an FP8 GEMM needs both lhs_fp8 and rhs_fp8, got only lhs_fp8}}
  %0 = amp.matmul %a, %b {lhs_fp8 = f8E4M3FN} : tensor<2x3xbf16>, tensor<3x4xbf16> to tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_fp8_grad_only(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error @+1 {{'amp.matmul' op grad_fp8 needs lhs_fp8 and rhs_fp8: only an FP8 GEMM has FP8 backward GEMMs}}
  %0 = amp.matmul %a, %b {grad_fp8 = f8E5M2} : tensor<2x3xbf16>, tensor<3x4xbf16> to tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_fp8_both_e5m2(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error @+1 {{'amp.matmul' op lhs_fp8 and rhs_fp8 are both f8E5M2; one operand must be f8E4M3FN (FP8 GEMMs multiply e4m3 by e4m3 or e5m2)}}
  %0 = amp.matmul %a, %b {lhs_fp8 = f8E5M2, rhs_fp8 = f8E5M2} : tensor<2x3xbf16>, tensor<3x4xbf16> to tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_fp8_f64(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) {
  // expected-error @+1 {{'amp.matmul' op an FP8 GEMM scales its operands in f32; got f64 operands}}
  %0 = amp.matmul %a, %b {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<2x3xf64>, tensor<3x4xf64> to tensor<2x4xf64>
  return
}

// -----

func.func @matmul_fp8_acc(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{'amp.matmul' op an FP8 GEMM accumulates in f32, got acc_type 'f16'}}
  %0 = amp.matmul %a, %b {acc_type = f16, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<2x3xf16>, tensor<3x4xf16> to tensor<2x4xf16>
  return
}

// -----

func.func @matmul_fp8_f64_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'amp.matmul' op an FP8 GEMM writes f16, bf16 or f32, got f64}}
  %0 = amp.matmul %a, %b {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf64>
  return
}

// -----

func.func @matmul_fp8_format(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error @+1 {{'amp.matmul' op attribute 'lhs_fp8' failed to satisfy constraint: f8E4M3FN or f8E5M2 type attribute}}
  %0 = amp.matmul %a, %b {lhs_fp8 = f8E4M3FNUZ, rhs_fp8 = f8E4M3FN} : tensor<2x3xbf16>, tensor<3x4xbf16> to tensor<2x4xbf16>
  return
}

// -----

func.func @fp8_attribute(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.fp8' is a bool on an amp.matmul: whether amp-autocast makes it an FP8 GEMM}}
  %0 = amp.neg %x {amp.fp8 = true} : tensor<4xf32>
  return
}

// -----

func.func @fp8_attribute_bool(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'amp.fp8' is a bool on an amp.matmul: whether amp-autocast makes it an FP8 GEMM}}
  %0 = amp.matmul %a, %b {amp.fp8 = 1 : i32} : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @matmul_bias_shape(%a: tensor<2x8x4xf32>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) {
  // expected-error @+1 {{'amp.matmul' op bias must be a vector of the 6 result columns, got [8, 6]}}
  %0 = amp.matmul %a, %b bias %c : tensor<2x8x4xf32>, tensor<4x6xf32>, tensor<8x6xf32> to tensor<2x8x6xf32>
  return
}

// -----

func.func @matmul_bias_columns(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %c: tensor<8xf32>) {
  // expected-error @+1 {{'amp.matmul' op bias must be a vector of the 6 result columns, got [8]}}
  %0 = amp.matmul %a, %b bias %c : tensor<8x4xf32>, tensor<4x6xf32>, tensor<8xf32> to tensor<8x6xf32>
  return
}

// -----

func.func @matmul_bias_type(%a: tensor<8x4xf16>, %b: tensor<4x6xf16>, %c: tensor<6xf32>) {
  // expected-error @+1 {{'amp.matmul' op bias must have the result element type 'f16', got 'f32'}}
  %0 = amp.matmul %a, %b bias %c : tensor<8x4xf16>, tensor<4x6xf16>, tensor<6xf32> to tensor<8x6xf16>
  return
}

// -----

func.func @matmul_accumulator(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'amp.matmul' op accumulator type 'f16' cannot hold 'f32' operands exactly}}
  %0 = amp.matmul %a, %b {acc_type = f16} : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @matmul_accumulator_bf16(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{'amp.matmul' op accumulator type 'bf16' cannot hold 'f16' operands exactly}}
  %0 = amp.matmul %a, %b {acc_type = bf16} : tensor<2x3xf16>, tensor<3x4xf16> to tensor<2x4xf16>
  return
}

//===----------------------------------------------------------------------===//
// amp.attention
//===----------------------------------------------------------------------===//

// -----

func.func @attention_rank(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>) {
  // expected-error @+1 {{query, key and value must be statically shaped rank-4 tensors [batch, heads, sequence, head dim]}}
  %0 = amp.attention %q, %k, %v : tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>
  return
}

// -----

func.func @attention_batch_heads(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{batch and head dimensions of query [2, 4, 16, 8], key [2, 2, 16, 8] and value [2, 4, 16, 8] differ}}
  %0 = amp.attention %q, %k, %v : tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x4x16x8xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x16xf32>, %v: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{query head dim 8 differs from key head dim 16}}
  %0 = amp.attention %q, %k, %v : tensor<2x4x16x8xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>
  return
}

// -----

func.func @attention_sequence(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x32x8xf32>, %v: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{key sequence length 32 differs from value sequence length 16}}
  %0 = amp.attention %q, %k, %v : tensor<2x4x16x8xf32>, tensor<2x4x32x8xf32>, tensor<2x4x16x8xf32>
  return
}

// -----

func.func @attention_key_element_type(%q: tensor<2x4x16x8xf16>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf16>) {
  // expected-error @+1 {{'amp.attention' op query and key element types differ: 'f16' vs 'f32'}}
  %0 = amp.attention %q, %k, %v : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf16>
  return
}

// -----

func.func @attention_value_element_type(%q: tensor<2x4x16x8xf16>, %k: tensor<2x4x16x8xf16>, %v: tensor<2x4x16x8xbf16>) {
  // expected-error @+1 {{'amp.attention' op query and value element types differ: 'f16' vs 'bf16'}}
  %0 = amp.attention %q, %k, %v : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xbf16>
  return
}

// -----

func.func @attention_zero_scale(%q: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{'amp.attention' op scale must be positive and finite, got 0}}
  %0 = amp.attention %q, %q, %q {scale = 0.0 : f64} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>
  return
}

// -----

func.func @attention_infinite_scale(%q: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{'amp.attention' op scale must be positive and finite, got INF}}
  %0 = amp.attention %q, %q, %q causal {scale = 0x7FF0000000000000 : f64} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>
  return
}

// -----

func.func @attention_lse_without_with_lse(%q: tensor<2x4x16x8xf32>) {
  // expected-error @+2 {{'amp.attention' op inferred type(s) 'tensor<2x4x16x8xf32>' are incompatible with return type(s) of operation 'tensor<2x4x16x8xf32>', 'tensor<2x4x16xf32>'}}
  // expected-error @+1 {{'amp.attention' op failed to infer returned types}}
  %0:2 = "amp.attention"(%q, %q, %q) : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

func.func @attention_lse_type(%q: tensor<2x4x16x8xf16>) {
  // expected-error @+2 {{'amp.attention' op inferred type(s) 'tensor<2x4x16x8xf16>', 'tensor<2x4x16xf32>' are incompatible with return type(s) of operation 'tensor<2x4x16x8xf16>', 'tensor<2x4x16xf16>'}}
  // expected-error @+1 {{'amp.attention' op failed to infer returned types}}
  %0:2 = "amp.attention"(%q, %q, %q) <{with_lse}> : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>) -> (tensor<2x4x16x8xf16>, tensor<2x4x16xf16>)
  return
}

//===----------------------------------------------------------------------===//
// amp.attention_grad
//===----------------------------------------------------------------------===//

// -----

func.func @attention_grad_lse_type(%q: tensor<2x4x16x8xf16>, %lse: tensor<2x4x16xf16>) {
  // expected-error @+1 {{'amp.attention_grad' op expects the forward's log-sum-exp of type 'tensor<2x4x16xf32>', got 'tensor<2x4x16xf16>'}}
  %0:3 = amp.attention_grad %q, %q, %q, %q, %lse, %q : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16xf16>, tensor<2x4x16x8xf16>
  return
}

// -----

func.func @attention_grad_lse_shape(%q: tensor<2x4x16x8xf32>, %lse: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'amp.attention_grad' op expects the forward's log-sum-exp of type 'tensor<2x4x16xf32>', got 'tensor<2x4x8xf32>'}}
  %0:3 = amp.attention_grad %q, %q, %q, %q, %lse, %q : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x8xf32>, tensor<2x4x16x8xf32>
  return
}

// -----

func.func @attention_grad_output_shape(%q: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x4xf32>, %lse: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'amp.attention_grad' op expects output and grad of attention's result type 'tensor<2x4x16x4xf32>', got 'tensor<2x4x16x8xf32>' and 'tensor<2x4x16x4xf32>'}}
  %0:3 = amp.attention_grad %q, %q, %v, %q, %lse, %v : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x4xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16x4xf32>
  return
}

// -----

func.func @attention_grad_element_type(%q: tensor<2x4x16x8xf16>, %g: tensor<2x4x16x8xbf16>, %lse: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'amp.attention_grad' op query and grad element types differ: 'f16' vs 'bf16'}}
  %0:3 = amp.attention_grad %q, %q, %q, %q, %lse, %g : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16xf32>, tensor<2x4x16x8xbf16>
  return
}

// -----

func.func @attention_grad_head_dim(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x4xf32>, %lse: tensor<2x4x16xf32>) {
  // expected-error @+1 {{query head dim 8 differs from key head dim 4}}
  %0:3 = amp.attention_grad %q, %k, %q, %q, %lse, %q : tensor<2x4x16x8xf32>, tensor<2x4x16x4xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16x8xf32>
  return
}

// -----

func.func @attention_grad_scale(%q: tensor<2x4x16x8xf32>, %lse: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'amp.attention_grad' op scale must be positive and finite, got -1}}
  %0:3 = amp.attention_grad %q, %q, %q, %q, %lse, %q {scale = -1.0} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16x8xf32>
  return
}

// -----

func.func @attention_grad_result_type(%q: tensor<2x4x16x8xf16>, %lse: tensor<2x4x16xf32>) {
  // expected-error @+2 {{'amp.attention_grad' op inferred type(s) 'tensor<2x4x16x8xf16>', 'tensor<2x4x16x8xf16>', 'tensor<2x4x16x8xf16>' are incompatible with return type(s) of operation 'tensor<2x4x16x8xf32>', 'tensor<2x4x16x8xf32>', 'tensor<2x4x16x8xf32>'}}
  // expected-error @+1 {{'amp.attention_grad' op failed to infer returned types}}
  %0:3 = "amp.attention_grad"(%q, %q, %q, %q, %lse, %q) : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16xf32>, tensor<2x4x16x8xf16>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @reduction_no_dims(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.sum' op expects at least one dimension to reduce}}
  %0 = amp.sum %x dims = [] : tensor<2x3xf32> to tensor<2x3xf32>
  return
}

// -----

func.func @reduction_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.mean' op dims entry 2 is out of range for a rank-2 tensor}}
  %0 = amp.mean %x dims = [2] : tensor<2x3xf32> to tensor<2xf32>
  return
}

// -----

func.func @reduction_negative_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.max' op dims entry -1 is out of range for a rank-2 tensor}}
  %0 = amp.max %x dims = [-1] : tensor<2x3xf32> to tensor<2xf32>
  return
}

// -----

func.func @reduction_duplicate_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.sum' op dimension 1 is reduced twice}}
  %0 = amp.sum %x dims = [1, 1] : tensor<2x3xf32> to tensor<2xf32>
  return
}

// -----

func.func @reduction_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.mean' op result shape [2] does not match the expected [2, 1]}}
  %0 = amp.mean %x dims = [1] keepdims : tensor<2x3xf32> to tensor<2xf32>
  return
}

// -----

func.func @reduction_result_shape_dropped(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.max' op result shape [2, 1] does not match the expected [2]}}
  %0 = amp.max %x dims = [1] : tensor<2x3xf32> to tensor<2x1xf32>
  return
}

// -----

func.func @sum_accumulator(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.sum' op accumulator type 'f16' cannot hold 'f32' operands exactly}}
  %0 = amp.sum %x dims = [1] {acc_type = f16} : tensor<2x3xf32> to tensor<2xf32>
  return
}

// -----

func.func @mean_accumulator(%x: tensor<2x3xf64>) {
  // expected-error @+1 {{'amp.mean' op accumulator type 'f32' cannot hold 'f64' operands exactly}}
  %0 = amp.mean %x dims = [0] {acc_type = f32} : tensor<2x3xf64> to tensor<3xf64>
  return
}

// -----

func.func @max_element_type(%x: tensor<2x3xf16>) {
  // expected-error @+1 {{'amp.max' op input and result element types differ: 'f16' vs 'f32'}}
  %0 = amp.max %x dims = [1] : tensor<2x3xf16> to tensor<2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

// -----

func.func @softmax_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.softmax' op dim 2 is out of range for a rank-2 tensor}}
  %0 = amp.softmax %x dim = 2 : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.log_softmax' op dim -1 is out of range for a rank-2 tensor}}
  %0 = amp.log_softmax %x dim = -1 : tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'amp.layer_norm' op input must have rank 1 or more}}
  %0 = amp.layer_norm %x : tensor<f32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'amp.layer_norm' op axis 3 is out of range for a rank-3 tensor}}
  %0 = amp.layer_norm %x {axis = 3 : i64} : tensor<2x16x64xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'amp.layer_norm' op epsilon must be non-negative and finite, got -1.000000e-05}}
  %0 = amp.layer_norm %x {epsilon = -1.0e-05 : f64} : tensor<2x16x64xf32>
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<2x16x64xf32>, %g: tensor<16x64xf32>) {
  // expected-error @+1 {{'amp.layer_norm' op weight shape [16, 64] does not match the normalised shape [64]}}
  %0 = amp.layer_norm %x scale(%g : tensor<16x64xf32>) : tensor<2x16x64xf32>
  return
}

// -----

func.func @layer_norm_bias(%x: tensor<2x16x64xf16>, %g: tensor<16x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'amp.layer_norm' op bias shape [64] does not match the normalised shape [16, 64]}}
  %0 = amp.layer_norm %x scale(%g : tensor<16x64xf32>) bias(%b : tensor<64xf32>) {axis = 1 : i64} : tensor<2x16x64xf16>
  return
}

// -----

func.func @rms_norm_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'amp.rms_norm' op input must have rank 1 or more}}
  %0 = amp.rms_norm %x : tensor<f32>
  return
}

// -----

func.func @rms_norm_axis(%x: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'amp.rms_norm' op axis -1 is out of range for a rank-3 tensor}}
  %0 = amp.rms_norm %x {axis = -1 : i64} : tensor<2x16x64xf32>
  return
}

// -----

func.func @rms_norm_epsilon(%x: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'amp.rms_norm' op epsilon must be non-negative and finite, got nan}}
  %0 = amp.rms_norm %x {epsilon = 0x7FF8000000000000 : f64} : tensor<2x16x64xf32>
  return
}

// -----

func.func @rms_norm_weight(%x: tensor<2x16x64xbf16>, %g: tensor<32xf32>) {
  // expected-error @+1 {{'amp.rms_norm' op weight shape [32] does not match the normalised shape [64]}}
  %0 = amp.rms_norm %x scale(%g : tensor<32xf32>) : tensor<2x16x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// amp.embedding
//===----------------------------------------------------------------------===//

// -----

func.func @embedding_table_rank(%t: tensor<96xf32>, %ids: tensor<2x16xi64>) {
  // expected-error @+1 {{table must be a statically shaped rank-2 tensor [rows, features]}}
  %0 = amp.embedding %t[%ids] : tensor<96xf32>, tensor<2x16xi64>
  return
}

// -----

func.func @embedding_dynamic_indices(%t: tensor<96x64xf32>, %ids: tensor<?x16xi64>) {
  // expected-error @+1 {{indices must be a statically shaped tensor}}
  %0 = amp.embedding %t[%ids] : tensor<96x64xf32>, tensor<?x16xi64>
  return
}

// -----

func.func @embedding_no_rows(%t: tensor<0x64xf32>, %ids: tensor<2x16xi64>) {
  // expected-error @+1 {{'amp.embedding' op operand #0 of type 'tensor<0x64xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %0 = amp.embedding %t[%ids] : tensor<0x64xf32>, tensor<2x16xi64>
  return
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// -----

func.func @cross_entropy_rank0(%logits: tensor<f32>, %y: tensor<i64>) {
  // expected-error @+1 {{'amp.cross_entropy' op logits must have a class dimension}}
  %0 = amp.cross_entropy %logits, %y : tensor<f32>, tensor<i64> to tensor<f32>
  return
}

// -----

func.func @cross_entropy_labels(%logits: tensor<64x10xf32>, %y: tensor<64x10xi64>) {
  // expected-error @+1 {{'amp.cross_entropy' op labels shape [64, 10] does not match the logits' leading shape [64]}}
  %0 = amp.cross_entropy %logits, %y : tensor<64x10xf32>, tensor<64x10xi64> to tensor<f32>
  return
}

// -----

func.func @cross_entropy_result(%logits: tensor<64x10xf32>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'amp.cross_entropy' op result must be a 0-d tensor, got 'tensor<64xf32>'}}
  %0 = amp.cross_entropy %logits, %y reduction = sum : tensor<64x10xf32>, tensor<64xi64> to tensor<64xf32>
  return
}

// -----

func.func @mse_types(%p: tensor<64x1xf32>, %t: tensor<64x1xf16>) {
  // expected-error @+1 {{'amp.mse_loss' op input and target types differ: 'tensor<64x1xf32>' vs 'tensor<64x1xf16>'}}
  %0 = amp.mse_loss %p, %t : tensor<64x1xf32>, tensor<64x1xf16> to tensor<f32>
  return
}

// -----

func.func @mse_shapes(%p: tensor<64x1xf32>, %t: tensor<64xf32>) {
  // expected-error @+1 {{'amp.mse_loss' op input and target types differ: 'tensor<64x1xf32>' vs 'tensor<64xf32>'}}
  %0 = amp.mse_loss %p, %t : tensor<64x1xf32>, tensor<64xf32> to tensor<f32>
  return
}

// -----

func.func @mse_result(%p: tensor<64x1xf32>, %t: tensor<64x1xf32>) {
  // expected-error @+1 {{'amp.mse_loss' op result must be a 0-d tensor, got 'tensor<1xf32>'}}
  %0 = amp.mse_loss %p, %t : tensor<64x1xf32>, tensor<64x1xf32> to tensor<1xf32>
  return
}

// -----

func.func @embedding_rank0_table_generic(%t: tensor<f32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'amp.embedding' op table must have rank 2 [rows, features], got 'tensor<f32>'}}
  %0 = "amp.embedding"(%t, %i) : (tensor<f32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @attention_zero_head_dim(%q: tensor<1x1x4x0xf32>, %k: tensor<1x1x4x0xf32>, %v: tensor<1x1x4x8xf32>) {
  // expected-error @+1 {{'amp.attention' op operand #0 of type 'tensor<1x1x4x0xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %0 = amp.attention %q, %k, %v : tensor<1x1x4x0xf32>, tensor<1x1x4x0xf32>, tensor<1x1x4x8xf32>
  return
}

// -----

func.func @cross_entropy_no_classes(%logits: tensor<2x0xf32>, %y: tensor<2xi64>) {
  // expected-error @+1 {{'amp.cross_entropy' op operand #0 of type 'tensor<2x0xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %0 = amp.cross_entropy %logits, %y : tensor<2x0xf32>, tensor<2xi64> to tensor<f32>
  return
}

// -----

func.func @max_over_empty_dimension(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{'amp.max' op operand #0 of type 'tensor<2x0xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %0 = amp.max %x dims = [1] : tensor<2x0xf32> to tensor<2xf32>
  return
}

// -----

// 2^62 * 4 wraps to 0 in 64 bits; it must not pass for an empty tensor.
func.func @reshape_element_count_overflow(%big: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{'amp.reshape' op operand #0 of type 'tensor<4611686018427387904x4xf32>' is too large: its size in bytes does not fit in 64 bits}}
  %0 = amp.reshape %big : tensor<4611686018427387904x4xf32> to tensor<1xf32>
  return
}

// -----

func.func @softmax_grad_dim(%y: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.softmax_grad' op dim 2 is out of range for a rank-2 tensor}}
  %0 = amp.softmax_grad %y, %y dim = 2 : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_grad_dim(%y: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.log_softmax_grad' op dim -1 is out of range for a rank-2 tensor}}
  %0 = amp.log_softmax_grad %y, %y dim = -1 : tensor<2x3xf32>
  return
}

// -----

func.func @grad_arguments(%x: tensor<3xf32>) {
  // expected-error @+1 {{'amp.grad' op has 1 inputs but its region takes 2 arguments}}
  %0:2 = amp.grad (%x) : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %s = amp.sum %a dims = [0] : tensor<3xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @grad_argument_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'amp.grad' op input #0 is 'tensor<3xf32>' but the region's argument #0 is 'tensor<3xf16>'}}
  %0:2 = amp.grad (%x) : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%a: tensor<3xf16>):
    %s = amp.sum %a dims = [0] : tensor<3xf16> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @grad_not_scalar(%x: tensor<3xf32>) {
  // expected-error @+1 {{'amp.grad' op region must yield one 0-d floating-point value, the one whose gradient it takes}}
  %0:2 = amp.grad (%x) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%a: tensor<3xf32>):
    amp.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @grad_results(%x: tensor<3xf32>) {
  // expected-error @+1 {{'amp.grad' op results must be the yielded value's type, then each input's: ('tensor<f32>', 'tensor<3xf32>'), got ('tensor<f32>')}}
  %0 = amp.grad (%x) : (tensor<3xf32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<3xf32>):
    %s = amp.sum %a dims = [0] : tensor<3xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @grad_integer_input(%x: tensor<3xi64>) {
  // expected-error @+1 {{'amp.grad' op operand #0 must be variadic of}}
  %0:2 = amp.grad (%x) : (tensor<3xi64>) -> (tensor<f32>, tensor<3xi64>) {
  ^bb0(%a: tensor<3xi64>):
    %c = amp.constant dense<1.0> : tensor<f32>
    amp.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @norm_stats_type(%x: tensor<2x3xbf16>) {
  // expected-error @+1 {{'amp.norm_stats' op computes the statistics of an f32 or f64 input, as a norm computes them, got 'bf16'; cast the input first}}
  %0:2 = amp.norm_stats %x {centered, epsilon = 1.0e-5} : tensor<2x3xbf16> to tensor<2x1xbf16>, tensor<2x1xbf16>
  return
}

// -----

func.func @norm_stats_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.norm_stats' op results must be 'tensor<2x1xf32>' (the input's shape, each normalised dimension of size 1, and its type), got 'tensor<2xf32>'}}
  %0:2 = amp.norm_stats %x {centered, epsilon = 1.0e-5} : tensor<2x3xf32> to tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @norm_stats_deviation(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.norm_stats' op results must be 'tensor<2x1xf32>' (the input's shape, each normalised dimension of size 1, and its type), got 'tensor<2x1xf64>'}}
  %0:2 = amp.norm_stats %x {centered, epsilon = 1.0e-5} : tensor<2x3xf32> to tensor<2x1xf32>, tensor<2x1xf64>
  return
}

// -----

func.func @norm_stats_epsilon(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.norm_stats' op epsilon must be non-negative and finite, got -1.000000e+00}}
  %0:2 = amp.norm_stats %x {epsilon = -1.0} : tensor<2x3xf32> to tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @norm_stats_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.norm_stats' op axis 2 is out of range for a rank-2 tensor}}
  %0:2 = amp.norm_stats %x {axis = 2, epsilon = 1.0e-5} : tensor<2x3xf32> to tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @layer_norm_grad_epsilon(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.layer_norm_grad' op epsilon must be non-negative and finite, got -1.000000e+00}}
  %0 = amp.layer_norm_grad %x, %x {epsilon = -1.0} : tensor<2x3xf32>
  return
}

// -----

func.func @rms_norm_grad_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amp.rms_norm_grad' op axis 2 is out of range for a rank-2 tensor}}
  %0 = amp.rms_norm_grad %x, %x {axis = 2, epsilon = 1.0e-6} : tensor<2x3xf32>
  return
}

// -----

func.func @cross_entropy_grad_labels(%l: tensor<4x3xf32>, %y: tensor<3xi64>, %g: tensor<f32>) {
  // expected-error @+1 {{'amp.cross_entropy_grad' op labels shape [3] does not match the logits' leading shape [4]}}
  %0 = amp.cross_entropy_grad %l, %y, %g : tensor<4x3xf32>, tensor<3xi64>, tensor<f32>
  return
}

// -----

func.func @cross_entropy_grad_seed_rank(%l: tensor<4x3xf32>, %y: tensor<4xi64>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'amp.cross_entropy_grad' op the loss gradient must be a 0-d tensor, got 'tensor<1xf32>'}}
  %0 = amp.cross_entropy_grad %l, %y, %g : tensor<4x3xf32>, tensor<4xi64>, tensor<1xf32>
  return
}

// -----

func.func @cross_entropy_grad_no_classes(%l: tensor<4x0xf32>, %y: tensor<4xi64>, %g: tensor<f32>) {
  // expected-error @+1 {{'amp.cross_entropy_grad' op operand #0 of type 'tensor<4x0xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %0 = amp.cross_entropy_grad %l, %y, %g : tensor<4x0xf32>, tensor<4xi64>, tensor<f32>
  return
}

// -----

func.func @embedding_grad_shape(%ids: tensor<4xi64>, %g: tensor<5x8xf32>) {
  // expected-error @+1 {{'amp.embedding_grad' op gradient shape [5, 8] must be the indices shape [4] plus a feature dimension}}
  %0 = amp.embedding_grad %ids, %g : tensor<4xi64>, tensor<5x8xf32> to tensor<10x8xf32>
  return
}

// -----

func.func @embedding_grad_result(%ids: tensor<4xi64>, %g: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.embedding_grad' op result must be a table [rows, features], got 'tensor<8xf32>'}}
  %0 = amp.embedding_grad %ids, %g : tensor<4xi64>, tensor<4x8xf32> to tensor<8xf32>
  return
}

// -----

func.func @embedding_grad_width(%ids: tensor<4xi64>, %g: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.embedding_grad' op result shape [10, 7] does not match the expected [10, 8]}}
  %0 = amp.embedding_grad %ids, %g : tensor<4xi64>, tensor<4x8xf32> to tensor<10x7xf32>
  return
}

// -----

func.func @attention_no_keys(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x0x8xf32>, %v: tensor<1x1x0x8xf32>) {
  // expected-error @+1 {{'amp.attention' op operand #1 of type 'tensor<1x1x0x8xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %0 = amp.attention %q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x0x8xf32>, tensor<1x1x0x8xf32>
  return
}

// -----

func.func @sgd_negative_lr(%p: tensor<4xf32>, %wd: tensor<f64>) {
  %lr = amp.constant dense<-1.0> : tensor<f64>
  // expected-error @+1 {{'amp.sgd_update' op lr must lie in [0, inf), got -1.000000e+00}}
  %0 = amp.sgd_update %p, %p lr(%lr) weight_decay(%wd) : tensor<4xf32>
  return
}

// -----

func.func @sgd_weight_decay(%p: tensor<4xf32>, %lr: tensor<f64>) {
  %wd = amp.constant dense<-0.1> : tensor<f64>
  // expected-error @+1 {{'amp.sgd_update' op weight_decay must lie in [0, inf), got -1.000000e-01}}
  %0 = amp.sgd_update %p, %p lr(%lr) weight_decay(%wd) : tensor<4xf32>
  return
}

// -----

func.func @sgd_lr_f32(%p: tensor<4xf32>, %lr: tensor<f32>, %wd: tensor<f64>) {
  // expected-error @+1 {{'amp.sgd_update' op operand #2 must be 0D tensor of 64-bit float values, but got 'tensor<f32>'}}
  %0 = "amp.sgd_update"(%p, %p, %lr, %wd) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f64>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_lr_not_constant(%p: tensor<4xf32>, %x: tensor<f64>, %wd: tensor<f64>) {
  // A hyperparameter computed in the step, or an argument, is checked
  // when it runs (the interpreter, the runtime), not here.
  %lr = amp.neg %x : tensor<f64>
  %0 = amp.sgd_update %p, %p lr(%lr) weight_decay(%wd) : tensor<4xf32>
  %1 = amp.sgd_update %p, %p lr(%x) weight_decay(%wd) : tensor<4xf32>
  return
}

// -----

func.func @momentum_dampening(%p: tensor<4xf32>, %s: tensor<f32>, %h: tensor<f64>) {
  // expected-error @+1 {{'amp.sgd_momentum_update' op dampening must lie in [0, 1], got 2.000000e+00}}
  %0:2 = amp.sgd_momentum_update %p, %p, %p, %s lr(%h) momentum(%h) weight_decay(%h) {dampening = 2.0} : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @momentum_negative(%p: tensor<4xf32>, %s: tensor<f32>, %h: tensor<f64>) {
  %mu = amp.constant dense<-0.9> : tensor<f64>
  // expected-error @+1 {{'amp.sgd_momentum_update' op momentum must lie in [0, inf), got -9.000000e-01}}
  %0:2 = amp.sgd_momentum_update %p, %p, %p, %s lr(%h) momentum(%mu) weight_decay(%h) {dampening = 0.0} : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @momentum_nesterov(%p: tensor<4xf32>, %s: tensor<f32>, %h: tensor<f64>) {
  // expected-error @+1 {{'amp.sgd_momentum_update' op nesterov needs a positive momentum and zero dampening}}
  %0:2 = amp.sgd_momentum_update %p, %p, %p, %s lr(%h) momentum(%h) weight_decay(%h) {dampening = 0.5, nesterov} : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @momentum_nesterov_zero(%p: tensor<4xf32>, %s: tensor<f32>, %h: tensor<f64>) {
  %mu = amp.constant dense<0.0> : tensor<f64>
  // expected-error @+1 {{'amp.sgd_momentum_update' op nesterov needs a positive momentum and zero dampening}}
  %0:2 = amp.sgd_momentum_update %p, %p, %p, %s lr(%h) momentum(%mu) weight_decay(%h) {dampening = 0.0, nesterov} : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @momentum_step_rank(%p: tensor<4xf32>, %h: tensor<f64>) {
  // expected-error @+1 {{'amp.sgd_momentum_update' op step must be a 0-d tensor, got 'tensor<4xf32>'}}
  %0:2 = amp.sgd_momentum_update %p, %p, %p, %p lr(%h) momentum(%h) weight_decay(%h) {dampening = 0.0} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_beta1(%p: tensor<4xf32>, %s: tensor<f32>, %h: tensor<f64>) {
  %b1 = amp.constant dense<1.0> : tensor<f64>
  // expected-error @+1 {{'amp.adamw_update' op beta1 must lie in [0, 1), got 1.000000e+00}}
  %0:3 = amp.adamw_update %p, %p, %p, %p, %s lr(%h) betas(%b1, %h) eps(%h) weight_decay(%h) : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @adamw_beta2(%p: tensor<4xf32>, %s: tensor<f32>, %h: tensor<f64>) {
  %b2 = amp.constant dense<-0.1> : tensor<f64>
  // expected-error @+1 {{'amp.adamw_update' op beta2 must lie in [0, 1), got -1.000000e-01}}
  %0:3 = amp.adamw_update %p, %p, %p, %p, %s lr(%h) betas(%h, %b2) eps(%h) weight_decay(%h) : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @adamw_eps(%p: tensor<4xf32>, %s: tensor<f32>, %h: tensor<f64>) {
  %eps = amp.constant dense<0.0> : tensor<f64>
  // expected-error @+1 {{'amp.adamw_update' op eps must lie in (0, inf), got 0.000000e+00}}
  %0:3 = amp.adamw_update %p, %p, %p, %p, %s lr(%h) betas(%h, %h) eps(%eps) weight_decay(%h) : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @adamw_types(%p: tensor<4xf32>, %m: tensor<4xf16>, %s: tensor<f32>, %h: tensor<f64>) {
  // expected-error @+1 {{'amp.adamw_update' op failed to verify that all of {param, grad, exp_avg, exp_avg_sq, new_param, new_exp_avg, new_exp_avg_sq} have same type}}
  %0:3 = "amp.adamw_update"(%p, %p, %m, %p, %s, %h, %h, %h, %h, %h) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<f32>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @schedule_params(%lr: tensor<f64>, %step: tensor<f32>, %a: tensor<f64>) {
  // expected-error @+1 {{'amp.lr_schedule' op warmup_cosine takes 4 parameters (warmup_steps, warmup_start_factor, decay_steps, min_lr), got 2}}
  %0 = amp.lr_schedule warmup_cosine %lr, %step (%a, %a) : tensor<f32>
  return
}

// -----

func.func @schedule_gamma(%lr: tensor<f64>, %step: tensor<f32>, %a: tensor<f64>) {
  %gamma = amp.constant dense<1.5> : tensor<f64>
  // expected-error @+1 {{'amp.lr_schedule' op gamma must lie in (0, 1], got 1.500000e+00}}
  %0 = amp.lr_schedule step %lr, %step (%a, %gamma) : tensor<f32>
  return
}

// -----

func.func @schedule_step_rank(%lr: tensor<f64>, %step: tensor<2xf32>, %a: tensor<f64>) {
  // expected-error @+1 {{'amp.lr_schedule' op step must be a 0-d tensor, got 'tensor<2xf32>'}}
  %0 = amp.lr_schedule cosine %lr, %step (%a, %a) : tensor<2xf32>
  return
}

// -----

// expected-error @+1 {{'amp.hparam' on argument #0 needs a 0-d f64 tensor that is also 'amp.state', got 'tensor<f32>'}}
func.func @hparam_f32(%lr: tensor<f32> {amp.state = 0.1, amp.hparam}) {
  return
}

// -----

// expected-error @+1 {{'amp.hparam' on argument #0 needs a 0-d f64 tensor that is also 'amp.state', got 'tensor<f64>'}}
func.func @hparam_not_state(%lr: tensor<f64> {amp.hparam}) {
  return
}

// -----

// expected-error @+1 {{'amp.hparam' must be a unit attribute}}
func.func @hparam_not_unit(%lr: tensor<f64> {amp.state = 0.1, amp.hparam = 1.0}) {
  return
}

// -----

// expected-error @+1 {{'amp.loss_part' on argument #1 needs a 0-d f32 tensor that is also 'amp.state' (and no loss scale), got 'tensor<f32>'}}
func.func @loss_part_not_state(%w: tensor<2xf32> {amp.param}, %ce: tensor<f32> {amp.loss_part}) {
  return
}

// -----

// expected-error @+1 {{'amp.loss_part' on argument #0 needs a 0-d f32 tensor that is also 'amp.state' (and no loss scale), got 'tensor<f16>'}}
func.func @loss_part_f16(%ce: tensor<f16> {amp.state, amp.loss_part}) {
  return
}

// -----

// expected-error @+1 {{'amp.loss_part' on argument #0 needs a 0-d f32 tensor that is also 'amp.state' (and no loss scale), got 'tensor<f32>'}}
func.func @loss_part_scale(%s: tensor<f32> {amp.state, amp.loss_scale, amp.loss_part}) {
  return
}

// -----

// expected-error @+1 {{'amp.loss_part' must be a unit attribute}}
func.func @loss_part_not_unit(%ce: tensor<f32> {amp.state, amp.loss_part = "ce"}) {
  return
}

// -----

// An argument has one kind (ArgumentKind): the attributes naming two are
// refused, whichever the verifier reads first.

// expected-error @+1 {{argument #0 is both 'amp.param' and 'amp.state': an argument is one of a parameter, a buffer, the generator's state, a hyperparameter, a loss part, other state or an input}}
func.func @param_state(%w: tensor<4xf32> {amp.param, amp.state}) {
  return
}

// -----

// expected-error @+1 {{argument #0 is both 'amp.hparam' and 'amp.loss_part': an argument is one of a parameter, a buffer, the generator's state, a hyperparameter, a loss part, other state or an input}}
func.func @hparam_loss_part(%x: tensor<f32> {amp.state, amp.hparam, amp.loss_part}) {
  return
}

// -----

// expected-error @+1 {{argument #0 is both 'amp.buffer' and 'amp.rng': an argument is one of a parameter, a buffer, the generator's state, a hyperparameter, a loss part, other state or an input}}
func.func @buffer_rng(%r: tensor<2xi64> {amp.state, amp.rng, amp.buffer}) {
  return
}

// -----

// expected-error @+1 {{'amp.state' must be a unit attribute}}
func.func @state_not_unit(%s: tensor<f32> {amp.state = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'amp.gradient_of' names a function (@f) on a function}}
func.func @gradient_of_string() attributes {amp.gradient_of = "f"} {
  return
}

// -----

// expected-error @+1 {{'amp.evaluation_of' names a function (@f) on a function}}
func.func @evaluation_of_unit() attributes {amp.evaluation_of} {
  return
}

// -----

func.func @sum_squares_result(%g: tensor<4xf32>) {
  // expected-error @+1 {{'amp.sum_squares' op result must be a 0-d f32 tensor, got 'tensor<1xf32>'}}
  %s = "amp.sum_squares"(%g) : (tensor<4xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @sum_squares_integer(%g: tensor<4xi64>) {
  // expected-error @+1 {{'amp.sum_squares' op operand #0 must be variadic of statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi64>'}}
  %s = amp.sum_squares %g : tensor<4xi64>
  return
}

// -----

func.func @all_reduce_f16(%g: tensor<4xf16>) {
  // expected-error @+1 {{'amp.all_reduce' op input #0 has type 'tensor<4xf16>'; replicas reduce f32 tensors (the f32 gradients of f32 master parameters, found_inf)}}
  %r = amp.all_reduce sum %g : tensor<4xf16>
  return
}

// -----

func.func @all_reduce_nothing() {
  // expected-error @+1 {{'amp.all_reduce' op needs at least one tensor to reduce}}
  "amp.all_reduce"() <{kind = 0 : i32, operandSegmentSizes = array<i32: 0, 0>}> : () -> ()
  return
}

// -----

func.func @all_reduce_when_rank(%g: tensor<4xf32>, %done: tensor<1xi1>) {
  // expected-error @+1 {{'amp.all_reduce' op operand #1 must be 0D tensor of 1-bit signless integer values}}
  %r = "amp.all_reduce"(%g, %done) <{kind = 0 : i32, operandSegmentSizes = array<i32: 1, 1>}> : (tensor<4xf32>, tensor<1xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @all_reduce_result_type(%g: tensor<4xf32>) {
  // expected-error @+2 {{'amp.all_reduce' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'amp.all_reduce' op failed to infer returned types}}
  %r = "amp.all_reduce"(%g) <{kind = 0 : i32, operandSegmentSizes = array<i32: 1, 0>}> : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @all_reduce_kind(%g: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max]}}
  %r = amp.all_reduce mean %g : tensor<4xf32>
  return
}

// -----

func.func @replica_count_type() {
  // expected-error @+1 {{'amp.replica_count' op result must be a 0-d f32 tensor, got 'tensor<2xf32>'}}
  %n = amp.replica_count : tensor<2xf32>
  return
}

// -----

func.func @replica_shard_size(%w: tensor<4x3xf32>) {
  // expected-error @+1 {{'amp.replica_shard' op result must be 'f32' parts of 3 elements (ceil(12 / 4)), got 'tensor<4xf32>'}}
  %p = amp.replica_shard %w {replicas = 4} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @replica_shard_element(%w: tensor<4x3xf32>) {
  // expected-error @+1 {{'amp.replica_shard' op result must be 'f32' parts of 6 elements (ceil(12 / 2)), got 'tensor<6xf16>'}}
  %p = amp.replica_shard %w {replicas = 2} : tensor<4x3xf32> -> tensor<6xf16>
  return
}

// -----

func.func @replica_shard_replicas(%w: tensor<4x3xf32>) {
  // expected-error @+1 {{'amp.replica_shard' op attribute 'replicas' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %p = amp.replica_shard %w {replicas = 0} : tensor<4x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @all_gather_nothing() {
  // expected-error @+1 {{'amp.all_gather' op needs at least one tensor to gather}}
  "amp.all_gather"() <{operandSegmentSizes = array<i32: 0, 0, 0>, replicas = 2 : i64}> : () -> ()
  return
}

// -----

func.func @all_gather_when_without_priors(%p: tensor<6xf32>, %done: tensor<i1>) {
  // expected-error @+1 {{'amp.all_gather' op with `when` needs one prior whole of each result's type (its value where `when` is false), and without it none}}
  %w = "amp.all_gather"(%p, %done) <{operandSegmentSizes = array<i32: 1, 0, 1>, replicas = 2 : i64}> : (tensor<6xf32>, tensor<i1>) -> tensor<4x3xf32>
  return
}

// -----

func.func @all_gather_prior_type(%p: tensor<6xf16>, %old: tensor<4x3xf32>, %done: tensor<i1>) {
  // expected-error @+1 {{'amp.all_gather' op with `when` needs one prior whole of each result's type}}
  %w = amp.all_gather %p else %old(tensor<4x3xf32>) when %done {replicas = 2} : tensor<6xf16> -> tensor<4x3xf16>
  return
}

// -----

func.func @all_gather_count(%p: tensor<6xf32>) {
  // expected-error @+1 {{'amp.all_gather' op has 1 inputs and 2 results; each input gathers into one result}}
  %w:2 = "amp.all_gather"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>, replicas = 2 : i64}> : (tensor<6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
  return
}

// -----

func.func @all_gather_part(%p: tensor<5xf16>) {
  // expected-error @+1 {{'amp.all_gather' op input #0 must be the 'f16' part of 6 elements that result #0 ('tensor<4x3xf16>') has on each of 2 replicas, got 'tensor<5xf16>'}}
  %w = amp.all_gather %p {replicas = 2} : tensor<5xf16> -> tensor<4x3xf16>
  return
}

// -----

func.func @all_gather_element(%p: tensor<6xf32>) {
  // expected-error @+1 {{'amp.all_gather' op input #0 must be the 'f16' part of 6 elements that result #0 ('tensor<4x3xf16>') has on each of 2 replicas, got 'tensor<6xf32>'}}
  %w = amp.all_gather %p {replicas = 2} : tensor<6xf32> -> tensor<4x3xf16>
  return
}

// -----

// expected-error @+1 {{'amp.micro_batch' on argument #0 must be the micro-batches per update (an i64, 2 or more) on a 0-d f32 'amp.state' argument}}
func.func @micro_batch_one(%m: tensor<f32> {amp.state, amp.micro_batch = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'amp.micro_batch' on argument #0 must be the micro-batches per update}}
func.func @micro_batch_not_state(%m: tensor<f32> {amp.micro_batch = 2 : i64}) {
  return
}

// -----

// expected-error @+1 {{'amp.shard_of' on argument #1 must be array<i64: parameter, replicas, master> on an f32 'amp.state' argument of one dimension, naming an 'amp.param' argument, a positive replica count and 0 or 1, the dimension ceil(parameter's elements / replicas)}}
func.func @shard_of_size(%w: tensor<4x3xf16> {amp.param}, %m: tensor<5xf32> {amp.state, amp.shard_of = array<i64: 0, 2, 1>}) {
  return
}

// -----

// expected-error @+1 {{'amp.shard_of' on argument #1 must be array<i64: parameter, replicas, master>}}
func.func @shard_of_master_flag(%w: tensor<4x3xf32> {amp.param}, %m: tensor<6xf32> {amp.state, amp.shard_of = array<i64: 0, 2, 2>}) {
  return
}

// -----

// expected-error @+1 {{'amp.shard_of' on argument #1 must be array<i64: parameter, replicas, master>}}
func.func @shard_of_out_of_range(%w: tensor<4x3xf32> {amp.param}, %m: tensor<6xf32> {amp.state, amp.shard_of = array<i64: 5, 2, 0>}) {
  return
}

// -----

// expected-error @+1 {{'amp.shard_of' on argument #1 must be array<i64: parameter, replicas, master>}}
func.func @shard_of_f16_part(%w: tensor<4x3xf32> {amp.param}, %m: tensor<6xf16> {amp.state, amp.shard_of = array<i64: 0, 2, 0>}) {
  return
}

// -----

// expected-error @+1 {{'amp.shard_of' on argument #1 must be array<i64: parameter, replicas, master>}}
func.func @shard_of_not_param(%w: tensor<4x3xf32>, %m: tensor<6xf32> {amp.state, amp.shard_of = array<i64: 0, 2, 0>}) {
  return
}

// -----

// expected-error @+1 {{'amp.shard_of' on argument #1 must be array<i64: parameter, replicas, master>}}
func.func @shard_of_not_state(%w: tensor<4x3xf32> {amp.param}, %m: tensor<6xf32> {amp.shard_of = array<i64: 0, 2, 0>}) {
  return
}

// -----

func.func @unscale_f16(%inv: tensor<f32>, %g: tensor<4xf16>) {
  // expected-error @+1 {{'amp.unscale' op gradient #0 has type 'tensor<4xf16>'; unscaling needs f32 gradients (keep f32 master parameters)}}
  %u, %f = amp.unscale %inv, %g : tensor<f32>, tensor<4xf16>
  return
}

// -----

func.func @unscale_inv_rank(%inv: tensor<1xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'amp.unscale' op inv_scale must be a 0-d f32 tensor, got 'tensor<1xf32>'}}
  %u, %f = amp.unscale %inv, %g : tensor<1xf32>, tensor<4xf32>
  return
}

// -----

func.func @unscale_result_type(%inv: tensor<f32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'amp.unscale' op result #0 has type 'tensor<4xf16>', expected 'tensor<4xf32>'}}
  %u, %f = "amp.unscale"(%inv, %g) : (tensor<f32>, tensor<4xf32>) -> (tensor<4xf16>, tensor<f32>)
  return
}

// -----

func.func @scaler_growth(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op growth_factor must be greater than 1, got 1.000000e+00}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 1.0, backoff_factor = 0.5, growth_interval = 10, hysteresis = 1} : tensor<f32>
  return
}

// -----

func.func @scaler_backoff(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op backoff_factor must lie in (0, 1), got 1.500000e+00}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 1.5, growth_interval = 10, hysteresis = 1} : tensor<f32>
  return
}

// -----

func.func @scaler_interval(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op growth_interval must be positive, got 0}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 0, hysteresis = 1} : tensor<f32>
  return
}

// -----

func.func @scaler_hysteresis(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op hysteresis must be positive, got 0}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 10, hysteresis = 0} : tensor<f32>
  return
}

// -----

func.func @scaler_min_scale(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op min_scale must be positive and finite in f32, got 0.000000e+00}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 10, hysteresis = 1, min_scale = 0.0} : tensor<f32>
  return
}

// -----

func.func @scaler_clamps(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op min_scale 4.000000e+00 exceeds max_scale 2.000000e+00}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 10, hysteresis = 1, min_scale = 4.0, max_scale = 2.0} : tensor<f32>
  return
}

// -----

func.func @scaler_state_type(%s: tensor<f16>) {
  // expected-error @+1 {{'amp.scaler_update' op scaler state must be 0-d f32 tensors, got 'tensor<f16>'}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 10, hysteresis = 1} : tensor<f16>
  return
}

// -----

func.func @seed_on_op(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.seed' is a unit attribute of a 0-d floating-point amp.constant}}
  %0 = amp.neg %x {amp.seed} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expected-error @+1 {{'amp.loss_scale' must be a unit attribute}}
func.func @loss_scale_not_unit(%s: tensor<f32> {amp.loss_scale = 2.0}) {
  return
}

//===----------------------------------------------------------------------===//
// Tensor sizes: every amp op's tensors, parameters and state are non-empty
// and their sizes in bytes fit in 64 bits (an empty batch trained silently;
// a 2^62-element f32 parameter wrapped to 0 bytes).
//===----------------------------------------------------------------------===//

// -----

func.func @empty_batch(%w: tensor<4x3xf32> {amp.param}, %x: tensor<0x4xf32>) -> tensor<0x3xf32> {
  // expected-error @+1 {{'amp.matmul' op operand #0 of type 'tensor<0x4xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %h = amp.matmul %x, %w : tensor<0x4xf32>, tensor<4x3xf32> to tensor<0x3xf32>
  return %h : tensor<0x3xf32>
}

// -----

func.func @empty_result(%x: tensor<2x4xf32>) -> tensor<2x0xf32> {
  // expected-error @+1 {{'amp.slice' op result #0 of type 'tensor<2x0xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %s = amp.slice %x [0, 1] to [2, 1] : tensor<2x4xf32> to tensor<2x0xf32>
  return %s : tensor<2x0xf32>
}

// -----

func.func @empty_constant() -> tensor<0x4xf32> {
  // expected-error @+1 {{'amp.constant' op result #0 of type 'tensor<0x4xf32>' is empty; amp tensors need every dimension to be at least 1}}
  %c = amp.constant dense<> : tensor<0x4xf32>
  return %c : tensor<0x4xf32>
}

// -----

// An unused parameter is checked too, at the argument.
// expected-error @+1 {{argument #0 of type 'tensor<0x3xf32>' is empty; amp tensors need every dimension to be at least 1}}
func.func @empty_param(%w: tensor<0x3xf32> {amp.param}) {
  return
}

// -----

// expected-error @+1 {{argument #0 of type 'tensor<4611686018427387904xf32>' is too large: its size in bytes does not fit in 64 bits}}
func.func @param_bytes_wrap(%w: tensor<4611686018427387904xf32> {amp.param}) {
  return
}

// -----

// expected-error @+1 {{argument #1 of type 'tensor<2305843009213693952x4xf16>' is too large: its size in bytes does not fit in 64 bits}}
func.func @state_bytes_wrap(%w: tensor<4xf32> {amp.param}, %m: tensor<2305843009213693952x4xf16> {amp.state}) {
  return
}

// -----

func.func @result_bytes_wrap(%x: tensor<2xf32>) {
  // expected-error @+1 {{'amp.broadcast_to' op result #0 of type 'tensor<4611686018427387904x2xf32>' is too large: its size in bytes does not fit in 64 bits}}
  %b = amp.broadcast_to %x : tensor<2xf32> to tensor<4611686018427387904x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// The scaler's settings, as its f32 state stores them
//===----------------------------------------------------------------------===//

// -----

func.func @scaler_max_scale_inf(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op max_scale must be positive and finite in f32, got 1.000000e+39}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 10, hysteresis = 1, max_scale = 1.0e39} : tensor<f32>
  return
}

// -----

func.func @scaler_interval_f32(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op growth_interval 16777217 exceeds 2^24, the largest count the f32 growth tracker holds exactly}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 16777217, hysteresis = 1} : tensor<f32>
  return
}

// -----

func.func @scaler_hysteresis_f32(%s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaler_update' op hysteresis 16777217 exceeds 2^24, the largest count the f32 hysteresis tracker holds exactly}}
  %a, %b, %c = amp.scaler_update %s, %s, %s, %s {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 10, hysteresis = 16777217} : tensor<f32>
  return
}

// -----

// expected-error @+1 {{'amp.state' starts argument #0 at 1.000000e+39, which is not finite in 'f32'}}
func.func @state_start_inf(%s: tensor<f32> {amp.state = 1.0e39}) {
  return
}

// -----

// expected-error @+1 {{'amp.state' on argument #0 gives a starting value to 'tensor<i64>', which is not a floating-point tensor}}
func.func @state_start_integer(%s: tensor<i64> {amp.state = 1.0}) {
  return
}

// -----

// expected-error @+1 {{'amp.loss_scale' on argument #0 needs a 0-d f32 tensor (the scale is kept in f32), got 'tensor<f16>'}}
func.func @loss_scale_f16(%s: tensor<f16> {amp.loss_scale}) {
  return
}

//===----------------------------------------------------------------------===//
// amp.loss_scaling: what amp-optimizer reads is verified here
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'amp.loss_scaling' is an #amp.loss_scaling attribute on a function}}
func.func @scaling_not_typed() attributes {amp.loss_scaling = 1 : i64} {
  return
}

// -----

// The dictionary --amp-loss-scaling wrote before the attribute was typed
// (an empty one crashed amp-optimizer, which read the missing mode).
// expected-error @+1 {{'amp.loss_scaling' is an #amp.loss_scaling attribute on a function}}
func.func @scaling_empty() attributes {amp.loss_scaling = {}} {
  return
}

// -----

// expected-error @+1 {{'amp.loss_scaling' is an #amp.loss_scaling attribute on a function}}
func.func @scaling_dictionary() attributes {amp.loss_scaling = {mode = "static", init_scale = 2.0 : f64}} {
  return
}

// -----

func.func @scaling_on_op(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.loss_scaling' is an #amp.loss_scaling attribute on a function}}
  %0 = amp.neg %x {amp.loss_scaling = #amp.loss_scaling<static, init_scale = 2.0>} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expected-error @+1 {{a loss scaler is dynamic or static, got 'adaptive'}}
func.func @scaling_mode_unknown() attributes {amp.loss_scaling = #amp.loss_scaling<adaptive, init_scale = 2.0>} {
  return
}

// -----

// expected-error @+1 {{a loss scaler is dynamic or static, got 'init_scale'}}
func.func @scaling_no_mode() attributes {amp.loss_scaling = #amp.loss_scaling<init_scale = 2.0>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling lacks 'init_scale' (static scaling needs it)}}
func.func @scaling_no_init() attributes {amp.loss_scaling = #amp.loss_scaling<static>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling lacks 'growth_factor' (dynamic scaling needs it)}}
func.func @scaling_dynamic_incomplete() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 2.0>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling lacks 'hysteresis' (dynamic scaling needs it)}}
func.func @scaling_no_hysteresis() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 2.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000>} {
  return
}

// -----

// A static scale never changes: no factor, interval or clamp applies.
// expected-error @+1 {{#amp.loss_scaling<static> takes init_scale only, got 'growth_factor'}}
func.func @scaling_static_growth() attributes {amp.loss_scaling = #amp.loss_scaling<static, init_scale = 2.0, growth_factor = 2.0>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling<static> takes init_scale only, got 'min_scale'}}
func.func @scaling_static_clamp() attributes {amp.loss_scaling = #amp.loss_scaling<static, init_scale = 2.0, min_scale = 1.0>} {
  return
}

// -----

// Scales and factors are f64 (amp-optimizer copies the factors into
// amp.scaler_update's f64 attributes): a float literal.
// expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
// expected-note @+1 {{add a trailing dot to make the literal a float}}
func.func @scaling_init_integer() attributes {amp.loss_scaling = #amp.loss_scaling<static, init_scale = 2>} {
  return
}

// -----

// expected-error @+1 {{expected integer value}}
func.func @scaling_hysteresis_float() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 2.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, hysteresis = 1.0>} {
  return
}

// -----

// `true` was read as the integer -1 ("hysteresis must be positive, got -1").
// expected-error @+1 {{#amp.loss_scaling 'hysteresis' takes an integer, not a boolean}}
func.func @scaling_hysteresis_bool() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 2.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, hysteresis = true>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling has no setting 'growth'; it takes init_scale, growth_factor, backoff_factor, growth_interval, hysteresis, min_scale and max_scale}}
func.func @scaling_unknown_entry() attributes {amp.loss_scaling = #amp.loss_scaling<static, init_scale = 2.0, growth = 2.0>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling gives 'init_scale' twice}}
func.func @scaling_twice() attributes {amp.loss_scaling = #amp.loss_scaling<static, init_scale = 2.0, init_scale = 4.0>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling init_scale must be positive and finite in f32, the type the scale is kept in, got 1.000000e+39}}
func.func @scaling_init_inf() attributes {amp.loss_scaling = #amp.loss_scaling<static, init_scale = 1.0e39>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling growth_factor must be greater than 1, got 1.000000e+00}}
func.func @scaling_no_growth() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 2.0, growth_factor = 1.0, backoff_factor = 0.5, growth_interval = 2000, hysteresis = 1>} {
  return
}

// -----

// A factor is checked as the f32 scale it multiplies stores it.
// expected-error @+1 {{#amp.loss_scaling growth_factor must be greater than 1, got 1.000000e+300 (INF in f32, the type the scale is kept in)}}
func.func @scaling_growth_inf() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 2.0, growth_factor = 1.0e300, backoff_factor = 0.5, growth_interval = 2000, hysteresis = 1>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling backoff_factor must lie in (0, 1), got 1.000000e-300 (0.000000e+00 in f32, the type the scale is kept in)}}
func.func @scaling_backoff_zero() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 2.0, growth_factor = 2.0, backoff_factor = 1.0e-300, growth_interval = 2000, hysteresis = 1>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling init_scale 1.048576e+06 exceeds max_scale 6.553600e+04: the first step would run above the clamp}}
func.func @scaling_init_above_max() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 1048576.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, hysteresis = 1, max_scale = 65536.0>} {
  return
}

// -----

// expected-error @+1 {{#amp.loss_scaling init_scale 1.000000e+00 is below min_scale 2.000000e+00: the first step would run below the clamp}}
func.func @scaling_init_below_min() attributes {amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 1.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, hysteresis = 1, min_scale = 2.0>} {
  return
}

// -----

func.func @seed_not_scalar() -> tensor<2xf32> {
  // expected-error @+1 {{'amp.seed' is a unit attribute of a 0-d floating-point amp.constant}}
  %0 = amp.constant {amp.seed} dense<1.0> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fusion_type_count(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{amp.fusion binds 1 inputs but its type lists 2}}
  %y = amp.fusion(%a = %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> {
    amp.yield %a : tensor<2xf32>
  }
  return %y : tensor<2xf32>
}

// -----

func.func @fusion_yield_types(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.fusion' op yields (tensor<2xf16>) for results of types (tensor<2xf32>)}}
  %y = amp.fusion(%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    %0 = amp.cast %a : tensor<2xf32> to tensor<2xf16>
    amp.yield %0 : tensor<2xf16>
  }
  return %y : tensor<2xf32>
}

// -----

func.func @fusion_argument_types(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.fusion' op binds its region's arguments to inputs of other types}}
  %y = "amp.fusion"(%x) ({
  ^bb0(%a: tensor<2xf16>):
    %0 = amp.cast %a : tensor<2xf16> to tensor<2xf32>
    amp.yield %0 : tensor<2xf32>
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @fusion_nested(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = amp.fusion(%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    // expected-error @+1 {{'amp.fusion' op is nested in another amp.fusion; a kernel holds no kernels}}
    %0 = amp.fusion(%b = %a) : (tensor<2xf32>) -> tensor<2xf32> {
      %1 = amp.neg %b : tensor<2xf32>
      amp.yield %1 : tensor<2xf32>
    }
    amp.yield %0 : tensor<2xf32>
  }
  return %y : tensor<2xf32>
}

// -----

// The region is isolated: it reads the function's values only through its
// inputs.
func.func @fusion_isolated(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %y = amp.fusion() : () -> tensor<2xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %0 = amp.neg %x : tensor<2xf32>
    amp.yield %0 : tensor<2xf32>
  }
  return %y : tensor<2xf32>
}

// -----

func.func @yield_outside(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.yield' op expects parent op to be one of 'amp.fusion, amp.grad'}}
  amp.yield %x : tensor<2xf32>
}

// -----

func.func @fusion_terminator(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.fusion' op ends its region with amp.yield}}
  %y = "amp.fusion"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    "func.return"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @fusion_empty(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.fusion' op ends its region with amp.yield}}
  %y = amp.fusion(%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
  }
  return %y : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// amp.conv2d, amp.im2col, amp.col2im
//===----------------------------------------------------------------------===//

// -----

func.func @conv2d_rank(%x: tensor<8x3x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{input must have rank 4 [N, C, H, W], got [8, 3, 32]}}
  %0 = amp.conv2d %x, %w : tensor<8x3x32xf32>, tensor<16x3x3x3xf32> to tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv2d_element_types(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{input and weight element types differ: 'f16' vs 'f32' (insert an amp.cast to change precision)}}
  %0 = amp.conv2d %x, %w : tensor<8x3x32x32xf16>, tensor<16x3x3x3xf32> to tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv2d_groups(%x: tensor<8x6x32x32xf32>, %w: tensor<16x2x3x3xf32>) {
  // expected-error @+1 {{groups (4) must be >= 1 and divide the input's 6 channels and the weight's 16 output channels}}
  %0 = amp.conv2d %x, %w {groups = 4 : i64} : tensor<8x6x32x32xf32>, tensor<16x2x3x3xf32> to tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv2d_weight_channels(%x: tensor<8x6x32x32xf32>, %w: tensor<16x6x3x3xf32>) {
  // expected-error @+1 {{weight [16, 6, 3, 3] must have 3 input channels (the input's 6 over 2 groups)}}
  %0 = amp.conv2d %x, %w {groups = 2 : i64} : tensor<8x6x32x32xf32>, tensor<16x6x3x3xf32> to tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv2d_strides(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{strides must have 2 values [h, w], got [2, 2, 2]}}
  %0 = amp.conv2d %x, %w {strides = array<i64: 2, 2, 2>} : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> to tensor<8x16x15x15xf32>
  return
}

// -----

func.func @conv2d_padding_count(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{padding must have 2 values [h, w] or 4 [top, left, bottom, right], got [1, 1, 1]}}
  %0 = amp.conv2d %x, %w {padding = array<i64: 1, 1, 1>} : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> to tensor<8x16x32x32xf32>
  return
}

// -----

func.func @conv2d_negative_padding(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{padding must be >= 0, got [-1, 1]}}
  %0 = amp.conv2d %x, %w {padding = array<i64: -1, 1>} : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> to tensor<8x16x28x32xf32>
  return
}

// -----

func.func @conv2d_dilation(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{dilations must be >= 1, got [0, 1]}}
  %0 = amp.conv2d %x, %w {dilations = array<i64: 0, 1>} : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> to tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv2d_window_too_large(%x: tensor<8x3x4x4xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{the [3, 3] window (dilations [3, 1]) does not fit the padded image [8, 3, 4, 4]}}
  %0 = amp.conv2d %x, %w {dilations = array<i64: 3, 1>} : tensor<8x3x4x4xf32>, tensor<16x3x3x3xf32> to tensor<8x16x1x2xf32>
  return
}

// -----

func.func @conv2d_result_shape(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{result shape [8, 16, 32, 32] does not match the expected [8, 16, 30, 30]}}
  %0 = amp.conv2d %x, %w : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> to tensor<8x16x32x32xf32>
  return
}

// -----

func.func @conv2d_bias_shape(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{bias must be a vector of the 16 output channels, got [8]}}
  %0 = amp.conv2d %x, %w bias %b : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<8xf32> to tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv2d_bias_type(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf16>, %b: tensor<16xf32>) {
  // expected-error @+1 {{bias must have the result element type 'f16', got 'f32'}}
  %0 = amp.conv2d %x, %w bias %b : tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf32> to tensor<8x16x30x30xf16>
  return
}

// -----

func.func @conv2d_narrow_accumulator(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf16>) {
  // expected-error @+1 {{acc_type must be f32 or f64, got 'f16'}}
  %0 = amp.conv2d %x, %w {acc_type = f16} : tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16> to tensor<8x16x30x30xf16>
  return
}

// -----

func.func @im2col_kernel(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{kernel must have 2 values [h, w], got [3]}}
  %0 = amp.im2col %x {kernel = array<i64: 3>} : tensor<8x3x32x32xf32> to tensor<8x9x900xf32>
  return
}

// -----

func.func @im2col_kernel_size(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{kernel must be >= 1, got [0, 3]}}
  %0 = amp.im2col %x {kernel = array<i64: 0, 3>} : tensor<8x3x32x32xf32> to tensor<8x9x900xf32>
  return
}

// -----

func.func @im2col_result(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{result must have shape [8, 27, 900] ([N, C * KH * KW, OH * OW]) for the image [8, 3, 32, 32], got [8, 27, 1024]}}
  %0 = amp.im2col %x {kernel = array<i64: 3, 3>} : tensor<8x3x32x32xf32> to tensor<8x27x1024xf32>
  return
}

// -----

func.func @im2col_element_type(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{input and result element types differ: 'f32' vs 'f16'}}
  %0 = amp.im2col %x {kernel = array<i64: 3, 3>} : tensor<8x3x32x32xf32> to tensor<8x27x900xf16>
  return
}

// -----

func.func @col2im_rank(%c: tensor<8x27x900xf32>) {
  // expected-error @+1 {{result must have rank 4 [N, C, H, W], got [8, 3, 32]}}
  %0 = amp.col2im %c {kernel = array<i64: 3, 3>} : tensor<8x27x900xf32> to tensor<8x3x32xf32>
  return
}

// -----

func.func @col2im_columns(%c: tensor<8x27x1024xf32>) {
  // expected-error @+1 {{columns must have shape [8, 27, 900] ([N, C * KH * KW, OH * OW]) for the image [8, 3, 32, 32], got [8, 27, 1024]}}
  %0 = amp.col2im %c {kernel = array<i64: 3, 3>} : tensor<8x27x1024xf32> to tensor<8x3x32x32xf32>
  return
}

// -----

func.func @max_pool2d_padding(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{padding [2, 2, 2, 2] must be at most half the window (3 rows)}}
  %0 = amp.max_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 2, 2>} : tensor<8x3x32x32xf32> to tensor<8x3x12x12xf32>
  return
}

// -----

func.func @max_pool2d_result(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{result shape [8, 3, 32, 32] does not match the expected [8, 3, 16, 16]}}
  %0 = amp.max_pool2d %x {kernel = array<i64: 2, 2>} : tensor<8x3x32x32xf32> to tensor<8x3x32x32xf32>
  return
}

// -----

func.func @max_pool2d_rank(%x: tensor<3x32x32xf32>) {
  // expected-error @+1 {{input must have rank 4 [N, C, H, W], got [3, 32, 32]}}
  %0 = amp.max_pool2d %x {kernel = array<i64: 2, 2>} : tensor<3x32x32xf32> to tensor<3x16x16xf32>
  return
}

// -----

func.func @max_pool2d_element_type(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{input and result element types differ: 'f32' vs 'f16'}}
  %0 = amp.max_pool2d %x {kernel = array<i64: 2, 2>} : tensor<8x3x32x32xf32> to tensor<8x3x16x16xf16>
  return
}

// -----

func.func @max_pool2d_grad_shape(%x: tensor<8x3x32x32xf32>, %dy: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{grad must have the pooled shape [8, 3, 16, 16], got [8, 3, 32, 32]}}
  %0 = amp.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>} : tensor<8x3x32x32xf32>, tensor<8x3x32x32xf32> to tensor<8x3x32x32xf32>
  return
}

// -----

func.func @max_pool2d_grad_result(%x: tensor<8x3x32x32xf32>, %dy: tensor<8x3x16x16xf32>) {
  // expected-error @+1 {{result element type 'f16' does not match the expected 'f32'}}
  %0 = amp.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>} : tensor<8x3x32x32xf32>, tensor<8x3x16x16xf32> to tensor<8x3x32x32xf16>
  return
}

// -----

func.func @avg_pool2d_padding(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{padding [0, 2, 0, 2] must be at most half the window (2 columns)}}
  %0 = amp.avg_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 2>} : tensor<8x3x32x32xf32> to tensor<8x3x16x18xf32>
  return
}

// -----

func.func @avg_pool2d_result(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{result shape [8, 3, 32, 32] does not match the expected [8, 3, 16, 16]}}
  %0 = amp.avg_pool2d %x {kernel = array<i64: 2, 2>} : tensor<8x3x32x32xf32> to tensor<8x3x32x32xf32>
  return
}

// -----

func.func @max_pool2d_window_in_padding(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{the window of output row 0 reads only padding}}
  %0 = amp.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 3, 3>} : tensor<1x1x2x2xf32> to tensor<1x1x1x1xf32>
  return
}

// -----

func.func @window_attribute_too_large(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{strides must be at most 2147483647, got [4294967296, 1]}}
  %0 = amp.im2col %x {kernel = array<i64: 1, 1>, strides = array<i64: 4294967296, 1>} : tensor<8x3x32x32xf32> to tensor<8x3x32xf32>
  return
}

// -----

func.func @conv2d_columns_overflow(%x: tensor<1x1x4194304x4194304xf16>, %w: tensor<1x1x1048576x1048576xf16>) {
  // expected-error @+1 {{its columns, [1, 1 * 1048576 * 1048576, 3145729 * 3145729], would take more bytes than int64 holds}}
  %0 = amp.conv2d %x, %w : tensor<1x1x4194304x4194304xf16>, tensor<1x1x1048576x1048576xf16> to tensor<1x1x3145729x3145729xf16>
  return
}

// -----

func.func @conv2d_weight_rank(%x: tensor<8x3x32x32xf32>, %w: tensor<16x27xf32>) {
  // expected-error @+1 {{weight must have rank 4 [O, C / groups, KH, KW], got [16, 27]}}
  %0 = amp.conv2d %x, %w : tensor<8x3x32x32xf32>, tensor<16x27xf32> to tensor<8x16x30x30xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<8x16x4xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{expects [N, C] or [N, C, H, W] activations, got 'tensor<8x16x4xf32>'}}
  %0:3 = amp.batch_norm %x running(%r, %r : tensor<16xf32>) : tensor<8x16x4xf32>
  return
}

// -----

func.func @batch_norm_statistics_type(%x: tensor<8x16xf16>, %r: tensor<16xf16>) {
  // expected-error @+1 {{running statistics must be 'tensor<16xf32>' (the channels, in the accumulator type), got 'tensor<16xf16>'}}
  %0:3 = amp.batch_norm %x running(%r, %r : tensor<16xf16>) : tensor<8x16xf16>
  return
}

// -----

func.func @batch_norm_statistics_shape(%x: tensor<8x16xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{running statistics must be 'tensor<16xf32>' (the channels, in the accumulator type), got 'tensor<8xf32>'}}
  %0:3 = amp.batch_norm %x running(%r, %r : tensor<8xf32>) : tensor<8x16xf32>
  return
}

// -----

func.func @batch_norm_scale(%x: tensor<8x16xf32>, %r: tensor<16xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{scale must have the 16 channels' shape [16], got 'tensor<8xf32>'}}
  %0:3 = amp.batch_norm %x running(%r, %r : tensor<16xf32>) scale(%g : tensor<8xf32>) : tensor<8x16xf32>
  return
}

// -----

func.func @batch_norm_bias(%x: tensor<8x16xf32>, %r: tensor<16xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{bias must have the 16 channels' shape [16], got 'tensor<1x16xf32>'}}
  %0:3 = amp.batch_norm %x running(%r, %r : tensor<16xf32>) bias(%b : tensor<1x16xf32>) : tensor<8x16xf32>
  return
}

// -----

func.func @batch_norm_momentum(%x: tensor<8x16xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{momentum must be in [0, 1], got 1.5}}
  %0:3 = amp.batch_norm %x running(%r, %r : tensor<16xf32>) {momentum = 1.5, training} : tensor<8x16xf32>
  return
}

// -----

func.func @batch_norm_epsilon(%x: tensor<8x16xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{epsilon must be non-negative and finite, got -1}}
  %0:3 = amp.batch_norm %x running(%r, %r : tensor<16xf32>) {epsilon = -1.0} : tensor<8x16xf32>
  return
}

// -----

func.func @batch_norm_one_value(%x: tensor<1x16x1x1xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{training needs more than one value per channel (the unbiased variance divides by n - 1), got 1}}
  %0:3 = amp.batch_norm %x running(%r, %r : tensor<16xf32>) {training} : tensor<1x16x1x1xf32>
  return
}

// -----

func.func @batch_norm_grad_rank(%x: tensor<8x16x4xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{expects [N, C] or [N, C, H, W] activations, got 'tensor<8x16x4xf32>'}}
  %0:3 = amp.batch_norm_grad %x, %x running(%r, %r : tensor<16xf32>) : tensor<8x16x4xf32> -> tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @batch_norm_grad_statistics(%x: tensor<8x16xf16>, %r: tensor<16xf16>) {
  // expected-error @+1 {{running statistics must be 'tensor<16xf32>' (the channels, in the accumulator type), got 'tensor<16xf16>'}}
  %0:3 = amp.batch_norm_grad %x, %x running(%r, %r : tensor<16xf16>) : tensor<8x16xf16> -> tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @batch_norm_grad_scale(%x: tensor<8x16xf32>, %r: tensor<16xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{scale must have the 16 channels' shape [16], got 'tensor<8xf32>'}}
  %0:3 = amp.batch_norm_grad %x, %x running(%r, %r : tensor<16xf32>) scale(%g : tensor<8xf32>) : tensor<8x16xf32> -> tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @batch_norm_grad_scale_grad(%x: tensor<8x16xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{scale_grad must have the 16 channels' shape [16], got 'tensor<1x16xf32>'}}
  %0:3 = amp.batch_norm_grad %x, %x running(%r, %r : tensor<16xf32>) : tensor<8x16xf32> -> tensor<1x16xf32>, tensor<16xf32>
  return
}

// -----

func.func @batch_norm_grad_bias_grad(%x: tensor<8x16xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{bias_grad must have the 16 channels' shape [16], got 'tensor<8xf32>'}}
  %0:3 = amp.batch_norm_grad %x, %x running(%r, %r : tensor<16xf32>) : tensor<8x16xf32> -> tensor<16xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_epsilon(%x: tensor<8x16xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{epsilon must be non-negative and finite, got -1}}
  %0:3 = amp.batch_norm_grad %x, %x running(%r, %r : tensor<16xf32>) {epsilon = -1.0} : tensor<8x16xf32> -> tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @batch_norm_grad_one_value(%x: tensor<1x16x1x1xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{training needs more than one value per channel (the unbiased variance divides by n - 1), got 1}}
  %0:3 = amp.batch_norm_grad %x, %x running(%r, %r : tensor<16xf32>) {training} : tensor<1x16x1x1xf32> -> tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @batch_norm_grad_types(%x: tensor<8x16xf32>, %dy: tensor<8x16xf16>, %r: tensor<16xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, grad, input_grad} have same type}}
  %0:3 = "amp.batch_norm_grad"(%x, %dy, %r, %r) <{epsilon = 1.0e-5 : f64}> : (tensor<8x16xf32>, tensor<8x16xf16>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

// expected-error @+1 {{'amp.param_init' on argument #0 must be array<f64: fan_in, initial> (a whole fan-in of 0 or more, a finite value) on an 'amp.param' argument}}
func.func @param_init_fraction(%w: tensor<4xf32> {amp.param, amp.param_init = array<f64: 2.5, 0.0>}) {
  return
}

// -----

// expected-error @+1 {{'amp.param_init' on argument #0 must be array<f64: fan_in, initial> (a whole fan-in of 0 or more, a finite value) on an 'amp.param' argument}}
func.func @param_init_not_param(%w: tensor<4xf32> {amp.param_init = array<f64: 0.0, 1.0>}) {
  return
}

// -----

func.func @adaptive_avg_pool2d_rank(%x: tensor<8x16x4xf32>) {
  // expected-error @+1 {{expects [N, C, H, W] images, got 'tensor<8x16x4xf32>'}}
  %0 = amp.adaptive_avg_pool2d %x output_size = [1, 1] : tensor<8x16x4xf32> to tensor<8x16x1x1xf32>
  return
}

// -----

func.func @adaptive_avg_pool2d_size(%x: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{output_size must be [OH, OW], each at least 1, got [-1, 2]}}
  %0 = amp.adaptive_avg_pool2d %x output_size = [-1, 2] : tensor<8x16x4x4xf32> to tensor<8x16x1x2xf32>
  return
}

// -----

func.func @adaptive_avg_pool2d_entries(%x: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{output_size must be [OH, OW], each at least 1, got [2]}}
  %0 = amp.adaptive_avg_pool2d %x output_size = [2] : tensor<8x16x4x4xf32> to tensor<8x16x2x2xf32>
  return
}

// -----

func.func @adaptive_avg_pool2d_result(%x: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{result must be 'tensor<8x16x2x2xf32>', got 'tensor<8x16x2x2xf16>'}}
  %0 = amp.adaptive_avg_pool2d %x output_size = [2, 2] : tensor<8x16x4x4xf32> to tensor<8x16x2x2xf16>
  return
}

// -----

func.func @conv2d_grad_input_rank(%dy: tensor<8x16x4xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{grad must have rank 4, got [8, 16, 4]}}
  %0 = amp.conv2d_grad_input %dy, %w : tensor<8x16x4xf32>, tensor<16x3x3x3xf32> to tensor<8x3x6x6xf32>
  return
}

// -----

func.func @conv2d_grad_weight_types(%x: tensor<8x3x6x6xf16>, %dy: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{the image, the weight and grad must have one element type, got 'f16', 'f32' and 'f32'}}
  %0 = amp.conv2d_grad_weight %x, %dy : tensor<8x3x6x6xf16>, tensor<8x16x4x4xf32> to tensor<16x3x3x3xf32>
  return
}

// -----

func.func @conv2d_grad_weight_groups(%x: tensor<8x3x6x6xf32>, %dy: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{groups (2) must be >= 1 and divide the image's 3 channels and the weight's 16 output channels}}
  %0 = amp.conv2d_grad_weight %x, %dy {groups = 2 : i64} : tensor<8x3x6x6xf32>, tensor<8x16x4x4xf32> to tensor<16x3x3x3xf32>
  return
}

// -----

func.func @conv2d_grad_input_channels(%dy: tensor<8x16x4x4xf32>, %w: tensor<16x2x3x3xf32>) {
  // expected-error @+1 {{weight [16, 2, 3, 3] must have 3 input channels (the image's 3 over 1 groups)}}
  %0 = amp.conv2d_grad_input %dy, %w : tensor<8x16x4x4xf32>, tensor<16x2x3x3xf32> to tensor<8x3x6x6xf32>
  return
}

// -----

func.func @conv2d_grad_input_shape(%dy: tensor<8x16x5x5xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{grad must be [8, 16, 4, 4] (the convolution's result), got [8, 16, 5, 5]}}
  %0 = amp.conv2d_grad_input %dy, %w : tensor<8x16x5x5xf32>, tensor<16x3x3x3xf32> to tensor<8x3x6x6xf32>
  return
}

// -----

func.func @conv2d_grad_input_window(%dy: tensor<8x16x4x4xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{strides must be >= 1, got [0, 1]}}
  %0 = amp.conv2d_grad_input %dy, %w {strides = array<i64: 0, 1>} : tensor<8x16x4x4xf32>, tensor<16x3x3x3xf32> to tensor<8x3x6x6xf32>
  return
}

// -----

func.func @conv2d_grad_weight_fit(%x: tensor<8x3x2x2xf32>, %dy: tensor<8x16x1x1xf32>) {
  // expected-error @+1 {{the [3, 3] window (dilations [1, 1]) does not fit the padded image [8, 3, 2, 2]}}
  %0 = amp.conv2d_grad_weight %x, %dy : tensor<8x3x2x2xf32>, tensor<8x16x1x1xf32> to tensor<16x3x3x3xf32>
  return
}

// -----

func.func @conv2d_grad_weight_acc(%x: tensor<8x3x6x6xf16>, %dy: tensor<8x16x4x4xf16>) {
  // expected-error @+1 {{acc_type must be f32 or f64, got 'f16'}}
  %0 = amp.conv2d_grad_weight %x, %dy {acc_type = f16} : tensor<8x3x6x6xf16>, tensor<8x16x4x4xf16> to tensor<16x3x3x3xf16>
  return
}

// -----

func.func @conv2d_grad_input_image_rank(%dy: tensor<8x16x4x4xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{the image must have rank 4, got [8, 3, 6]}}
  %0 = amp.conv2d_grad_input %dy, %w : tensor<8x16x4x4xf32>, tensor<16x3x3x3xf32> to tensor<8x3x6xf32>
  return
}

// -----

// Every tensor fits, but the columns (4x the image) would not.
func.func @conv2d_grad_weight_columns(%x: tensor<1x1x1073741824x1073741824xf32>, %dy: tensor<1x1x1073741823x1073741823xf32>) {
  // expected-error @+1 {{its columns, [1, 1 * 2 * 2, 1073741823 * 1073741823], would take more bytes than int64 holds}}
  %0 = amp.conv2d_grad_weight %x, %dy : tensor<1x1x1073741824x1073741824xf32>, tensor<1x1x1073741823x1073741823xf32> to tensor<1x1x2x2xf32>
  return
}

// -----

func.func @inner_seed_f16() -> tensor<f16> {
  // expected-error @+1 {{'amp.inner_seed' is a unit attribute of a 0-d f32 (f64 in a widened copy) amp.constant}}
  %0 = amp.constant {amp.inner_seed} dense<1.0> : tensor<f16>
  return %0 : tensor<f16>
}

// -----

func.func @inner_grad_on_add(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.inner_grad' is a unit attribute of an amp.mul}}
  %0 = amp.add %x, %x {amp.inner_grad} : tensor<f32>, tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @custom_vjp_on_op(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.custom_vjp' names a function (@f_backward) on a function}}
  %0 = amp.neg %x {amp.custom_vjp = @f} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expected-error @+1 {{'amp.cast_inputs' is f32 (f64 in a widened copy), on a function with 'amp.custom_vjp'}}
func.func @cast_inputs_alone(%x: tensor<f32>) -> tensor<f32> attributes {amp.cast_inputs = f32} {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{'amp.cast_inputs' is f32 (f64 in a widened copy), on a function with 'amp.custom_vjp'}}
func.func @cast_inputs_f16(%x: tensor<f32>) -> tensor<f32> attributes {amp.cast_inputs = f16, amp.custom_vjp = @cast_inputs_f16} {
  return %x : tensor<f32>
}

// -----

func.func @matmul_scales_not_fp8(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'amp.matmul' op scales need lhs_fp8 and rhs_fp8: only an FP8 GEMM scales its operands}}
  %0 = amp.matmul %a, %b scales %s {fp8_scale_index = array<i64: 0, 1>} : tensor<2x3xbf16>, tensor<3x4xbf16> scales tensor<3xf32> to tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_scales_type(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %s: tensor<3xf16>) {
  // expected-error @+1 {{'amp.matmul' op scales must be a 1-D f32 tensor, got 'tensor<3xf16>'}}
  %0 = amp.matmul %a, %b scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, fp8_scale_index = array<i64: 0, 1>} : tensor<2x3xbf16>, tensor<3x4xbf16> scales tensor<3xf16> to tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_scale_index_count(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'amp.matmul' op scales needs fp8_scale_index of 3 positions: lhs's and rhs's scales, then the gradient's (grad_fp8)}}
  %0 = amp.matmul %a, %b scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1>} : tensor<2x3xbf16>, tensor<3x4xbf16> scales tensor<3xf32> to tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_scale_index_range(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'amp.matmul' op fp8_scale_index 3 is outside scales 'tensor<3xf32>'}}
  %0 = amp.matmul %a, %b scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, fp8_scale_index = array<i64: 0, 3>} : tensor<2x3xbf16>, tensor<3x4xbf16> scales tensor<3xf32> to tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_scale_index_alone(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error @+1 {{'amp.matmul' op fp8_scale_index needs scales}}
  %0 = amp.matmul %a, %b {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, fp8_scale_index = array<i64: 0, 1>} : tensor<2x3xbf16>, tensor<3x4xbf16> to tensor<2x4xbf16>
  return
}

// -----

func.func @fp8_delayed_without_scales(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error @+1 {{'amp.fp8_delayed' is {amax_compute = "max" or "most_recent", margin = a finite float} on an amp.matmul with scales}}
  %0 = amp.matmul %a, %b {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, amp.fp8_delayed = {amax_compute = "max", margin = 0.0 : f64}} : tensor<2x3xbf16>, tensor<3x4xbf16> to tensor<2x4xbf16>
  return
}

// -----

func.func @fp8_delayed_recipe(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'amp.fp8_delayed' is {amax_compute = "max" or "most_recent", margin = a finite float} on an amp.matmul with scales}}
  %0 = amp.matmul %a, %b scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, fp8_scale_index = array<i64: 0, 1>, amp.fp8_delayed = {amax_compute = "mean", margin = 0.0 : f64}} : tensor<2x3xbf16>, tensor<3x4xbf16> scales tensor<3xf32> to tensor<2x4xbf16>
  return
}

// -----

func.func @fp8_scaling_update_scale(%s: tensor<f32>, %h: tensor<4x1xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'amp.fp8_scaling_update' op scale and overflows must be 1-D f32 tensors (a value per scaled tensor), got 'tensor<f32>'}}
  %0:3 = amp.fp8_scaling_update %s, %h, %s, amax(%a : tensor<f32>) {formats = [f8E4M3FN], margin = 0.0} : tensor<f32>, tensor<4x1xf32>
  return
}

// -----

func.func @fp8_scaling_update_history(%s: tensor<2xf32>, %h: tensor<4x3xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'amp.fp8_scaling_update' op amax_history must be tensor<Hx2xf32> with H >= 1 (a row per step), got 'tensor<4x3xf32>'}}
  %0:3 = amp.fp8_scaling_update %s, %h, %s, amax(%a, %a : tensor<f32>, tensor<f32>) {formats = [f8E4M3FN, f8E4M3FN], margin = 0.0} : tensor<2xf32>, tensor<4x3xf32>
  return
}

// -----

func.func @fp8_scaling_update_amax_count(%s: tensor<2xf32>, %h: tensor<4x2xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'amp.fp8_scaling_update' op takes 2 amax values (one per scaled tensor), got 1}}
  %0:3 = amp.fp8_scaling_update %s, %h, %s, amax(%a : tensor<f32>) {formats = [f8E4M3FN, f8E4M3FN], margin = 0.0} : tensor<2xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @fp8_scaling_update_amax_type(%s: tensor<1xf32>, %h: tensor<4x1xf32>, %a: tensor<1xf32>) {
  // expected-error @+1 {{'amp.fp8_scaling_update' op each amax must be a 0-d f32 tensor, got 'tensor<1xf32>'}}
  %0:3 = amp.fp8_scaling_update %s, %h, %s, amax(%a : tensor<1xf32>) {formats = [f8E4M3FN], margin = 0.0} : tensor<1xf32>, tensor<4x1xf32>
  return
}

// -----

func.func @fp8_scaling_update_formats(%s: tensor<1xf32>, %h: tensor<4x1xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'amp.fp8_scaling_update' op formats has 2 entries for 1 scaled tensors}}
  %0:3 = amp.fp8_scaling_update %s, %h, %s, amax(%a : tensor<f32>) {formats = [f8E4M3FN, f8E5M2], margin = 0.0} : tensor<1xf32>, tensor<4x1xf32>
  return
}

// -----

func.func @fp8_scaling_update_format(%s: tensor<1xf32>, %h: tensor<4x1xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'amp.fp8_scaling_update' op formats must be f8E4M3FN or f8E5M2, got 'bf16'}}
  %0:3 = amp.fp8_scaling_update %s, %h, %s, amax(%a : tensor<f32>) {formats = [bf16], margin = 0.0} : tensor<1xf32>, tensor<4x1xf32>
  return
}

// -----

func.func @fp8_scaling_update_margin(%s: tensor<1xf32>, %h: tensor<4x1xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'amp.fp8_scaling_update' op margin must be finite, got INF}}
  %0:3 = amp.fp8_scaling_update %s, %h, %s, amax(%a : tensor<f32>) {formats = [f8E4M3FN], margin = 0x7FF0000000000000 : f64} : tensor<1xf32>, tensor<4x1xf32>
  return
}

// -----

func.func @fp8_cast_f64(%x: tensor<4x4xf64>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'amp.fp8_cast' op casts an f16, bf16 or f32 tensor of rank 2 or more, got 'tensor<4x4xf64>'}}
  %q, %qt, %a = amp.fp8_cast %x, %s {fp8_scale_index = 0 : i64, format = f8E4M3FN} : tensor<4x4xf64>, tensor<1xf32> to tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN>
  return
}

// -----

func.func @fp8_cast_scales(%x: tensor<4x4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.fp8_cast' op scales must be a 1-D f32 tensor, got 'tensor<f32>'}}
  %q, %qt, %a = amp.fp8_cast %x, %s {fp8_scale_index = 0 : i64, format = f8E4M3FN} : tensor<4x4xf32>, tensor<f32> to tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN>
  return
}

// -----

func.func @fp8_cast_index(%x: tensor<4x4xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'amp.fp8_cast' op fp8_scale_index 2 is outside scales 'tensor<2xf32>'}}
  %q, %qt, %a = amp.fp8_cast %x, %s {fp8_scale_index = 2 : i64, format = f8E4M3FN} : tensor<4x4xf32>, tensor<2xf32> to tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN>
  return
}

// -----

func.func @fp8_cast_results(%x: tensor<4x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'amp.fp8_cast' op results must be 'tensor<4x8xf8E4M3FN>' and 'tensor<8x4xf8E4M3FN>' (the input's shape, then its last two dimensions swapped, in the format)}}
  %q, %qt, %a = amp.fp8_cast %x, %s {fp8_scale_index = 0 : i64, format = f8E4M3FN} : tensor<4x8xf32>, tensor<2xf32> to tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>
  return
}

// -----

func.func @matmul_fp8_operands_without_scales(%a: tensor<16x16xf8E4M3FN>) {
  // expected-error @+1 {{'amp.matmul' op FP8 operands ('f8E4M3FN', 'f8E4M3FN') need both operands FP8, lhs_fp8 and rhs_fp8 their types, and the scales they were cast with}}
  %0 = amp.matmul %a, %a {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> to tensor<16x16xf32>
  return
}

// -----

func.func @matmul_fp8_operand_format(%a: tensor<16x16xf8E4M3FN>, %b: tensor<16x16xf8E5M2>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'amp.matmul' op FP8 operands ('f8E4M3FN', 'f8E5M2') need both operands FP8, lhs_fp8 and rhs_fp8 their types, and the scales they were cast with}}
  %0 = amp.matmul %a, %b scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, fp8_scale_index = array<i64: 0, 1>} : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E5M2> scales tensor<2xf32> to tensor<16x16xf32>
  return
}

// -----

func.func @matmul_fp8_operands_grad(%a: tensor<16x16xf8E4M3FN>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'amp.matmul' op a product of FP8 operands has no gradient: no grad_fp8}}
  %0 = amp.matmul %a, %a scales %s {lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>} : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> scales tensor<3xf32> to tensor<16x16xf32>
  return
}
