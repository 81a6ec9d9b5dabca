// amp-overlap-reductions: each gradient bucket's unscale and all-reduce
// move up to where its gradients are final; the unscale is split by
// bucket, the flags joined by maximum where the one unscale stood.
// RUN: amp-opt %s --split-input-file --amp-overlap-reductions | FileCheck %s

// Two layers' backward, the second layer's weight gradient first, then
// the activation gradient and the first layer's. The second layer's
// bucket is reduced while the rest runs.
// CHECK-LABEL: func.func @two_buckets
// CHECK: %[[G2:.*]] = amp.matmul %arg1, %arg2 {acc_type = f32, transpose_lhs}
// CHECK-NEXT: %[[U2:.*]], %[[F2:.*]] = amp.unscale %arg4, %[[G2]] : tensor<f32>, tensor<4x2xf32>
// CHECK-NEXT: %[[R2:.*]] = amp.all_reduce sum %[[U2]] : tensor<4x2xf32>
// CHECK-NEXT: %[[DH:.*]] = amp.matmul %arg2, %arg3 {acc_type = f32, transpose_rhs}
// CHECK-NEXT: %[[G1:.*]] = amp.matmul %arg0, %[[DH]] {acc_type = f32, transpose_lhs}
// CHECK-NEXT: %[[U1:.*]], %[[F1:.*]] = amp.unscale %arg4, %[[G1]] : tensor<f32>, tensor<3x4xf32>
// CHECK-NEXT: %[[R1:.*]] = amp.all_reduce sum %[[U1]] : tensor<3x4xf32>
// CHECK-NEXT: %[[F:.*]] = amp.maximum %[[F1]], %[[F2]]
// CHECK-NEXT: %[[ANY:.*]] = amp.all_reduce max %[[F]]
// CHECK-NEXT: return %[[R1]], %[[R2]], %[[ANY]]
func.func @two_buckets(%x: tensor<5x3xf32>, %h: tensor<5x4xf32>,
                       %dy: tensor<5x2xf32>, %w2: tensor<4x2xf32>,
                       %inv: tensor<f32>)
    -> (tensor<3x4xf32>, tensor<4x2xf32>, tensor<f32>) {
  %g2 = amp.matmul %h, %dy {acc_type = f32, transpose_lhs}
      : tensor<5x4xf32>, tensor<5x2xf32> to tensor<4x2xf32>
  %dh = amp.matmul %dy, %w2 {acc_type = f32, transpose_rhs}
      : tensor<5x2xf32>, tensor<4x2xf32> to tensor<5x4xf32>
  %g1 = amp.matmul %x, %dh {acc_type = f32, transpose_lhs}
      : tensor<5x3xf32>, tensor<5x4xf32> to tensor<3x4xf32>
  %u:2, %found = amp.unscale %inv, %g1, %g2
      : tensor<f32>, tensor<3x4xf32>, tensor<4x2xf32>
  %r2 = amp.all_reduce sum %u#1 : tensor<4x2xf32>
  %r1 = amp.all_reduce sum %u#0 : tensor<3x4xf32>
  %any = amp.all_reduce max %found : tensor<f32>
  return %r1, %r2, %any : tensor<3x4xf32>, tensor<4x2xf32>, tensor<f32>
}

// -----

