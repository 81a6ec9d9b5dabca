#!/usr/bin/env python3
"""Writes examples/resnet.mlir: a small ResNet for 32x32 RGB images in the
amp dialect, spelled out op by op so that it can be read.

  python3 examples/resnet.py [--blocks 1] [--batch 16] [-o examples/resnet.mlir]

The network is He et al.'s CIFAR ResNet (6n + 2 layers; n = --blocks, so
ResNet-8 by default): a 3x3 convolution of 16 channels, three stages of n
basic blocks of 16, 32 and 64 channels (the second and third start with
stride 2 and a 1x1 convolution on the shortcut), global average pooling and
a linear layer to 10 classes. Every convolution is followed by batch norm
(in training mode; the compiled evaluation runs it in evaluation mode) and
has no bias, as torchvision's. A basic block is

    y = relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x))

The arguments are named as the same network's PyTorch state_dict names them
(`layer2.0.conv1.weight`, `layer2.0.bn1.running_mean`): parameters marked
amp.param, running statistics marked amp.buffer (variances starting at 1).
"""
import argparse
import os


class Writer:
    def __init__(self, batch):
        self.batch = batch
        self.args = []      # (name, type, attributes)
        self.lines = []
        self.count = 0

    def arg(self, name, shape, attrs=""):
        self.args.append((name, tensor(shape, "f32"), attrs))
        return "%" + name

    def value(self, hint):
        self.count += 1
        return f"%{hint}{self.count}"

    def emit(self, line=""):
        self.lines.append(line)

    def conv(self, x, shape, cout, kernel, stride, name):
        n, cin, h, w = shape
        pad = kernel // 2
        oh, ow = (h + 2 * pad - kernel) // stride + 1, \
            (w + 2 * pad - kernel) // stride + 1
        weight = self.arg(f"{name}.weight", [cout, cin, kernel, kernel],
                          " {amp.param}")
        attrs = []
        if stride != 1:
            attrs.append(f"strides = array<i64: {stride}, {stride}>")
        if pad:
            attrs.append(f"padding = array<i64: {pad}, {pad}>")
        out = [n, cout, oh, ow]
        y = self.value("c")
        attributes = f" {{{', '.join(attrs)}}}" if attrs else ""
        self.emit(f"  {y} = amp.conv2d {x}, {weight}{attributes}")
        self.emit(f"      : {tensor(shape)}, "
                  f"{tensor([cout, cin, kernel, kernel])} to {tensor(out)}")
        return y, out

    def bn(self, x, shape, name):
        c = shape[1]
        scale = self.arg(f"{name}.weight", [c], " {amp.param}")
        bias = self.arg(f"{name}.bias", [c], " {amp.param}")
        mean = self.arg(f"{name}.running_mean", [c], " {amp.buffer}")
        var = self.arg(f"{name}.running_var", [c], " {amp.buffer = 1.0}")
        y = self.value("n")
        self.emit(f"  {y}:3 = amp.batch_norm {x} running({mean}, {var} : "
                  f"{tensor([c])})")
        self.emit(f"      scale({scale} : {tensor([c])}) bias({bias} : "
                  f"{tensor([c])}) {{training}} : {tensor(shape)}")
        return f"{y}#0"

    def relu(self, x, shape):
        y = self.value("r")
        self.emit(f"  {y} = amp.relu {x} : {tensor(shape)}")
        return y

    def add(self, a, b, shape):
        y = self.value("s")
        self.emit(f"  {y} = amp.add {a}, {b} : {tensor(shape)}, "
                  f"{tensor(shape)}")
        return y

    def block(self, x, shape, cout, stride, name):
        self.emit(f"  // {name}: a basic block to {cout} channels"
                  + (f", stride {stride}" if stride != 1 else ""))
        h, out = self.conv(x, shape, cout, 3, stride, f"{name}.conv1")
        h = self.relu(self.bn(h, out, f"{name}.bn1"), out)
        h, out = self.conv(h, out, cout, 3, 1, f"{name}.conv2")
        h = self.bn(h, out, f"{name}.bn2")
        shortcut = x
        if stride != 1 or shape[1] != cout:
            shortcut, _ = self.conv(x, shape, cout, 1, stride,
                                    f"{name}.downsample.0")
            shortcut = self.bn(shortcut, out, f"{name}.downsample.1")
        return self.relu(self.add(h, shortcut, out), out), out


def tensor(shape, element="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + \
        ("x" if shape else "") + element + ">"


def resnet(blocks, batch, classes=10):
    w = Writer(batch)
    x, shape = "%x", [batch, 3, 32, 32]
    w.emit("  // The stem: a 3x3 convolution to 16 channels.")
    h, shape = w.conv(x, shape, 16, 3, 1, "conv1")
    h = w.relu(w.bn(h, shape, "bn1"), shape)
    for stage, channels in enumerate((16, 32, 64)):
        for b in range(blocks):
            stride = 2 if stage > 0 and b == 0 else 1
            h, shape = w.block(h, shape, channels, stride,
                               f"layer{stage + 1}.{b}")
    w.emit("  // Global average pooling, the linear classifier and the loss.")
    pooled = w.value("p")
    w.emit(f"  {pooled} = amp.mean {h} dims = [2, 3] : {tensor(shape)} to "
           f"{tensor([batch, shape[1]])}")
    # torch.nn.Linear's layout: [out, in], applied transposed.
    fc_w = w.arg("fc.weight", [classes, shape[1]], " {amp.param}")
    fc_b = w.arg("fc.bias", [classes], " {amp.param}")
    logits = w.value("logits")
    w.emit(f"  {logits} = amp.matmul {pooled}, {fc_w} bias {fc_b} "
           f"{{transpose_rhs}} : {tensor([batch, shape[1]])}, "
           f"{tensor([classes, shape[1]])}, {tensor([classes])} to "
           f"{tensor([batch, classes])}")
    w.emit(f"  %loss = amp.cross_entropy {logits}, %labels : "
           f"{tensor([batch, classes])}, {tensor([batch], 'i64')} to "
           f"tensor<f32>")
    w.emit("  return %loss : tensor<f32>")

    layers = 6 * blocks + 2
    header = [
        f"// ResNet-{layers} for 32x32 RGB images, batch {batch}, {classes} "
        "classes: written by",
        "// examples/resnet.py (edit that, not this file). A 3x3 convolution "
        "of 16",
        f"// channels, three stages of {blocks} basic block"
        f"{'s' if blocks > 1 else ''} (16, 32 and 64 channels, the last two",
        "// starting with stride 2 and a 1x1 convolution on the shortcut), "
        "global",
        "// average pooling and a linear layer. Each convolution is "
        "followed by batch",
        "// norm, whose running statistics are the model's buffers; the "
        "arguments are",
        "// named as PyTorch's state_dict names the same network's "
        "tensors.",
        "",
    ]
    args = [("x", tensor([batch, 3, 32, 32]), ""),
            ("labels", tensor([batch], "i64"), "")] + w.args
    signature = ",\n".join(f"      %{name}: {type_}{attrs}"
                           for name, type_, attrs in args)
    body = ["  " + line if line else line for line in w.lines]
    return "\n".join(header + ["module {",
                               f"  func.func @resnet(\n{signature})",
                               "      -> tensor<f32> {"] + body +
                     ["  }", "}", ""])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=1)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("-o", "--output", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "resnet.mlir"))
    args = parser.parse_args()
    text = resnet(args.blocks, args.batch)
    if args.output == "-":
        print(text, end="")
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
