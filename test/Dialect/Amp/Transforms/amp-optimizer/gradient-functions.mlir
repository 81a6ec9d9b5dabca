// RUN: amp-opt %s --split-input-file --verify-diagnostics --amp-optimizer
// RUN: amp-opt %s --split-input-file --verify-diagnostics --amp-loss-scaling=mode=dynamic

// Gradient functions read from a file, not made by amp-autodiff: both
// passes that read one check its signature first (amp-optimizer read a
// missing result and crashed). The expected texts leave out the pass name,
// which each pass puts in front.

func.func @f(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %l = amp.sum %h dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{@f_grad returns (tensor<f32>); as the gradient of @f it returns the loss (a 0-d float tensor), then the gradients (tensor<4x3xf32>) of its amp.param arguments}}
func.func @f_grad(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>) -> tensor<f32> attributes {amp.gradient_of = @f} {
  %h = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %l = amp.sum %h dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @f(%w: tensor<4xf32> {amp.param}, %x: tensor<4xf32>) -> tensor<f32> {
  %h = amp.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %l = amp.sum %h dims = [0] : tensor<4xf32> to tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{@f_grad takes (tensor<4xf32>); as the gradient of @f it takes (tensor<4xf32>, tensor<4xf32>)}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @f} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// A loss that is not a 0-d float tensor.
func.func @f(%w: tensor<4xf32> {amp.param}) -> tensor<f32> {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{@f_grad returns (tensor<4xf32>, tensor<4xf32>); as the gradient of @f it returns the loss}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<4xf32>, tensor<4xf32>) attributes {amp.gradient_of = @f} {
  return %w, %w : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{@f_grad is the gradient of @g, which is not a function of this module}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @g} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

func.func private @f(%w: tensor<4xf32> {amp.param}) -> tensor<f32>
// expected-error @+1 {{@f_grad and @f need bodies (a gradient function is made by amp-autodiff from its function)}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @f} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// Scaled (amp.loss_scaling), but without the scale argument and found_inf.
func.func @f(%w: tensor<4xf32> {amp.param}) -> tensor<f32> {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{@f_grad takes (tensor<4xf32>); as the gradient of @f it takes (tensor<4xf32>, tensor<f32>), the last marked amp.loss_scale (it carries amp.loss_scaling)}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @f, amp.loss_scaling = #amp.loss_scaling<static, init_scale = 8.0>} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// Scaled, with the scale but without found_inf.
func.func @f(%w: tensor<4xf32> {amp.param}) -> tensor<f32> {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{@f_grad returns (tensor<f32>, tensor<4xf32>); as the gradient of @f it returns the loss (a 0-d float tensor), then the gradients (tensor<4xf32>) of its amp.param arguments, then found_inf (a 0-d f32 tensor)}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}, %s: tensor<f32> {amp.loss_scale}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @f, amp.loss_scaling = #amp.loss_scaling<static, init_scale = 8.0>} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// A model with parts of its loss: the gradient returns them after the
// gradients, in their types.
func.func @f(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<f32>) {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %l : tensor<f32>, tensor<f32>
}
// expected-error @+1 {{@f_grad returns (tensor<f32>, tensor<4xf32>); as the gradient of @f it returns the loss (a 0-d float tensor), then the gradients (tensor<4xf32>) of its amp.param arguments, then the parts of the loss (tensor<f32>)}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @f} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// A model that returns no loss, or a part that is no 0-d float, has no
// gradient function (amp-autodiff refuses it): one read from a file is
// refused as well.
func.func @f(%w: tensor<4xf32> {amp.param}) {
  return
}
// expected-error @+1 {{@f_grad is the gradient of @f, which returns (); a model returns its loss, then any parts of it, as 0-d floating-point tensors}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @f} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

func.func @f(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
// expected-error @+1 {{@f_grad is the gradient of @f, which returns (tensor<f32>, tensor<4xf32>); a model returns its loss, then any parts of it, as 0-d floating-point tensors}}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) attributes {amp.gradient_of = @f} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w, %w : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