// Accumulation: the sum with the accumulator (also returned, as the next
// accumulator) and the mean move with the bucket, and so does the flag
// that says whether this micro-batch reduces, a scalar computed from the
// micro-batch count.
// CHECK-LABEL: func.func @accumulation
// CHECK: %[[NEXT:.*]] = amp.add %arg7, %arg9
// CHECK-NEXT: %[[DONE:.*]] = amp.compare ge, %[[NEXT]], %arg8
// CHECK-NEXT: %[[G2:.*]] = amp.matmul %arg1, %arg3
// CHECK-NEXT: %[[U2:.*]], %[[F2:.*]] = amp.unscale %arg4, %[[G2]]
// CHECK-NEXT: %[[S2:.*]] = amp.add %arg6, %[[U2]]
// CHECK-NEXT: %[[M2:.*]] = amp.div %[[S2]], %arg8
// CHECK-NEXT: %[[R2:.*]] = amp.all_reduce sum %[[M2]] when %[[DONE]] : tensor<4x2xf32>
// CHECK-NEXT: %[[G1:.*]] = amp.matmul %arg0, %arg2
// CHECK-NEXT: %[[U1:.*]], %[[F1:.*]] = amp.unscale %arg4, %[[G1]]
// CHECK-NEXT: %[[S1:.*]] = amp.add %arg5, %[[U1]]
// CHECK-NEXT: %[[M1:.*]] = amp.div %[[S1]], %arg8
// CHECK-NEXT: %[[R1:.*]] = amp.all_reduce sum %[[M1]] when %[[DONE]] : tensor<3x4xf32>
// CHECK-NEXT: %[[F:.*]] = amp.maximum %[[F1]], %[[F2]]
// CHECK-NEXT: return %[[R1]], %[[R2]], %[[S1]], %[[S2]], %[[F]]
func.func @accumulation(%x: tensor<5x3xf32>, %h: tensor<5x4xf32>,
                        %dh: tensor<5x4xf32>, %dy: tensor<5x2xf32>,
                        %inv: tensor<f32>, %acc1: tensor<3x4xf32>,
                        %acc2: tensor<4x2xf32>, %micro: tensor<f32>,
                        %n: tensor<f32>, %one: tensor<f32>)
    -> (tensor<3x4xf32>, tensor<4x2xf32>, tensor<3x4xf32>, tensor<4x2xf32>,
        tensor<f32>) {
  %g2 = amp.matmul %h, %dy {acc_type = f32, transpose_lhs}
      : tensor<5x4xf32>, tensor<5x2xf32> to tensor<4x2xf32>
  %g1 = amp.matmul %x, %dh {acc_type = f32, transpose_lhs}
      : tensor<5x3xf32>, tensor<5x4xf32> to tensor<3x4xf32>
  %u:2, %found = amp.unscale %inv, %g1, %g2
      : tensor<f32>, tensor<3x4xf32>, tensor<4x2xf32>
  %next = amp.add %micro, %one : tensor<f32>, tensor<f32>
  %done = amp.compare ge, %next, %n : tensor<f32>, tensor<f32>
  %s1 = amp.add %acc1, %u#0 : tensor<3x4xf32>, tensor<3x4xf32>
  %m1 = amp.div %s1, %n : tensor<3x4xf32>, tensor<f32>
  %s2 = amp.add %acc2, %u#1 : tensor<4x2xf32>, tensor<4x2xf32>
  %m2 = amp.div %s2, %n : tensor<4x2xf32>, tensor<f32>
  %r2 = amp.all_reduce sum %m2 when %done : tensor<4x2xf32>
  %r1 = amp.all_reduce sum %m1 when %done : tensor<3x4xf32>
  return %r1, %r2, %s1, %s2, %found
      : tensor<3x4xf32>, tensor<4x2xf32>, tensor<3x4xf32>, tensor<4x2xf32>,
        tensor<f32>
}

// -----

