"""Examples from HTCondor's Python bindings tutorials and documentation
(each file under tutorials/ cites its source), run against the tests'
pool with only their import lines changed: each must finish and print
what the tutorial shows."""

import os
import subprocess
import sys
import tempfile
import unittest

import kitepool

HERE = os.path.dirname(os.path.abspath(__file__))


def run(name):
    """Run tutorials/name in a fresh directory; return its output."""
    kitepool.pool()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(HERE), env.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory(prefix="kite-tutorial-") as d:
        proc = subprocess.run([sys.executable, os.path.join(HERE, "tutorials", name)], cwd=d, env=env,
                              capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError("%s failed (exit %d):\n%s\n%s" % (name, proc.returncode, proc.stdout, proc.stderr))
    return proc.stdout


class TestTutorials(unittest.TestCase):
    def test_classads_introduction(self):
        out = run("classads_introduction.py")
        for want in ["ClassAd arithemetic expression: 1 + 4 (of type <class 'kite.classad2.ExprTree'>)",
                     "Corresponding value: 456 (of type <class 'int'>)", "\nUndefined\n", "\nError\nError\n",
                     '[ a = 1; b = "foo"; c = b; d = a + 4 ]', "\n5\n", "b + 5\n<class 'kite.classad2.ExprTree'>\nError\n"]:
            self.assertIn(want, out)

    def test_submitting_and_managing_jobs(self):
        out = run("submitting_and_managing_jobs.py")
        self.assertRegex(out, r"Hello from job [a-z]{5}")
        # The first two held; the third idle, or running in a slot they freed.
        self.assertRegex(out, r"ProcID = 0 has JobStatus = 5\nProcID = 1 has JobStatus = 5\nProcID = 2 has JobStatus = [12]")
        self.assertRegex(out, r"ProcID = 1 has JobStatus = [12]\nProcID = 2")

    def test_advanced_job_submission(self):
        out = run("advanced_job_submission.py")
        self.assertIn("foo = 1\nbar = 2\nbaz = $(foo)\n", out)
        self.assertIn("qux = 3\n", out)
        self.assertIn("\n1\n", out)  # sub.expand("baz")

    def test_advanced_schedd_interactions(self):
        out = run("advanced_schedd_interactions.py")
        self.assertIn("\n10\n", out)  # ten held jobs

    def test_jobeventlog_wait(self):
        out = run("jobeventlog_wait.py")
        self.assertIn("Job terminated normally with return value 0.", out)


if __name__ == "__main__":
    unittest.main()
