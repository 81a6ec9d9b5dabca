// The cases of scripts/make_golden_batch_norm.py: the forward of each (the
// result and the running statistics after), and sum(batch_norm(x) * g),
// which amp-autodiff differentiates in x and the affine parameters.
func.func @train_images(%x: tensor<4x3x5x5xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>,
                        %mean: tensor<3xf32>, %var: tensor<3xf32>)
    -> (tensor<4x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y:3 = amp.batch_norm %x running(%mean, %var : tensor<3xf32>) scale(%w : tensor<3xf32>)
      bias(%b : tensor<3xf32>) {training, momentum = 0.1, epsilon = 1.0e-5} : tensor<4x3x5x5xf32>
  return %y#0, %y#1, %y#2 : tensor<4x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @train_images_weighted(%x: tensor<4x3x5x5xf32> {amp.param}, %w: tensor<3xf32> {amp.param},
                                 %b: tensor<3xf32> {amp.param}, %mean: tensor<3xf32>,
                                 %var: tensor<3xf32>, %g: tensor<4x3x5x5xf32>) -> tensor<f32> {
  %y:3 = amp.batch_norm %x running(%mean, %var : tensor<3xf32>) scale(%w : tensor<3xf32>)
      bias(%b : tensor<3xf32>) {training, momentum = 0.1, epsilon = 1.0e-5} : tensor<4x3x5x5xf32>
  %p = amp.mul %y#0, %g : tensor<4x3x5x5xf32>, tensor<4x3x5x5xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<4x3x5x5xf32> to tensor<f32>
  return %s : tensor<f32>
}

// Rows without the affine parameters.
func.func @train_rows(%x: tensor<6x4xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>)
    -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y:3 = amp.batch_norm %x running(%mean, %var : tensor<4xf32>)
      {training, momentum = 0.2, epsilon = 1.0e-3} : tensor<6x4xf32>
  return %y#0, %y#1, %y#2 : tensor<6x4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func @train_rows_weighted(%x: tensor<6x4xf32> {amp.param}, %mean: tensor<4xf32>,
                               %var: tensor<4xf32>, %g: tensor<6x4xf32>) -> tensor<f32> {
  %y:3 = amp.batch_norm %x running(%mean, %var : tensor<4xf32>)
      {training, momentum = 0.2, epsilon = 1.0e-3} : tensor<6x4xf32>
  %p = amp.mul %y#0, %g : tensor<6x4xf32>, tensor<6x4xf32>
  %s = amp.sum %p dims = [0, 1] : tensor<6x4xf32> to tensor<f32>
  return %s : tensor<f32>
}

// Evaluation: the running statistics normalise and stay as they were.
func.func @eval_images(%x: tensor<2x3x4x4xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>,
                       %mean: tensor<3xf32>, %var: tensor<3xf32>)
    -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y:3 = amp.batch_norm %x running(%mean, %var : tensor<3xf32>) scale(%w : tensor<3xf32>)
      bias(%b : tensor<3xf32>) : tensor<2x3x4x4xf32>
  return %y#0, %y#1, %y#2 : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @eval_images_weighted(%x: tensor<2x3x4x4xf32> {amp.param}, %w: tensor<3xf32> {amp.param},
                                %b: tensor<3xf32> {amp.param}, %mean: tensor<3xf32>,
                                %var: tensor<3xf32>, %g: tensor<2x3x4x4xf32>) -> tensor<f32> {
  %y:3 = amp.batch_norm %x running(%mean, %var : tensor<3xf32>) scale(%w : tensor<3xf32>)
      bias(%b : tensor<3xf32>) : tensor<2x3x4x4xf32>
  %p = amp.mul %y#0, %g : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x3x4x4xf32> to tensor<f32>
  return %s : tensor<f32>
}
