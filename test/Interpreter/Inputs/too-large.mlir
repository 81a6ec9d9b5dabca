// Functions whose tensors the interpreter refuses to allocate (errors.test).

func.func @wraps(%big: tensor<4611686018427387903x4xf32>) {
  return
}

func.func @huge(%x: tensor<2xf32>) -> tensor<65536x65536x2xf32> {
  %b = amp.broadcast_to %x : tensor<2xf32> to tensor<65536x65536x2xf32>
  return %b : tensor<65536x65536x2xf32>
}
