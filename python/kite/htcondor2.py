"""Kite's pool from Python, with the shape of HTCondor's ``htcondor2``.

``Schedd`` (submit, query, act, edit, history), ``Collector`` (query,
locate), ``Submit``, ``JobEventLog`` and the enums ``JobAction``,
``DaemonType``, ``AdType``, ``JobEventType``, ``QueryOpt`` and
``JobStatus``. A script written for htcondor2 changes its import line:

    import kite.htcondor2 as htcondor

The daemons are reached over Kite's HTTP/JSON protocol (docs/protocol.md)
with the token the kite tools present; submit descriptions are expanded
by ``kite submit`` itself, so that the submit language is Kite's (and
HTCondor's) exactly. python/README.md lists what differs from htcondor2.
"""

import enum
import http.client
import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Mapping, MutableMapping

from . import classad2
from ._binary import kite_binary
from ._config import pool_config
from ._userlog import JobEvent, JobEventLog, JobEventType

__all__ = [
    "Schedd", "Collector", "Submit", "SubmitResult", "JobEventLog", "JobEvent",
    "JobAction", "DaemonType", "DaemonTypes", "AdType", "AdTypes", "JobEventType",
    "QueryOpt", "QueryOpts", "JobStatus", "HTCondorException", "version",
]


class HTCondorException(Exception):
    """A daemon refused a request, or could not be reached."""


def version():
    """This package's version, as htcondor2.version() names the bindings'."""
    from . import __version__
    return "Kite Python API " + __version__


class JobAction(enum.IntEnum):
    Hold = 1
    Release = 2
    Remove = 3
    RemoveX = 4
    Vacate = 5
    VacateFast = 6
    Suspend = 8
    Continue = 9


class DaemonType(enum.IntEnum):
    none = 0
    Any = 1
    Master = 2
    Schedd = 3
    Startd = 4
    Collector = 5
    Negotiator = 6
    Credd = 13
    Placementd = 15
    HAD = 17
    Generic = 18


DaemonTypes = DaemonType


class AdType(enum.IntEnum):
    Startd = 0
    Schedd = 1
    Master = 2
    StartdPrivate = 5
    Submitter = 6
    Collector = 7
    License = 8
    Any = 10
    Negotiator = 13
    HAD = 14
    Generic = 15
    Credd = 16
    Grid = 19
    Placementd = 20
    Defrag = 22
    Accounting = 23
    Slot = 24
    StartDaemon = 25


AdTypes = AdType


class QueryOpt(enum.IntEnum):
    Default = 0
    AutoCluster = 1
    GroupBy = 2
    DefaultMyJobsOnly = 4
    SummaryOnly = 8
    IncludeClusterAd = 16
    IncludeJobsetAds = 32


QueryOpts = QueryOpt


class JobStatus(enum.IntEnum):
    IDLE = 1
    RUNNING = 2
    REMOVED = 3
    COMPLETED = 4
    HELD = 5
    TRANSFERRING_OUTPUT = 6
    SUSPENDED = 7


# Kite's ad types (MyType) for htcondor2's.
_MYTYPE = {
    AdType.Any: "", AdType.Startd: "Machine", AdType.Slot: "Machine", AdType.StartDaemon: "Machine",
    AdType.Schedd: "Scheduler", AdType.Master: "DaemonMaster", AdType.Submitter: "Submitter",
    AdType.Collector: "Collector", AdType.Negotiator: "Negotiator",
}
_DAEMON_MYTYPE = {
    DaemonType.Master: "DaemonMaster", DaemonType.Schedd: "Scheduler", DaemonType.Startd: "Machine",
    DaemonType.Collector: "Collector", DaemonType.Negotiator: "Negotiator",
}


# --- the protocol ------------------------------------------------------------


