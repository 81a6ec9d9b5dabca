// The interpreter runs a fused step's kernels: each amp.fusion's ops on its
// inputs, its results what it yields. By hand, for x = [1, -2, 3]:
//   relu(x) * 2 = [2, 0, 6], whose sum is 8, and x - 1 = [0, -3, 2].
// The same function fused by --amp-fuse gives the same values.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 3 1 -2 3
// RUN: amp-run %s --function=fused --input=%t/x.npy | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse))' | amp-run - --function=plain --input=%t/x.npy | FileCheck %s

// CHECK: result #0: tensor<f32> = [8]
// CHECK: result #1: tensor<3xf32> = [0, -3, 2]

func.func @fused(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %k:2 = amp.fusion(%a = %x) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %two = amp.constant dense<2.0> : tensor<f32>
    %one = amp.constant dense<1.0> : tensor<f32>
    %r = amp.relu %a : tensor<3xf32>
    %d = amp.mul %r, %two : tensor<3xf32>, tensor<f32>
    %m = amp.sub %a, %one : tensor<3xf32>, tensor<f32>
    amp.yield %d, %m : tensor<3xf32>, tensor<3xf32>
  }
  %s = amp.fusion(%b = %k#0) : (tensor<3xf32>) -> tensor<f32> {
    %0 = amp.sum %b dims = [0] : tensor<3xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %s, %k#1 : tensor<f32>, tensor<3xf32>
}

func.func @plain(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %two = amp.constant dense<2.0> : tensor<f32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %r = amp.relu %x : tensor<3xf32>
  %d = amp.mul %r, %two : tensor<3xf32>, tensor<f32>
  %m = amp.sub %x, %one : tensor<3xf32>, tensor<f32>
  %s = amp.sum %d dims = [0] : tensor<3xf32> to tensor<f32>
  return %s, %m : tensor<f32>, tensor<3xf32>
}
