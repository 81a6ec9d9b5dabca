// Names given in the source (tensor-names.test): an amp.name wins over the
// SSA name, a name may hold any character but NUL, and an argument without
// a name to read (its location is no file position) is numbered after the
// names the others took.
func.func @named(%w: tensor<4x3xf32> {amp.param, amp.name = "layer \"a\".weight"},
                 %b: tensor<3xf32> {amp.param} loc(unknown),
                 %x: tensor<2x4xf32> {amp.name = "param0"},
                 %y: tensor<2xi64>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %z = amp.add %h, %b : tensor<2x3xf32>, tensor<3xf32>
  %l = amp.cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %l : tensor<f32>
}
