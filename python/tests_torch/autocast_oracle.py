"""What PyTorch's CUDA autocast (f16) would run each ATen operation of an
exported model in, from its op lists (aten/src/ATen/autocast_mode.h):
lower-precision ops run in f16, fp32 ops in f32, batch norm in its
activation's type, and every other op in the widest floating type of its
inputs, as PyTorch's type promotion gives (views keep their input's). Written from the lists, independently of
amp-mlir's autocast, to compare its decisions with."""

import operator

LOWER = {"conv1d", "conv2d", "conv3d", "convolution", "conv_transpose1d",
         "conv_transpose2d", "conv_transpose3d", "prelu", "addmm", "addmv",
         "addr", "matmul", "einsum", "mm", "mv", "linear", "addbmm",
         "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot",
         "scaled_dot_product_attention"}
FP32 = {"acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10",
        "log2", "log1p", "reciprocal", "rsqrt", "sinh", "tan", "pow",
        "softplus", "layer_norm", "group_norm", "frobenius_norm",
        "nuclear_norm", "cosine_similarity", "nll_loss", "nll_loss2d",
        "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
        "binary_cross_entropy_with_logits", "cross_entropy_loss",
        "margin_ranking_loss", "hinge_embedding_loss",
        "triplet_margin_loss", "multilabel_margin_loss", "soft_margin_loss",
        "dist", "pdist", "cdist", "renorm", "logsumexp",
        # fp32 with the output's dtype set:
        "prod", "softmax", "log_softmax", "_softmax", "_log_softmax",
        "cumprod", "cumsum", "linalg_vector_norm", "linalg_matrix_norm",
        "sum", "norm"}
# Unlisted ops that take their type from their first input alone, not by
# promotion over every input: batch norm runs in its activation's type
# with f32 weights and statistics (cuDNN's mixed form).
FIRST_INPUT = {"batch_norm", "native_batch_norm",
               "_native_batch_norm_legit", "_native_batch_norm_legit_functional"}
_WIDTH = {"f16": 1, "f32": 2}


def _kind(dtype):
    name = str(dtype)
    return ("f16" if name == "torch.float16" else
            "f32" if name == "torch.float32" else None)


def decisions(program):
    """{fx node name: "f16" or "f32"} for each floating-point op."""
    types = {}
    for node in program.graph.nodes:
        if node.op == "placeholder":
            types[node.name] = _kind(getattr(node.meta.get("val"), "dtype",
                                             None))
            continue
        if node.op != "call_function":
            continue
        if node.target is operator.getitem:
            types[node.name] = types.get(node.args[0].name)
            continue
        name = str(node.target).split(".")[1]
        inputs = [types.get(n.name) for n in node.all_input_nodes]
        floats = [t for t in inputs if t]
        if name in LOWER:
            types[node.name] = "f16"
        elif name in FP32:
            types[node.name] = "f32"
        elif name in FIRST_INPUT and inputs and inputs[0]:
            types[node.name] = inputs[0]
        elif floats:
            types[node.name] = max(floats, key=_WIDTH.get)
        else:
            types[node.name] = _kind(getattr(node.meta.get("val"), "dtype",
                                             None))
    return types


def _place(loc):
    """(module path, file, line) of a location as the autocast report or
    the importer writes it: loc("path"("file":line:0)), loc("file":line:0),
    file:line:0 or loc("name")."""
    import re
    match = re.search(r'"([^"]*)"\("([^"]*)":(\d+):\d+\)', loc)
    if match:
        return match.group(1), match.group(2), int(match.group(3))
    match = re.search(r'"?([^"(]*\.py)"?:(\d+):\d+', loc)
    if match:
        return "", match.group(1), int(match.group(2))
    match = re.fullmatch(r'loc\("([^"]*)"\)', loc)
    return (match.group(1) if match else loc), "", 0


def compare(program, importer, report_ops):
    """[(place, PyTorch's types, ours)] for every place (module path and
    source line) where the two differ: the set of f16/f32 types of the
    floating-point ops made there."""
    types = decisions(program)
    theirs, ours = {}, {}
    for node in program.graph.nodes:
        if node.op == "call_function" and types.get(node.name):
            theirs.setdefault(_place(importer.location(node)),
                              set()).add(types[node.name])
    for op in report_ops:
        if op["type"] not in ("f32", "f16", "bf16"):
            continue
        # An op computing in f32 with f16 inputs and outputs (batch norm,
        # as cuDNN runs it) is an f16 op to its neighbours, as in PyTorch.
        precision = ("f16" if op["precision"] in ("low", "f32 with low I/O")
                     else op["precision"])
        ours.setdefault(_place(op["loc"]), set()).add(precision)
    return [(place, sorted(theirs.get(place, ())), sorted(ours[place]))
            for place in sorted(ours) if ours[place] != theirs.get(place)]
