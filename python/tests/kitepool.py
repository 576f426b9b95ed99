"""A personal Kite pool for the tests: `kite up` in a temporary
directory, started once per test process and stopped at its exit."""

import atexit
import os
import shutil
import subprocess
import tempfile

from kite._binary import kite_binary

_pool = None


class Pool:
    def __init__(self, slots=2, env=None):
        self.dir = tempfile.mkdtemp(prefix="kite-pytest-")
        self.kite = kite_binary()
        up_env = dict(os.environ, **(env or {}))
        up_env.pop("KITE_CONFIG", None)
        up_env.pop("KITE_TOKEN", None)
        proc = subprocess.run(
            [self.kite, "up", "--dir", self.dir, "--detach", "--slots", str(slots), "--timeout", "120s"],
            capture_output=True, text=True, env=up_env)
        if proc.returncode != 0:
            raise RuntimeError("kite up: %s%s" % (proc.stdout, proc.stderr))
        self.config = os.path.join(self.dir, "kite.toml")

    def stop(self):
        subprocess.run([self.kite, "down", "--dir", self.dir], capture_output=True, text=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def pool():
    """The tests' pool, started on first use; the process's environment
    points the package (and the kite tools) at it."""
    global _pool
    if _pool is None:
        _pool = Pool(env={
            "KITE_SCHEDD_MAX_JOBS_PER_SUBMISSION": "100000",
            "KITE_SCHEDD_MAX_JOBS_PER_OWNER": "1000000",
        })
        os.environ["KITE_CONFIG"] = _pool.config
        os.environ.pop("KITE_TOKEN", None)
        atexit.register(_pool.stop)
    return _pool
