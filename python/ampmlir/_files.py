"""Files the package writes."""

import os
import tempfile
from pathlib import Path


def write_atomically(path, data):
    """Writes ``data`` (bytes) to ``path`` through a temporary file beside
    it: a reader sees the old file or the new one, never a part."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent,
                                         prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
