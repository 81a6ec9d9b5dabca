// Cast placement: one cast per (value, type), parameters once at entry, no
// chains, signatures unchanged.
// RUN: amp-opt %s --amp-autocast -split-input-file | FileCheck %s

// A parameter used by three matmuls is cast once, at function entry; the
// input likewise.
// CHECK-LABEL: func.func @parameter_cast_once
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32> {amp.param})
// CHECK-NEXT: %[[XH:.*]] = amp.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[WH:.*]] = amp.cast %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT: %[[A:.*]] = amp.matmul %[[XH]], %[[WH]]
// CHECK-NEXT: %[[B:.*]] = amp.matmul %[[A]], %[[WH]]
// CHECK-NEXT: %[[C:.*]] = amp.matmul %[[B]], %[[WH]]
// CHECK-NOT: amp.cast %[[W]]
func.func @parameter_cast_once(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {amp.param}) -> tensor<4x8xf32> {
  %a = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %b = amp.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %c = amp.matmul %b, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// One f16 value read by three f32 consumers is cast up once.
// CHECK-LABEL: func.func @shared_cast
// CHECK: %[[H:.*]] = amp.matmul
// CHECK-NEXT: %[[HF:.*]] = amp.cast %[[H]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK-NOT: amp.cast
// CHECK: amp.exp %[[HF]]
// CHECK: amp.log %[[HF]]
// CHECK: amp.softmax %[[HF]]
func.func @shared_cast(%x: tensor<4x4xf32> {amp.param}) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %h = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %0 = amp.exp %h : tensor<4x4xf32>
  %1 = amp.log %h : tensor<4x4xf32>
  %2 = amp.softmax %h dim = 1 : tensor<4x4xf32>
  return %0, %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The signature does not change: a low result returned is cast back, and
// f16 arguments are used as they are.
// CHECK-LABEL: func.func @signature_kept
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf16>) -> (tensor<2x2xf32>, tensor<2x2xf16>)
// CHECK-NEXT: %[[M:.*]] = amp.matmul %[[X]], %[[X]] {acc_type = f32} : tensor<2x2xf16>, tensor<2x2xf16> to tensor<2x2xf16>
// CHECK-NEXT: %[[MF:.*]] = amp.cast %[[M]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK-NEXT: return %[[MF]], %[[M]]
func.func @signature_kept(%x: tensor<2x2xf16>) -> (tensor<2x2xf32>, tensor<2x2xf16>) {
  %m = amp.matmul %x, %x : tensor<2x2xf16>, tensor<2x2xf16> to tensor<2x2xf32>
  %h = amp.cast %m : tensor<2x2xf32> to tensor<2x2xf16>
  return %m, %h : tensor<2x2xf32>, tensor<2x2xf16>
}

// -----

// No chains: an exact user cast (f16 -> f32) in front of a low op is
// skipped, its f16 source used directly.
// CHECK-LABEL: func.func @no_cast_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf16>)
// CHECK-NOT: amp.cast %[[X]]
// CHECK: amp.matmul %[[X]], %[[X]]
func.func @no_cast_chain(%x: tensor<2x2xf16>) -> tensor<2x2xf32> {
  %f = amp.cast %x : tensor<2x2xf16> to tensor<2x2xf32>
  %m = amp.matmul %f, %f : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

// -----

// An inexact user cast is a quantisation the user asked for: it stays. The
// exact bf16 -> f32 after it is skipped: the matmul reads the bf16 value
// converted to f16 directly.
// CHECK-LABEL: func.func @user_quantisation_kept
// CHECK: %[[Q:.*]] = amp.cast %{{.*}} : tensor<2x2xf32> to tensor<2x2xbf16>
// CHECK-NEXT: %[[H:.*]] = amp.cast %[[Q]] : tensor<2x2xbf16> to tensor<2x2xf16>
// CHECK-NEXT: amp.matmul %[[H]], %[[H]]
func.func @user_quantisation_kept(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %q = amp.cast %x : tensor<2x2xf32> to tensor<2x2xbf16>
  %f = amp.cast %q : tensor<2x2xbf16> to tensor<2x2xf32>
  %m = amp.matmul %f, %f : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

// -----

// Calls are boundaries: the callee's argument keeps its declared type.
// CHECK-LABEL: func.func @call_boundary
// CHECK: %[[M:.*]] = amp.matmul {{.*}} to tensor<2x2xf16>
// CHECK: %[[MF:.*]] = amp.cast %[[M]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK: call @helper(%[[MF]])
func.func private @helper(tensor<2x2xf32>) -> tensor<2x2xf32>
func.func @call_boundary(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %m = amp.matmul %x, %x : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  %r = func.call @helper(%m) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// A cast the pass placed and then rewired by chain removal is reported as
// it ends up: bf16 -> f16, 64 bytes for 16 elements (the user's exact
// bf16 -> f64 -> f32 chain is skipped, then dead).
// RUN: amp-opt %s --amp-autocast="report=%t.json" -split-input-file -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT
// REPORT: "bytes": 64,
// REPORT-NEXT: "from": "bf16",
// REPORT-NEXT: "shape": "tensor<4x4xbf16>",
// REPORT-NEXT: "to": "f16",
// REPORT-NEXT: "value": "argument #0"
// REPORT: "function": "rewired_chain"
// CHECK-LABEL: func.func @rewired_chain
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xbf16>
// CHECK-NOT: f64
// CHECK: %[[H:.*]] = amp.cast %[[A]] : tensor<4x4xbf16> to tensor<4x4xf16>
// CHECK-NOT: f64
func.func @rewired_chain(%a: tensor<4x4xbf16>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c1 = amp.cast %a : tensor<4x4xbf16> to tensor<4x4xf64>
  %s = amp.cast %c1 : tensor<4x4xf64> to tensor<4x4xf32>
  %m = amp.matmul %s, %w : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
