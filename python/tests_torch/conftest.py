"""The importer's tests run with PyTorch (test/Python/torch-import.test)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
