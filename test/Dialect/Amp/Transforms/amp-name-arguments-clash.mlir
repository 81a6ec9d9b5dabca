// An argument whose SSA name another argument holds as its amp.name is an
// error at the argument: left unnamed, it would be called input0 or
// state0 by the compiled step, and a data set, a state file's entry or an
// output file of its name would mean the other argument. Every tool that
// names arguments refuses it: the pass, the passes that name the model's
// arguments first, amp-run and amp-compile.
// RUN: amp-opt %s --amp-name-arguments -verify-diagnostics
// RUN: not amp-opt %s --amp-autodiff=function=param_named_x 2>&1 | FileCheck %s
// RUN: not amp-run %s --function=param_named_x 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: rm -rf %t && not amp-compile %s --source-only -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not ls %t

// CHECK: amp-name-arguments-clash.mlir:[[# @LINE + 6]]:{{[0-9]+}}: error: argument #1 is written %x, but 'x' is the amp.name of argument #0; give one of them another name
// TOOL: amp-name-arguments-clash.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: argument #1 is written %x, but 'x' is the amp.name of argument #0; give one of them another name
// A parameter named x: the batch %x would be called input0, and
// `--data=x=...` would mean the parameter.
func.func @param_named_x(%b: tensor<3xf32> {amp.param, amp.name = "x"},
                         // expected-error @+1 {{argument #1 is written %x, but 'x' is the amp.name of argument #0; give one of them another name}}
                         %x: tensor<3xf32>) -> tensor<f32> {
  %p = amp.mul %b, %x : tensor<3xf32>, tensor<3xf32>
  %l = amp.sum %p dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// An argument named as another one is written: %w would be unnamed.
// CHECK: amp-name-arguments-clash.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: argument #1 is written %w, but 'w' is the amp.name of argument #0; give one of them another name
func.func @renamed(%x: tensor<3xf32> {amp.param, amp.name = "w"},
                   // expected-error @+1 {{argument #1 is written %w, but 'w' is the amp.name of argument #0; give one of them another name}}
                   %w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %p = amp.mul %x, %w : tensor<3xf32>, tensor<3xf32>
  %l = amp.sum %p dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}
