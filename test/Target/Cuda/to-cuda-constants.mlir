// RUN: amp-translate --amp-to-cuda %s | FileCheck %s

// A dense constant is an array of the library (its op in a comment; f16 as
// bits), read through the address ampstep::constantData gives at the
// launch, at the kernel's index broadcast into the constant's shape; a
// splat one is a literal.

// CHECK: // %{{.*}} = amp.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<1x3xf32>
// CHECK-NEXT: AMP_STEP_DATA const float kData0[] = {0x1p+0, 0x1p+1, 0x1.8p+1};
// CHECK: AMP_STEP_DATA const ampstep::f16_t kData1[] = {0x3c00, 0xc000, 0x3800};
// CHECK-LABEL: struct k0_constant_constant_add_constant_cast_mul {
// CHECK: const int64_t c1 = i % 3;
// CHECK: const float v{{[0-9]+}} = table0[c1];
// CHECK: const float v{{[0-9]+}} = static_cast<float>(0x1p-1);
// CHECK: const float v{{[0-9]+}} = ampstep::ldF16(table1, c1);
// CHECK: ampstep::launch(
// CHECK-NEXT: stream, "k0_constant_constant_add_constant_cast_mul", 6,
// CHECK-NEXT: k0_constant_constant_add_constant_cast_mul{param0, mul0, ampstep::constantData(kData0),
// CHECK-NEXT: ampstep::constantData(kData1)}));
func.func @step(%w: tensor<2x3xf32> {amp.param}) -> (tensor<2x3xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  %m = amp.fusion(%wi = %w) : (tensor<2x3xf32>) -> tensor<2x3xf32> attributes {amp.place = [#amp.place<arena 0>]} {
    %table = amp.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
    %half = amp.constant dense<0.5> : tensor<f32>
    %h = amp.add %wi, %table : tensor<2x3xf32>, tensor<1x3xf32>
    %scale16 = amp.constant dense<[1.0, -2.0, 0.5]> : tensor<3xf16>
    %scale = amp.cast %scale16 : tensor<3xf16> to tensor<3xf32>
    %0 = amp.mul %h, %scale : tensor<2x3xf32>, tensor<3xf32>
    amp.yield %0 : tensor<2x3xf32>
  }
  %s = amp.fusion(%mi = %m) : (tensor<2x3xf32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 32>]} {
    %0 = amp.sum %mi dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
    amp.yield %0 : tensor<f32>
  }
  return %w, %s : tensor<2x3xf32>, tensor<f32>
}
