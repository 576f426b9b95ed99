"""Benchmark: Schedd.query over 100 000 jobs with a projection.

    KITE_BIN=path/to/kite PYTHONPATH=python:python/tests python3 python/bench/bench_query.py

starts a personal pool (as the tests do), queues 100 000 held jobs in one
submit, then times schedd.query(projection=["ClusterId", "ProcId"]) (the
target is under a second) and, for comparison, the whole ads."""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import kitepool  # noqa: E402
import kite.htcondor2 as htcondor  # noqa: E402

N = 100_000


def best_of(n, f):
    best = None
    for _ in range(n):
        t = time.perf_counter()
        out = f()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, out


def main():
    kitepool.pool()
    os.chdir(tempfile.mkdtemp(prefix="kite-bench-"))
    schedd = htcondor.Schedd()
    sub = htcondor.Submit({"executable": "/bin/sleep", "arguments": "60 $(Process)", "hold": "true", "+Project": '"bench"'})
    t = time.perf_counter()
    r = schedd.submit(sub, count=N)
    print("submit of %d jobs: %.2f s" % (r.num_procs(), time.perf_counter() - t))
    dt, ads = best_of(5, lambda: schedd.query(projection=["ClusterId", "ProcId"]))
    assert len(ads) == N and ads[-1]["ProcId"] == N - 1, len(ads)
    print("Schedd.query, projection ClusterId ProcId, %d ads: %.3f s (best of 5)" % (len(ads), dt))
    dt, ads = best_of(3, lambda: schedd.query())
    print("Schedd.query, whole ads, %d ads: %.3f s (best of 3)" % (len(ads), dt))


if __name__ == "__main__":
    main()
