"""ClassAd evaluation from Python agrees with HTCondor's reference
answers (classad/testdata/conformance, made by HTCondor's own library):
each expression and ad goes through the Python objects (parsed, turned
into Python values, written back) before it is evaluated, and each value
is printed by Python as HTCondor prints it."""

import os
import unittest

from kite import classad2 as classad
from kite.classad2 import _unparse

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "classad", "testdata", "conformance")


def _split(rest):
    """The parts of a line separated by ||| outside quotes."""
    parts, start, quote, i = [], 0, None, 0
    while i < len(rest):
        c = rest[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif rest.startswith("|||", i):
            parts.append(rest[start:i].strip())
            start = i + 3
            i += 2
        i += 1
    parts.append(rest[start:].strip())
    return parts


def _value(expr, my=None, target=None):
    try:
        e = classad.ExprTree(expr)
        my_ad = classad.ClassAd(my) if my is not None else None
        target_ad = classad.ClassAd(target) if target is not None else None
    except classad.ClassAdException:
        return "PARSE_ERROR"
    try:
        return _unparse(e.eval(my_ad, target_ad), exact=False)
    except classad.ClassAdException:
        return "EVAL_FAIL"


def answer(line):
    cmd, _, rest = line.lstrip().partition(" ")
    if cmd == "EXPR":
        return _value(rest)
    if cmd == "EVALIN":
        p = _split(rest)
        return _value(p[1], p[0]) if len(p) == 2 else "BAD_COMMAND"
    if cmd == "EVALMT":
        p = _split(rest)
        return _value(p[2], p[0], p[1]) if len(p) == 3 else "BAD_COMMAND"
    if cmd == "MATCH":
        p = _split(rest)
        if len(p) != 2:
            return "BAD_COMMAND"
        try:
            left, right = classad.ClassAd(p[0]), classad.ClassAd(p[1])
        except classad.ClassAdException:
            return "PARSE_ERROR"
        try:
            return "true" if left.symmetricMatch(right) else "false"
        except classad.ClassAdException:
            return "EVAL_FAIL"
    if cmd == "UNPARSE":
        try:
            return str(classad.ExprTree(rest))
        except classad.ClassAdException:
            return "PARSE_ERROR"
    return "BAD_COMMAND"


class TestConformance(unittest.TestCase):
    def test_public_corpus(self):
        with open(os.path.join(CORPUS, "public.in"), encoding="utf-8") as f:
            ins = f.read().split("\n")
        with open(os.path.join(CORPUS, "public.out"), encoding="utf-8") as f:
            outs = f.read().split("\n")
        self.assertEqual(len(ins), len(outs))
        failures = []
        for n, (line, want) in enumerate(zip(ins, outs), 1):
            if not line.strip():
                continue
            if line.startswith("MATCH") and want not in ("PARSE_ERROR", "EVAL_FAIL", "BAD_COMMAND"):
                want = want.split("\t")[0]  # Python's API gives the match only
            got = answer(line)
            if got != want:
                failures.append("public.in:%d: %s\n  got  %s\n  want %s" % (n, line[:200], got, want))
        self.assertEqual(failures, [], "\n".join(failures[:30]) + "\n%d lines differ" % len(failures))


if __name__ == "__main__":
    unittest.main()