class _Daemon:
    """HTTP/JSON calls to one daemon, on a kept-alive connection."""

    def __init__(self, address, token):
        address = address.strip("<>").split("?")[0]
        host, _, port = address.rpartition(":")
        self.address = address
        self._host, self._port, self._token = host, int(port), token
        self._conn = None

    def _request(self, method, path, body):
        headers = {"Content-Type": "application/json"}
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        data = None if body is None else json.dumps(body).encode()
        for attempt in (0, 1):
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self._host, self._port, timeout=300)
            try:
                self._conn.request(method, path, body=data, headers=headers)
                resp = self._conn.getresponse()
                raw = resp.read()
                break
            except (ConnectionError, http.client.HTTPException, OSError) as e:
                self._conn.close()
                self._conn = None
                if attempt == 1 or not isinstance(e, (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)):
                    raise HTCondorException("%s: %s" % (self.address, e)) from e
        if resp.status >= 300:
            try:
                err = json.loads(raw)["error"]
                raise HTCondorException("%s %s: %s (%s)" % (method, path, err["message"], err["code"]))
            except (ValueError, KeyError, TypeError):
                raise HTCondorException("%s %s: %d %s" % (method, path, resp.status, raw[:200].decode(errors="replace")))
        return raw

    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def call(self, method, path, body=None):
        raw = self._request(method, path, body)
        return json.loads(raw) if raw else None

    def stream(self, path, body):
        """The items of a streamed answer, as JSON values."""
        raw = self._request("POST", path, body)
        lines = raw.split(b"\n")
        while lines and not lines[-1]:
            lines.pop()
        if not lines:
            raise HTCondorException("%s: the answer was cut off" % path)
        last = json.loads(lines.pop())
        if last.get("error"):
            raise HTCondorException("%s: %s" % (path, last["error"].get("message")))
        if not last.get("end"):
            raise HTCondorException("%s: the answer was cut off" % path)
        # Items are written as {"item":...}: one array to parse at once.
        items = [ln[8:-1] if ln.startswith(b'{"item":') else json.dumps(json.loads(ln)["item"]).encode() for ln in lines]
        return json.loads(b"[" + b",".join(items) + b"]")


def _ads(items):
    from_json = classad2.ClassAd._from_json
    return [from_json(x) for x in items]


def _pool_address(pool):
    if pool is None:
        return pool_config().collector
    if isinstance(pool, classad2.ClassAd):
        return pool["MyAddress"]
    if isinstance(pool, (list, tuple)):
        return pool[0]
    return pool


# --- Collector ------------------------------------------------------------


class Collector:
    """A pool's collector: Collector(pool) with pool "host:port", or the
    pool of the kite tools' configuration."""

    def __init__(self, pool=None, security=None):
        self._pool = _pool_address(pool)
        self._d = _Daemon(self._pool, pool_config().token)

    def __del__(self):
        self._d.close()

    def close(self):
        """Close the connection to the collector (a later call opens one)."""
        self._d.close()

    def query(self, ad_type=AdType.Any, constraint=None, projection=None, statistics=None):
        """Ads of a type matching constraint, with only the projected
        attributes when projection is given."""
        if ad_type not in _MYTYPE:
            raise HTCondorException("Kite has no %s ads" % AdType(ad_type).name)
        q = {}
        if _MYTYPE[ad_type]:
            q["type"] = _MYTYPE[ad_type]
        if constraint is not None and str(constraint).strip():
            q["constraint"] = str(constraint)
        if projection:
            q["projection"] = list(projection)
        return _ads(self._d.stream("/v1/ads/query", q))

    def locateAll(self, daemon_type):
        """The ads of every daemon of a type."""
        if daemon_type not in _DAEMON_MYTYPE:
            raise HTCondorException("Kite has no %s daemons" % DaemonType(daemon_type).name)
        return _ads(self._d.stream("/v1/ads/query", {"type": _DAEMON_MYTYPE[daemon_type]}))

    def locate(self, daemon_type, name=None):
        """The ad of one daemon (its MyAddress is where it listens): the one
        named, else this host's, else the pool's only one."""
        ads = self.locateAll(daemon_type)
        if name is not None:
            ads = [a for a in ads if name.lower() in (str(a.get("Name", "")).lower(), str(a.get("Machine", "")).lower())]
            if not ads:
                raise HTCondorException("no %s named %r in the pool" % (DaemonType(daemon_type).name, name))
            return ads[0]
        host = socket.gethostname().lower()
        local = [a for a in ads if str(a.get("Name", "")).lower() == host]
        if local:
            return local[0]
        if len(ads) == 1 or (ads and daemon_type == DaemonType.Startd):
            return ads[0]
        if not ads:
            raise HTCondorException("no %s in the pool of %s" % (DaemonType(daemon_type).name, self._pool))
        raise HTCondorException("the pool has %d %s daemons: name one" % (len(ads), DaemonType(daemon_type).name))


