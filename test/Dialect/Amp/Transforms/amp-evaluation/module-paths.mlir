// amp-evaluation names the values of a model whose ops are located by
// module path (the torch importer's loc("body.0"(...))) by those paths:
// each path, and each that encloses it, names the result of the last op
// located inside that module, the module's output. The paths are in the
// IR, so they name values read from standard input too.
// RUN: amp-opt %s --amp-evaluation="function=net outputs=head,body,body.0" | FileCheck %s
// RUN: amp-opt --amp-evaluation="function=net outputs=head" < %s | FileCheck %s --check-prefix=STDIN
// RUN: not amp-opt %s --amp-evaluation="function=net outputs=body.2" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// An SSA name of the source wins over a path.
// RUN: amp-opt %s --amp-evaluation="function=named outputs=head" | FileCheck %s --check-prefix=SSA

// CHECK-LABEL: func.func @net_eval(
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss"}, tensor<2x3xf32> {amp.name = "head"}, tensor<2x4xf32> {amp.name = "body"}, tensor<2x4xf32> {amp.name = "body.0"})
// CHECK: %[[B0:.*]] = amp.matmul
// CHECK: %[[B1:.*]] = amp.relu %[[B0]]
// CHECK: %[[H:.*]] = amp.matmul %[[B1]]
// CHECK: return %{{.*}}, %[[H]], %[[B1]], %[[B0]] :

// STDIN-LABEL: func.func @net_eval(
// STDIN-SAME: -> (tensor<f32> {amp.name = "loss"}, tensor<2x3xf32> {amp.name = "head"})

// UNKNOWN: module-paths.mlir:[[# @LINE + 1]]:1: error: amp-evaluation: @net defines no value named 'body.2' in its source (it defines: body, body.0, body.1, head)
func.func @net(%x: tensor<2x4xf32> {amp.name = "x"}, %labels: tensor<2xi64> {amp.name = "labels"},
               %w: tensor<4x4xf32> {amp.param, amp.name = "body.0.weight"},
               %v: tensor<4x3xf32> {amp.param, amp.name = "head.weight"}) -> tensor<f32> {
  %0 = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> to tensor<2x4xf32> loc("body.0"("net.py":10:0))
  %1 = amp.relu %0 : tensor<2x4xf32> loc("body.1"("net.py":11:0))
  %2 = amp.matmul %1, %v : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32> loc("head"("net.py":12:0))
  %3 = amp.cross_entropy %2, %labels : tensor<2x3xf32>, tensor<2xi64> to tensor<f32> loc("net.py":20:0)
  return %3 : tensor<f32>
}

// SSA-LABEL: func.func @named_eval(
// SSA-SAME: -> (tensor<f32> {amp.name = "loss"}, tensor<2x4xf32> {amp.name = "head"})
// SSA: %[[H:.*]] = amp.relu
// SSA: return %{{.*}}, %[[H]] :
func.func @named(%x: tensor<2x4xf32>, %labels: tensor<2xi64>,
                 %v: tensor<4x3xf32> {amp.param}) -> tensor<f32> {
  %head = amp.relu %x : tensor<2x4xf32>
  %logits = amp.matmul %head, %v : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32> loc("head"("net.py":12:0))
  %loss = amp.cross_entropy %logits, %labels : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %loss : tensor<f32>
}
