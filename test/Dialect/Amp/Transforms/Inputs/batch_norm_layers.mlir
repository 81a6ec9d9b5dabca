// A batch norm and its gradient, for the backend pipeline's
// keep-batch-norms option (amp-decompose-keep-batch-norms.mlir).
func.func @layers(%x: tensor<2x3x4x4xf16>, %dy: tensor<2x3x4x4xf16>,
                  %rm: tensor<3xf32>, %rv: tensor<3xf32>, %g: tensor<3xf32>)
    -> (tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4x4xf16>, tensor<3xf32>) {
  %y:3 = amp.batch_norm %x running(%rm, %rv : tensor<3xf32>) scale(%g : tensor<3xf32>)
      {training} : tensor<2x3x4x4xf16>
  %d:3 = amp.batch_norm_grad %x, %dy running(%rm, %rv : tensor<3xf32>) scale(%g : tensor<3xf32>)
      {training} : tensor<2x3x4x4xf16> -> tensor<3xf32>, tensor<3xf32>
  return %y#0, %y#1, %y#2, %d#0, %d#1 : tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4x4xf16>, tensor<3xf32>
}
