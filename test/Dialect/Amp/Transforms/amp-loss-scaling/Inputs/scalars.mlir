// Prints three 0-d tensors (overflow.test reads scaler state with it).
func.func @show(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  return %a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>
}
