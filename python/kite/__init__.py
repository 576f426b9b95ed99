"""Kite's Python API.

Two modules with the shape of HTCondor's version 2 Python bindings, so
that a script changes only its import lines:

    import kite.htcondor2 as htcondor    # was: import htcondor2 as htcondor
    from kite import classad2 as classad # was: import classad2 as classad

The package is pure Python. It speaks Kite's HTTP/JSON protocol to the
daemons, and runs the ``kite`` binary for what must give HTCondor's
answers (ClassAd parsing and evaluation, ``kite classad json``) and for
the submit language (``kite submit``). See python/README.md.
"""

__version__ = "0.1.0"