# --- Submit -----------------------------------------------------------------

_QUEUE = re.compile(r"^\s*queue\b(.*)$", re.IGNORECASE)
_ASSIGN = re.compile(r"^\s*([+A-Za-z_.][A-Za-z0-9_.+-]*)\s*=\s?(.*)$")


class Submit(MutableMapping):
    """A submit description: submit commands (strings) and a queue
    statement. Submit({...}), Submit("text of a submit file"), or
    keyword arguments."""

    def __init__(self, input=None, queue=None, **kwargs):
        self._cmds = {}
        self._qargs = None
        if isinstance(input, str):
            self._parse(input)
        elif input is not None:
            for k, v in dict(input).items():
                self[k] = v
        for k, v in kwargs.items():
            self[k] = v
        if queue is not None:
            self._qargs = queue

    def _parse(self, text):
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            i += 1
            if not line or line.startswith("#"):
                continue
            m = _QUEUE.match(line)
            if m:
                qargs = m.group(1).strip()
                # A multi-line item list: "queue x from (" ... ")".
                if qargs.endswith("("):
                    while i < len(lines) and lines[i].strip() != ")":
                        qargs += "\n" + lines[i]
                        i += 1
                    qargs += "\n)"
                    i += 1
                self._qargs = qargs
                continue
            m = _ASSIGN.match(line)
            if not m:
                raise ValueError("submit description line %d: %r is neither a command nor a queue statement" % (i, line))
            self[m.group(1)] = m.group(2).strip()

    def _key(self, k):
        for have in self._cmds:
            if have.lower() == k.lower():
                return have
        return k

    def __getitem__(self, k):
        return self._cmds[self._key(k)]

    def __setitem__(self, k, v):
        if not isinstance(v, str):
            raise TypeError("submit values are strings (htcondor2 does no conversion): %s = %r" % (k, v))
        self._cmds[self._key(k)] = v

    def __delitem__(self, k):
        del self._cmds[self._key(k)]

    def __iter__(self):
        return iter(list(self._cmds))

    def __len__(self):
        return len(self._cmds)

    def getQArgs(self):
        """The queue statement's arguments ("" for a bare queue)."""
        return self._qargs or ""

    def setQArgs(self, args):
        self._qargs = args

    def expand(self, attr):
        """The value of a command with $(name) macros of this description
        replaced (unknown ones become empty, as in condor_submit)."""
        return self._expand(self[attr], 0)

    def _expand(self, value, depth):
        if depth > 32:
            raise ValueError("macro expansion nests too deep")

        def sub(m):
            name = m.group(1)
            default = None
            if ":" in name:
                name, default = name.split(":", 1)
            try:
                return self._expand(self[name], depth + 1)
            except KeyError:
                return default if default is not None else ""
        return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_.:]*)\)", sub, value)

    def _body(self):
        return "".join("%s = %s\n" % (k, v) for k, v in self._cmds.items())

    def __str__(self):
        q = self.getQArgs()
        return self._body() + ("queue " + q if q else "queue") + "\n"

    def __repr__(self):
        return "Submit(%r)" % str(self)


