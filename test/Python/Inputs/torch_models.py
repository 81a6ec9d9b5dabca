"""Models for the importer's command line (test/Python/import-torch-cli.test)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


def make_with_batch():
    model = make_mlp()
    batch = (torch.randn(8, 16), torch.randint(0, 4, (8,)))
    return model, batch, lambda m, x, y: F.cross_entropy(m(x), y)


def make_unsupported():
    class Sorts(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 16)

        def forward(self, x):
            return torch.sort(self.fc(x), dim=1).values.mean()
    return Sorts()


def not_a_module():
    return 3
