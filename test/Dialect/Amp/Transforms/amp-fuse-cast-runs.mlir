// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-fuse))' | FileCheck %s
// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-fuse,amp-fuse))' | FileCheck %s

// The casts of a function's arguments that are kernels of their own, of
// one source and one result type, run as one launch (a `casts` kernel),
// moved up to the first of them: the bf16 copies of f32 weights, the
// bias's too (it broadcasts, so no loop of the add takes it).
// CHECK-LABEL: func.func @params
// CHECK-NEXT: amp.fusion<casts, root = 0>(%{{.*}} = %arg1, %{{.*}} = %arg2, %{{.*}} = %arg4, %{{.*}} = %arg3)
// CHECK-NEXT: amp.cast %{{.*}} : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK-NEXT: amp.cast %{{.*}} : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK-NEXT: amp.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
// CHECK-NEXT: amp.cast %{{.*}} : tensor<8x16xf32> to tensor<8x16xbf16>
// CHECK-NEXT: amp.yield
// CHECK-NOT: amp.cast
// CHECK: return
func.func @params(%x: tensor<4x8xbf16>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<4x16xbf16> {
  %c0 = amp.cast %w0 : tensor<8x8xf32> to tensor<8x8xbf16>
  %h0 = amp.matmul %x, %c0 : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %c1 = amp.cast %w1 : tensor<8x8xf32> to tensor<8x8xbf16>
  %h1 = amp.matmul %h0, %c1 : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %cb = amp.cast %b : tensor<8xf32> to tensor<8xbf16>
  %h2 = amp.add %h1, %cb : tensor<4x8xbf16>, tensor<8xbf16>
  %c2 = amp.cast %w2 : tensor<8x16xf32> to tensor<8x16xbf16>
  %y = amp.matmul %h2, %c2 : tensor<4x8xbf16>, tensor<8x16xbf16> to tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// Casts of computed values (the f32 copies of bf16 gradients) move down
// to the last of them, where nothing reads one before it: %c1 is read by
// a GEMM before %c3 and stays where it is.
// CHECK-LABEL: func.func @grads
// CHECK: %[[G0:.*]] = amp.fusion<gemm
// CHECK: %[[G1:.*]] = amp.fusion<gemm
// CHECK: amp.fusion<loop, root = 0>(%{{.*}} = %[[G1]])
// CHECK-NEXT: amp.cast
// CHECK: amp.fusion<gemm
// CHECK: %[[G2:.*]] = amp.fusion<gemm
// CHECK: %[[H:.*]] = amp.fusion<gemm
// CHECK: %[[C:.*]]:3 = amp.fusion<casts, root = 0>(%{{.*}} = %[[G0]], %{{.*}} = %[[G2]], %{{.*}} = %[[H]])
// CHECK: return %[[C]]#0, %{{.*}}, %[[C]]#1, %[[C]]#2
func.func @grads(%x: tensor<4x8xbf16>, %w: tensor<8x8xbf16>, %v: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) {
  %xt = amp.transpose %x, [1, 0] : tensor<4x8xbf16> to tensor<8x4xbf16>
  %g0 = amp.matmul %xt, %x : tensor<8x4xbf16>, tensor<4x8xbf16> to tensor<8x8xbf16>
  %c0 = amp.cast %g0 : tensor<8x8xbf16> to tensor<8x8xf32>
  %g1 = amp.matmul %g0, %w : tensor<8x8xbf16>, tensor<8x8xbf16> to tensor<8x8xbf16>
  %c1 = amp.cast %g1 : tensor<8x8xbf16> to tensor<8x8xf32>
  %e = amp.matmul %c1, %v : tensor<8x8xf32>, tensor<8x8xf32> to tensor<8x8xf32>
  %g2 = amp.matmul %g1, %w : tensor<8x8xbf16>, tensor<8x8xbf16> to tensor<8x8xbf16>
  %c2 = amp.cast %g2 : tensor<8x8xbf16> to tensor<8x8xf32>
  %h = amp.matmul %x, %g2 : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %c3 = amp.cast %h : tensor<4x8xbf16> to tensor<4x8xf32>
  return %c0, %e, %c2, %c3 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>
}

// -----

// Casts of other types are runs of their own; a run of one is a loop.
// CHECK-LABEL: func.func @types
// CHECK-NEXT: amp.fusion<casts, root = 0>(%{{.*}} = %arg0, %{{.*}} = %arg2)
// CHECK-NEXT: amp.cast %{{.*}} : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK-NEXT: amp.cast %{{.*}} : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK-NEXT: amp.yield
// CHECK: amp.fusion<loop, root = 0>(%{{.*}} = %arg1)
// CHECK-NEXT: amp.cast %{{.*}} : tensor<8x8xf32> to tensor<8x8xf16>
func.func @types(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> (tensor<8x8xbf16>, tensor<8x8xf16>, tensor<8x8xbf16>) {
  %ca = amp.cast %a : tensor<8x8xf32> to tensor<8x8xbf16>
  %cb = amp.cast %b : tensor<8x8xf32> to tensor<8x8xf16>
  %cc = amp.cast %c : tensor<8x8xf32> to tensor<8x8xbf16>
  return %ca, %cb, %cc : tensor<8x8xbf16>, tensor<8x8xf16>, tensor<8x8xbf16>
}

// A launch takes at most 256 casts (their addresses and starts are its
// parameters): 257 are a run of 256 and a loop of one.
// RUN: %python %S/Inputs/many_casts.py 257 > %t.mlir
// RUN: amp-opt %t.mlir --pass-pipeline='builtin.module(func.func(amp-fuse))' | FileCheck %s --check-prefix=MANY
// MANY: %{{[0-9]+}}:256 = amp.fusion<casts, root = 0>
// MANY-NOT: amp.fusion<casts
// MANY: amp.fusion<loop, root = 0>(%{{.*}} = %arg256)
// MANY-NEXT: amp.cast
// MANY-NOT: amp.fusion
