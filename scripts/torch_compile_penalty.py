#!/usr/bin/env python3
"""What torch.compile does with PyTorch's gradient-penalty recipe.

Run with PyTorch (CPU is enough) in the Python that runs it:

  python scripts/torch_compile_penalty.py

The step is the L2 gradient-norm penalty of test/Golden/Inputs/
penalty_l2.mlir (a two-layer tanh classifier, the inner gradient with
create_graph=True, its norm added to the loss, one backward). It tries the
ways a user would compile it and prints, for each, whether it compiled, how
many graphs Dynamo captured, and the first line of the error if it failed.
docs/training.md ("Gradient penalty") quotes what it printed.
"""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
W1 = torch.randn(8, 16, requires_grad=True)
B1 = torch.zeros(16, requires_grad=True)
W2 = torch.randn(16, 4, requires_grad=True)
B2 = torch.zeros(4, requires_grad=True)
PARAMS = [W1, B1, W2, B2]
X = torch.randn(16, 8)
LABELS = torch.randint(0, 4, (16,))


def loss_of_batch():
    return F.cross_entropy(torch.tanh(X @ W1 + B1) @ W2 + B2, LABELS)


def penalty_step():
    loss = loss_of_batch()
    grads = torch.autograd.grad(loss, PARAMS, create_graph=True)
    grad_norm = 0
    for grad in grads:
        grad_norm += grad.pow(2).sum()
    total = loss + grad_norm.sqrt()
    total.backward()
    return total


def attempt(label, run):
    graphs = []

    def counting_backend(graph_module, example_inputs):
        graphs.append(graph_module)
        return graph_module.forward

    torch._dynamo.reset()
    try:
        run(counting_backend)
        ops = [sum(node.op in ("call_function", "call_method")
                   for node in graph.graph.nodes) for graph in graphs]
        print(f"{label}: ran, {len(graphs)} graph(s) captured, of "
              f"{ops} operations")
    except Exception as error:  # the failure is what is measured
        first = str(error).strip().splitlines()[0]
        print(f"{label}: {type(error).__name__}: {first}")


def main():
    print(f"PyTorch {torch.__version__}")
    attempt("the whole step, fullgraph=True",
            lambda backend: torch.compile(penalty_step, backend=backend,
                                          fullgraph=True)())
    attempt("the whole step, default (graphs counted, run as traced)",
            lambda backend: torch.compile(penalty_step, backend=backend)())
    attempt("the whole step, default backend (Inductor)",
            lambda backend: torch.compile(penalty_step)())

    def traced(backend):
        torch._dynamo.config.trace_autograd_ops = True
        try:
            torch.compile(penalty_step, backend=backend, fullgraph=True)()
        finally:
            torch._dynamo.config.trace_autograd_ops = False

    attempt("the whole step, trace_autograd_ops=True, fullgraph=True",
            traced)

    def forward_compiled(backend):
        # The default backend (AOTAutograd and Inductor), as a user would.
        del backend
        loss = torch.compile(loss_of_batch)()
        grads = torch.autograd.grad(loss, PARAMS, create_graph=True)
        (loss + sum(g.pow(2).sum() for g in grads).sqrt()).backward()

    attempt("the forward compiled, the double backward through it",
            forward_compiled)


if __name__ == "__main__":
    main()
