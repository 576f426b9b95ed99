"""Finding and running the kite binary."""

import os
import shutil


class KiteNotFound(RuntimeError):
    """The kite binary is neither $KITE_BIN nor on $PATH."""


def kite_binary():
    """Return the path of the kite binary: $KITE_BIN, else kite on $PATH."""
    path = os.environ.get("KITE_BIN")
    if path:
        return path
    found = shutil.which("kite")
    if found is None:
        raise KiteNotFound("the kite binary is not on $PATH (set KITE_BIN to its path)")
    return found
