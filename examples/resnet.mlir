// ResNet-8 for 32x32 RGB images, batch 16, 10 classes: written by
// examples/resnet.py (edit that, not this file). A 3x3 convolution of 16
// channels, three stages of 1 basic block (16, 32 and 64 channels, the last two
// starting with stride 2 and a 1x1 convolution on the shortcut), global
// average pooling and a linear layer. Each convolution is followed by batch
// norm, whose running statistics are the model's buffers; the arguments are
// named as PyTorch's state_dict names the same network's tensors.

module {
  func.func @resnet(
      %x: tensor<16x3x32x32xf32>,
      %labels: tensor<16xi64>,
      %conv1.weight: tensor<16x3x3x3xf32> {amp.param},
      %bn1.weight: tensor<16xf32> {amp.param},
      %bn1.bias: tensor<16xf32> {amp.param},
      %bn1.running_mean: tensor<16xf32> {amp.buffer},
      %bn1.running_var: tensor<16xf32> {amp.buffer = 1.0},
      %layer1.0.conv1.weight: tensor<16x16x3x3xf32> {amp.param},
      %layer1.0.bn1.weight: tensor<16xf32> {amp.param},
      %layer1.0.bn1.bias: tensor<16xf32> {amp.param},
      %layer1.0.bn1.running_mean: tensor<16xf32> {amp.buffer},
      %layer1.0.bn1.running_var: tensor<16xf32> {amp.buffer = 1.0},
      %layer1.0.conv2.weight: tensor<16x16x3x3xf32> {amp.param},
      %layer1.0.bn2.weight: tensor<16xf32> {amp.param},
      %layer1.0.bn2.bias: tensor<16xf32> {amp.param},
      %layer1.0.bn2.running_mean: tensor<16xf32> {amp.buffer},
      %layer1.0.bn2.running_var: tensor<16xf32> {amp.buffer = 1.0},
      %layer2.0.conv1.weight: tensor<32x16x3x3xf32> {amp.param},
      %layer2.0.bn1.weight: tensor<32xf32> {amp.param},
      %layer2.0.bn1.bias: tensor<32xf32> {amp.param},
      %layer2.0.bn1.running_mean: tensor<32xf32> {amp.buffer},
      %layer2.0.bn1.running_var: tensor<32xf32> {amp.buffer = 1.0},
      %layer2.0.conv2.weight: tensor<32x32x3x3xf32> {amp.param},
      %layer2.0.bn2.weight: tensor<32xf32> {amp.param},
      %layer2.0.bn2.bias: tensor<32xf32> {amp.param},
      %layer2.0.bn2.running_mean: tensor<32xf32> {amp.buffer},
      %layer2.0.bn2.running_var: tensor<32xf32> {amp.buffer = 1.0},
      %layer2.0.downsample.0.weight: tensor<32x16x1x1xf32> {amp.param},
      %layer2.0.downsample.1.weight: tensor<32xf32> {amp.param},
      %layer2.0.downsample.1.bias: tensor<32xf32> {amp.param},
      %layer2.0.downsample.1.running_mean: tensor<32xf32> {amp.buffer},
      %layer2.0.downsample.1.running_var: tensor<32xf32> {amp.buffer = 1.0},
      %layer3.0.conv1.weight: tensor<64x32x3x3xf32> {amp.param},
      %layer3.0.bn1.weight: tensor<64xf32> {amp.param},
      %layer3.0.bn1.bias: tensor<64xf32> {amp.param},
      %layer3.0.bn1.running_mean: tensor<64xf32> {amp.buffer},
      %layer3.0.bn1.running_var: tensor<64xf32> {amp.buffer = 1.0},
      %layer3.0.conv2.weight: tensor<64x64x3x3xf32> {amp.param},
      %layer3.0.bn2.weight: tensor<64xf32> {amp.param},
      %layer3.0.bn2.bias: tensor<64xf32> {amp.param},
      %layer3.0.bn2.running_mean: tensor<64xf32> {amp.buffer},
      %layer3.0.bn2.running_var: tensor<64xf32> {amp.buffer = 1.0},
      %layer3.0.downsample.0.weight: tensor<64x32x1x1xf32> {amp.param},
      %layer3.0.downsample.1.weight: tensor<64xf32> {amp.param},
      %layer3.0.downsample.1.bias: tensor<64xf32> {amp.param},
      %layer3.0.downsample.1.running_mean: tensor<64xf32> {amp.buffer},
      %layer3.0.downsample.1.running_var: tensor<64xf32> {amp.buffer = 1.0},
      %fc.weight: tensor<10x64xf32> {amp.param},
      %fc.bias: tensor<10xf32> {amp.param})
      -> tensor<f32> {
    // The stem: a 3x3 convolution to 16 channels.
    %c1 = amp.conv2d %x, %conv1.weight {padding = array<i64: 1, 1>}
        : tensor<16x3x32x32xf32>, tensor<16x3x3x3xf32> to tensor<16x16x32x32xf32>
    %n2:3 = amp.batch_norm %c1 running(%bn1.running_mean, %bn1.running_var : tensor<16xf32>)
        scale(%bn1.weight : tensor<16xf32>) bias(%bn1.bias : tensor<16xf32>) {training} : tensor<16x16x32x32xf32>
    %r3 = amp.relu %n2#0 : tensor<16x16x32x32xf32>
    // layer1.0: a basic block to 16 channels
    %c4 = amp.conv2d %r3, %layer1.0.conv1.weight {padding = array<i64: 1, 1>}
        : tensor<16x16x32x32xf32>, tensor<16x16x3x3xf32> to tensor<16x16x32x32xf32>
    %n5:3 = amp.batch_norm %c4 running(%layer1.0.bn1.running_mean, %layer1.0.bn1.running_var : tensor<16xf32>)
        scale(%layer1.0.bn1.weight : tensor<16xf32>) bias(%layer1.0.bn1.bias : tensor<16xf32>) {training} : tensor<16x16x32x32xf32>
    %r6 = amp.relu %n5#0 : tensor<16x16x32x32xf32>
    %c7 = amp.conv2d %r6, %layer1.0.conv2.weight {padding = array<i64: 1, 1>}
        : tensor<16x16x32x32xf32>, tensor<16x16x3x3xf32> to tensor<16x16x32x32xf32>
    %n8:3 = amp.batch_norm %c7 running(%layer1.0.bn2.running_mean, %layer1.0.bn2.running_var : tensor<16xf32>)
        scale(%layer1.0.bn2.weight : tensor<16xf32>) bias(%layer1.0.bn2.bias : tensor<16xf32>) {training} : tensor<16x16x32x32xf32>
    %s9 = amp.add %n8#0, %r3 : tensor<16x16x32x32xf32>, tensor<16x16x32x32xf32>
    %r10 = amp.relu %s9 : tensor<16x16x32x32xf32>
    // layer2.0: a basic block to 32 channels, stride 2
    %c11 = amp.conv2d %r10, %layer2.0.conv1.weight {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
        : tensor<16x16x32x32xf32>, tensor<32x16x3x3xf32> to tensor<16x32x16x16xf32>
    %n12:3 = amp.batch_norm %c11 running(%layer2.0.bn1.running_mean, %layer2.0.bn1.running_var : tensor<32xf32>)
        scale(%layer2.0.bn1.weight : tensor<32xf32>) bias(%layer2.0.bn1.bias : tensor<32xf32>) {training} : tensor<16x32x16x16xf32>
    %r13 = amp.relu %n12#0 : tensor<16x32x16x16xf32>
    %c14 = amp.conv2d %r13, %layer2.0.conv2.weight {padding = array<i64: 1, 1>}
        : tensor<16x32x16x16xf32>, tensor<32x32x3x3xf32> to tensor<16x32x16x16xf32>
    %n15:3 = amp.batch_norm %c14 running(%layer2.0.bn2.running_mean, %layer2.0.bn2.running_var : tensor<32xf32>)
        scale(%layer2.0.bn2.weight : tensor<32xf32>) bias(%layer2.0.bn2.bias : tensor<32xf32>) {training} : tensor<16x32x16x16xf32>
    %c16 = amp.conv2d %r10, %layer2.0.downsample.0.weight {strides = array<i64: 2, 2>}
        : tensor<16x16x32x32xf32>, tensor<32x16x1x1xf32> to tensor<16x32x16x16xf32>
    %n17:3 = amp.batch_norm %c16 running(%layer2.0.downsample.1.running_mean, %layer2.0.downsample.1.running_var : tensor<32xf32>)
        scale(%layer2.0.downsample.1.weight : tensor<32xf32>) bias(%layer2.0.downsample.1.bias : tensor<32xf32>) {training} : tensor<16x32x16x16xf32>
    %s18 = amp.add %n15#0, %n17#0 : tensor<16x32x16x16xf32>, tensor<16x32x16x16xf32>
    %r19 = amp.relu %s18 : tensor<16x32x16x16xf32>
    // layer3.0: a basic block to 64 channels, stride 2
    %c20 = amp.conv2d %r19, %layer3.0.conv1.weight {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
        : tensor<16x32x16x16xf32>, tensor<64x32x3x3xf32> to tensor<16x64x8x8xf32>
    %n21:3 = amp.batch_norm %c20 running(%layer3.0.bn1.running_mean, %layer3.0.bn1.running_var : tensor<64xf32>)
        scale(%layer3.0.bn1.weight : tensor<64xf32>) bias(%layer3.0.bn1.bias : tensor<64xf32>) {training} : tensor<16x64x8x8xf32>
    %r22 = amp.relu %n21#0 : tensor<16x64x8x8xf32>
    %c23 = amp.conv2d %r22, %layer3.0.conv2.weight {padding = array<i64: 1, 1>}
        : tensor<16x64x8x8xf32>, tensor<64x64x3x3xf32> to tensor<16x64x8x8xf32>
    %n24:3 = amp.batch_norm %c23 running(%layer3.0.bn2.running_mean, %layer3.0.bn2.running_var : tensor<64xf32>)
        scale(%layer3.0.bn2.weight : tensor<64xf32>) bias(%layer3.0.bn2.bias : tensor<64xf32>) {training} : tensor<16x64x8x8xf32>
    %c25 = amp.conv2d %r19, %layer3.0.downsample.0.weight {strides = array<i64: 2, 2>}
        : tensor<16x32x16x16xf32>, tensor<64x32x1x1xf32> to tensor<16x64x8x8xf32>
    %n26:3 = amp.batch_norm %c25 running(%layer3.0.downsample.1.running_mean, %layer3.0.downsample.1.running_var : tensor<64xf32>)
        scale(%layer3.0.downsample.1.weight : tensor<64xf32>) bias(%layer3.0.downsample.1.bias : tensor<64xf32>) {training} : tensor<16x64x8x8xf32>
    %s27 = amp.add %n24#0, %n26#0 : tensor<16x64x8x8xf32>, tensor<16x64x8x8xf32>
    %r28 = amp.relu %s27 : tensor<16x64x8x8xf32>
    // Global average pooling, the linear classifier and the loss.
    %p29 = amp.mean %r28 dims = [2, 3] : tensor<16x64x8x8xf32> to tensor<16x64xf32>
    %logits30 = amp.matmul %p29, %fc.weight bias %fc.bias {transpose_rhs} : tensor<16x64xf32>, tensor<10x64xf32>, tensor<10xf32> to tensor<16x10xf32>
    %loss = amp.cross_entropy %logits30, %labels : tensor<16x10xf32>, tensor<16xi64> to tensor<f32>
    return %loss : tensor<f32>
  }
}