class SubmitResult:
    """What a submit queued: one cluster of jobs."""

    def __init__(self, schedd, cluster, first_proc, num_procs):
        self._schedd, self._cluster, self._first, self._num = schedd, cluster, first_proc, num_procs

    def cluster(self):
        return self._cluster

    def first_proc(self):
        return self._first

    def num_procs(self):
        return self._num

    def clusterad(self):
        """The ad of the cluster's first job (Kite keeps no separate
        cluster ad in the queue)."""
        ads = self._schedd.query("ClusterId == %d" % self._cluster, limit=1)
        return ads[0] if ads else None

    def __int__(self):
        return self._cluster

    def __repr__(self):
        return "SubmitResult(cluster=%d, procs=%d)" % (self._cluster, self._num)


def _item_line(item, keys):
    if isinstance(item, Mapping):
        return ", ".join(str(item[k]) for k in keys)
    return str(item)


def _queue_args(description, count, itemdata, queue):
    if queue is not None:
        if count or itemdata is not None:
            raise ValueError("queue may not be given with count or itemdata")
        return queue
    if itemdata is not None:
        items = list(itemdata)
        if not items:
            raise ValueError("itemdata is empty")
        if isinstance(items[0], Mapping):
            keys = list(items[0])
            names = ", ".join(keys)
        else:
            keys = None
            m = re.match(r"^\s*(\d+\s+)?([A-Za-z_][\w,\s]*?)\s+from\b", description.getQArgs(), re.I)
            names = m.group(2) if m else "Item"
        lines = "\n".join(_item_line(it, keys) for it in items)
        return "%s%s from (\n%s\n)" % ("%d " % count if count else "", names, lines)
    q = description.getQArgs()
    if count:
        return re.sub(r"^\s*\d*", str(count) + " ", q, count=1).strip()
    return q


# --- Schedd -----------------------------------------------------------------

_JOB_ID = re.compile(r"^\d+(\.\d+)?$")


