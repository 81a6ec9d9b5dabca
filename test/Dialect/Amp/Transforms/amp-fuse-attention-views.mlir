// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-fuse))' | FileCheck %s
// Fusing again leaves the marks and the kernels as they are.
// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-fuse,amp-fuse))' | FileCheck %s

// The runtime's attention reads its query, key and value where a QKV
// projection left them and writes its output in the order the heads'
// merge wants it (amp_attention_layout_t): the slices and transposes of
// the head split and merge are marked as views (amp.attention_view) and
// no kernel moves them.
// CHECK-LABEL: func.func @heads
// CHECK: amp.slice %arg0 [0, 0, 0] to [2, 5, 12] {amp.attention_view}
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.transpose %{{.*}}, [0, 2, 1, 3] {amp.attention_view}
// CHECK-NEXT: amp.slice %arg0 [0, 0, 12] to [2, 5, 24] {amp.attention_view}
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.transpose %{{.*}}, [0, 2, 1, 3] {amp.attention_view}
// CHECK-NEXT: amp.slice %arg0 [0, 0, 24] to [2, 5, 36] {amp.attention_view}
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.transpose %{{.*}}, [0, 2, 1, 3] {amp.attention_view}
// CHECK-NEXT: %[[O:.*]] = amp.fusion<single
// CHECK-NEXT: amp.attention
// CHECK-NEXT: amp.yield
// CHECK-NEXT: }
// CHECK-NEXT: amp.transpose %[[O]], [0, 2, 1, 3] {amp.attention_view}
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.fusion<loop
// CHECK-NEXT: amp.neg
func.func @heads(%qkv: tensor<2x5x36xf16>) -> tensor<2x5x12xf16> {
  %qs = amp.slice %qkv [0, 0, 0] to [2, 5, 12] : tensor<2x5x36xf16> to tensor<2x5x12xf16>
  %qr = amp.reshape %qs : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %q = amp.transpose %qr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %ks = amp.slice %qkv [0, 0, 12] to [2, 5, 24] : tensor<2x5x36xf16> to tensor<2x5x12xf16>
  %kr = amp.reshape %ks : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %k = amp.transpose %kr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %vs = amp.slice %qkv [0, 0, 24] to [2, 5, 36] : tensor<2x5x36xf16> to tensor<2x5x12xf16>
  %vr = amp.reshape %vs : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %v = amp.transpose %vr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %o = amp.attention %q, %k, %v causal : tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>
  %t = amp.transpose %o, [0, 2, 1, 3] : tensor<2x3x5x4xf16> to tensor<2x5x3x4xf16>
  %m = amp.reshape %t : tensor<2x5x3x4xf16> to tensor<2x5x12xf16>
  %y = amp.neg %m : tensor<2x5x12xf16>
  return %y : tensor<2x5x12xf16>
}

// -----

// What something else reads stays a kernel of its own: a query that is
// also negated, a key slice that is also negated (its transpose still
// reads the slice's result in place), an output that is also returned.
// CHECK-LABEL: func.func @read_elsewhere
// CHECK: %[[Q:.*]] = amp.fusion<gather
// CHECK-NEXT: amp.slice %{{.*}} [0, 0, 0] to [2, 5, 12] :
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.transpose %{{.*}}, [0, 2, 1, 3] :
// CHECK: %[[KS:.*]] = amp.fusion<gather
// CHECK-NEXT: amp.slice %{{.*}} [0, 0, 12] to [2, 5, 24] :
// CHECK: %[[KR:.*]] = amp.reshape %[[KS]]
// CHECK-NEXT: %[[K:.*]] = amp.transpose %[[KR]], [0, 2, 1, 3] {amp.attention_view}
// CHECK: %[[O:.*]] = amp.fusion<single, root = 0>(%{{.*}} = %[[Q]], %{{.*}} = %[[K]])
// CHECK: amp.fusion<gather, root = 0>(%{{.*}} = %[[O]])
// CHECK-NEXT: amp.transpose %{{.*}}, [0, 2, 1, 3] :
func.func @read_elsewhere(%qkv: tensor<2x5x36xf16>) -> (tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x5x3x4xf16>, tensor<2x5x12xf16>) {
  %qs = amp.slice %qkv [0, 0, 0] to [2, 5, 12] : tensor<2x5x36xf16> to tensor<2x5x12xf16>
  %qr = amp.reshape %qs : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %q = amp.transpose %qr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %ks = amp.slice %qkv [0, 0, 12] to [2, 5, 24] : tensor<2x5x36xf16> to tensor<2x5x12xf16>
  %kr = amp.reshape %ks : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %k = amp.transpose %kr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %k2 = amp.neg %ks : tensor<2x5x12xf16>
  %o = amp.attention %q, %q, %k : tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>
  %t = amp.transpose %o, [0, 2, 1, 3] : tensor<2x3x5x4xf16> to tensor<2x5x3x4xf16>
  %n = amp.neg %q : tensor<2x3x5x4xf16>
  return %o, %n, %t, %k2 : tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x5x3x4xf16>, tensor<2x5x12xf16>
}

// -----

// A transpose whose innermost dimension is not the head dim's contiguous
// one cannot be read by strides: [b, s, d, h] to [b, h, s, d] moves d.
// CHECK-LABEL: func.func @head_dim_strided
// CHECK: amp.fusion<gather
// CHECK-NEXT: amp.transpose %{{.*}}, [0, 3, 1, 2] :
func.func @head_dim_strided(%x: tensor<2x5x4x3xf16>, %k: tensor<2x3x5x4xf16>) -> tensor<2x3x5x4xf16> {
  %q = amp.transpose %x, [0, 3, 1, 2] : tensor<2x5x4x3xf16> to tensor<2x3x5x4xf16>
  %o = amp.attention %q, %k, %k : tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>
  return %o : tensor<2x3x5x4xf16>
}