// A gradient that reaches two buckets (%gb: as it is, and through an exp)
// stays in an unscale of its own, where the one unscale stood, and holds
// back the buckets that read it. The activation gradient %dh stays where
// it is, before the first layer's gradient that reads it.
// CHECK-LABEL: func.func @shared
// CHECK: %[[DH:.*]] = amp.matmul %arg2, %arg3 {acc_type = f32, transpose_rhs}
// CHECK-NEXT: %[[G1:.*]] = amp.matmul %arg0, %[[DH]] {acc_type = f32, transpose_lhs}
// CHECK-NEXT: %[[U1:.*]], %[[F1:.*]] = amp.unscale %arg4, %[[G1]] : tensor<f32>, tensor<3x4xf32>
// CHECK-NEXT: %[[G2:.*]] = amp.matmul %arg1, %arg2 {acc_type = f32, transpose_lhs}
// CHECK-NEXT: %[[U2:.*]], %[[F2:.*]] = amp.unscale %arg4, %[[G2]] : tensor<f32>, tensor<4x2xf32>
// CHECK-NEXT: %[[F12:.*]] = amp.maximum %[[F1]], %[[F2]]
// CHECK-NEXT: %[[UB:.*]], %[[FB:.*]] = amp.unscale %arg4, %arg5 : tensor<f32>, tensor<2xf32>
// CHECK-NEXT: %[[B:.*]]:2 = amp.all_reduce sum %[[U1]], %[[UB]] : tensor<3x4xf32>, tensor<2xf32>
// CHECK-NEXT: %[[E:.*]] = amp.exp %[[UB]]
// CHECK-NEXT: %[[A:.*]]:2 = amp.all_reduce sum %[[U2]], %[[E]] : tensor<4x2xf32>, tensor<2xf32>
// CHECK-NEXT: %[[F:.*]] = amp.maximum %[[F12]], %[[FB]]
// CHECK-NEXT: return %[[B]]#0, %[[A]]#0, %[[A]]#1, %[[B]]#1, %[[F]]
func.func @shared(%x: tensor<5x3xf32>, %h: tensor<5x4xf32>,
                  %dy: tensor<5x2xf32>, %w2: tensor<4x2xf32>,
                  %inv: tensor<f32>, %gb: tensor<2xf32>)
    -> (tensor<3x4xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<f32>) {
  %dh = amp.matmul %dy, %w2 {acc_type = f32, transpose_rhs}
      : tensor<5x2xf32>, tensor<4x2xf32> to tensor<5x4xf32>
  %g2 = amp.matmul %h, %dy {acc_type = f32, transpose_lhs}
      : tensor<5x4xf32>, tensor<5x2xf32> to tensor<4x2xf32>
  %g1 = amp.matmul %x, %dh {acc_type = f32, transpose_lhs}
      : tensor<5x3xf32>, tensor<5x4xf32> to tensor<3x4xf32>
  %u:3, %found = amp.unscale %inv, %g1, %g2, %gb
      : tensor<f32>, tensor<3x4xf32>, tensor<4x2xf32>, tensor<2xf32>
  %e = amp.exp %u#2 : tensor<2xf32>
  %a:2 = amp.all_reduce sum %u#1, %e : tensor<4x2xf32>, tensor<2xf32>
  %b:2 = amp.all_reduce sum %u#0, %u#2 : tensor<3x4xf32>, tensor<2xf32>
  return %b#0, %a#0, %a#1, %b#1, %found
      : tensor<3x4xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<f32>
}

// -----

// Without a gradient sum, nothing moves.
// CHECK-LABEL: func.func @no_sum
// CHECK: amp.matmul
// CHECK-NEXT: amp.matmul
// CHECK-NEXT: amp.unscale %arg4, %{{.*}}, %{{.*}} : tensor<f32>, tensor<3x4xf32>, tensor<4x2xf32>
// CHECK-NEXT: amp.all_reduce max
func.func @no_sum(%x: tensor<5x3xf32>, %h: tensor<5x4xf32>,
                  %dh: tensor<5x4xf32>, %dy: tensor<5x2xf32>,
                  %inv: tensor<f32>)
    -> (tensor<3x4xf32>, tensor<4x2xf32>, tensor<f32>) {
  %g2 = amp.matmul %h, %dy {acc_type = f32, transpose_lhs}
      : tensor<5x4xf32>, tensor<5x2xf32> to tensor<4x2xf32>
  %g1 = amp.matmul %x, %dh {acc_type = f32, transpose_lhs}
      : tensor<5x3xf32>, tensor<5x4xf32> to tensor<3x4xf32>
  %u:2, %found = amp.unscale %inv, %g1, %g2
      : tensor<f32>, tensor<3x4xf32>, tensor<4x2xf32>
  %any = amp.all_reduce max %found : tensor<f32>
  return %u#0, %u#1, %any : tensor<3x4xf32>, tensor<4x2xf32>, tensor<f32>
}