class Schedd:
    """A schedd: Schedd() for this host's (or the pool's only one), or
    Schedd(ad) with an ad from Collector.locate."""

    def __init__(self, location=None):
        if location is None:
            c = Collector()
            try:
                location = c.locate(DaemonType.Schedd)
            finally:
                c.close()
        self._location = location
        self._addr = location["MyAddress"]
        self._d = _Daemon(self._addr, pool_config().token)

    def close(self):
        """Close the connection to the schedd (a later call opens one)."""
        self._d.close()

    def __del__(self):
        self._d.close()

    def query(self, constraint="true", projection=[], callback=None, limit=-1, opts=QueryOpt.Default):
        """Job ads matching constraint (a string or ExprTree), in
        cluster.proc order, with only the projected attributes when
        projection is given; callback, when given, maps each ad."""
        q = {}
        if constraint is not None and str(constraint).strip() and str(constraint).strip().lower() != "true":
            q["constraint"] = str(constraint)
        if projection:
            q["projection"] = list(projection)
        if limit is not None and limit > 0:
            q["limit"] = limit
        ads = _ads(self._d.stream("/v1/queue/query", q))
        return [callback(a) for a in ads] if callback else ads

    def history(self, constraint=None, projection=[], match=-1, since=None):
        """Ads of jobs that left the queue, newest first."""
        if since is not None:
            raise HTCondorException("Kite's history takes no since: use a constraint on the jobs' ids")
        q = {}
        if constraint is not None and str(constraint).strip() and str(constraint).strip().lower() != "true":
            q["constraint"] = str(constraint)
        if projection:
            q["projection"] = list(projection)
        if match is not None and match > 0:
            q["limit"] = match
        return _ads(self._d.stream("/v1/history/query", q))

    @staticmethod
    def _selection(job_spec):
        if isinstance(job_spec, int) and not isinstance(job_spec, bool):
            return {"ids": [str(job_spec)]}
        if isinstance(job_spec, classad2.ExprTree):
            return {"constraint": str(job_spec)}
        if isinstance(job_spec, str):
            if _JOB_ID.match(job_spec.strip()):
                return {"ids": [job_spec.strip()]}
            return {"constraint": job_spec}
        ids = [str(j) for j in job_spec]
        bad = [j for j in ids if not _JOB_ID.match(j)]
        if bad:
            raise ValueError("job ids are cluster or cluster.proc: %r" % bad)
        return {"ids": ids}

    _ACTIONS = {JobAction.Hold: "hold", JobAction.Release: "release", JobAction.Remove: "remove",
                JobAction.Vacate: "vacate", JobAction.VacateFast: "vacate"}

    def act(self, action, job_spec, reason=None):
        """Hold, release, remove or vacate jobs: job ids ("c" or "c.p", or
        a list of them), a cluster number, or a constraint. Returns an ad
        of totals (TotalJobAds, TotalSuccess, TotalPermissionDenied, ...)."""
        if action not in self._ACTIONS:
            raise HTCondorException("Kite cannot %s jobs" % JobAction(action).name)
        req = dict(self._selection(job_spec), action=self._ACTIONS[action])
        if isinstance(reason, tuple):
            reason, code = reason
            req["subcode"] = int(code)
        if reason:
            req["reason"] = reason
        if action == JobAction.VacateFast:
            req["fast"] = True
        res = self._d.call("POST", "/v1/queue/act", req)
        return _totals(res)

    def edit(self, job_spec, attr, value, flags=0):
        """Set attr (a ClassAd expression, as a string or ExprTree) in
        the jobs of job_spec; returns how many jobs were changed."""
        req = dict(self._selection(job_spec), attrs={attr: str(value)})
        return self._d.call("POST", "/v1/queue/edit", req)["changed"]

    def submit(self, description, count=0, spool=False, itemdata=None, queue=None):
        """Queue the jobs of a Submit, as one cluster, with kite submit:
        count replaces the queue statement's count, itemdata its items."""
        if not isinstance(description, Submit):
            raise TypeError("submit takes a Submit")
        if spool:
            raise HTCondorException("Kite does not spool: jobs read their files from the submit directory")
        text = description._body() + "queue " + _queue_args(description, count, itemdata, queue) + "\n"
        proc = subprocess.run(
            [kite_binary(), "submit", "-terse", "-name", self._addr, "-"],
            input=text, capture_output=True, text=True, env=_tool_env())
        if proc.returncode != 0:
            raise HTCondorException("kite submit: " + (proc.stderr.strip() or "exit %d" % proc.returncode))
        m = re.search(r"(\d+)\.(\d+) - \d+\.(\d+)", proc.stdout)
        if not m:
            raise HTCondorException("kite submit said %r" % proc.stdout)
        cluster, first, last = int(m.group(1)), int(m.group(2)), int(m.group(3))
        return SubmitResult(self, cluster, first, last - first + 1)

    def reschedule(self):
        """Ask the negotiator for a cycle soon."""
        c = Collector()
        try:
            ad = c.locate(DaemonType.Negotiator)
        finally:
            c.close()
        d = _Daemon(ad["MyAddress"], pool_config().token)
        try:
            d.call("POST", "/v1/reschedule")
        finally:
            d.close()


def _totals(res):
    matched, changed, denied = res.get("matched", 0), res.get("changed", 0), res.get("denied", 0)
    return classad2.ClassAd({
        "TotalJobAds": matched, "TotalSuccess": changed, "TotalChangedAds": changed,
        "TotalPermissionDenied": denied, "TotalBadStatus": matched - changed - denied,
        "TotalError": 0, "TotalNotFound": 0, "TotalAlreadyDone": 0,
    })


def _tool_env():
    """The environment of the kite tools run for this package: the same
    pool (KITE_CONFIG) and token."""
    env = dict(os.environ)
    cfg = pool_config()
    if cfg.path and "KITE_CONFIG" not in env:
        env["KITE_CONFIG"] = cfg.path
    if cfg.token and "KITE_TOKEN" not in env:
        env["KITE_TOKEN"] = cfg.token
    return env
