"""The job event log ("user log"), HTCondor's format, which Kite's schedd
writes: JobEventLog reads and follows it, JobEvent is one event."""

import enum
import re
import time
from collections.abc import Mapping


class JobEventType(enum.IntEnum):
    SUBMIT = 0
    EXECUTE = 1
    EXECUTABLE_ERROR = 2
    CHECKPOINTED = 3
    JOB_EVICTED = 4
    JOB_TERMINATED = 5
    IMAGE_SIZE = 6
    SHADOW_EXCEPTION = 7
    GENERIC = 8
    JOB_ABORTED = 9
    JOB_SUSPENDED = 10
    JOB_UNSUSPENDED = 11
    JOB_HELD = 12
    JOB_RELEASED = 13
    NODE_EXECUTE = 14
    NODE_TERMINATED = 15
    POST_SCRIPT_TERMINATED = 16
    REMOTE_ERROR = 21
    JOB_DISCONNECTED = 22
    JOB_RECONNECTED = 23
    JOB_RECONNECT_FAILED = 24
    JOB_AD_INFORMATION = 28
    ATTRIBUTE_UPDATE = 33
    PRESKIP = 34
    CLUSTER_SUBMIT = 35
    CLUSTER_REMOVE = 36
    FACTORY_PAUSED = 37
    FACTORY_RESUMED = 38
    NONE = 39
    FILE_TRANSFER = 40


_HEADER = re.compile(r"^(\d{3}) \((\d+)\.(\d+)\.(\d+)\) (\S+ \S+?)(Z?) (.*)$")


def _timestamp(date, utc):
    """Epoch seconds of a header's time: "2026-11-25 23:33:11[.123]" (or
    HTCondor's legacy "11/25 23:33:11"), local unless utc."""
    date = date.split(".")[0]
    if "/" in date:
        date = "%d/%s" % (time.localtime().tm_year, date)
        fmt = "%Y/%m/%d %H:%M:%S"
    else:
        fmt = "%Y-%m-%d %H:%M:%S"
    t = time.strptime(date, fmt)
    if utc:
        import calendar
        return calendar.timegm(t)
    return int(time.mktime(t))


class JobEvent(Mapping):
    """One event: .type, .cluster, .proc, .timestamp and, as a mapping,
    the event's attributes as HTCondor names them (ReturnValue,
    TerminatedNormally, HoldReason, ...). str() is its text in the log."""

    def __init__(self, text, code, cluster, proc, timestamp, attrs):
        self._text = text
        self.type = JobEventType(code) if code in JobEventType._value2member_map_ else code
        self.cluster, self.proc, self.timestamp = cluster, proc, timestamp
        self._attrs = dict(attrs, EventTypeNumber=code, Cluster=cluster, Proc=proc)

    def __getitem__(self, k):
        return self._attrs[k]

    def __iter__(self):
        return iter(self._attrs)

    def __len__(self):
        return len(self._attrs)

    def __str__(self):
        return self._text

    def __repr__(self):
        return "JobEvent(%s, %d.%d)" % (getattr(self.type, "name", self.type), self.cluster, self.proc)


def _attributes(code, first, body):
    """The attributes of an event from its first line's text and body."""
    a = {}
    lines = [ln.strip() for ln in body]
    if code == JobEventType.SUBMIT:
        a["SubmitHost"] = first.split(":", 1)[-1].strip()
        if lines:
            a["LogNotes"] = lines[0]
    elif code == JobEventType.EXECUTE:
        a["ExecuteHost"] = first.split(":", 1)[-1].strip()
        for ln in lines:
            if ln.startswith("SlotName:"):
                a["SlotName"] = ln.split(":", 1)[1].strip()
    elif code == JobEventType.JOB_TERMINATED:
        for ln in lines:
            m = re.match(r"\(1\) Normal termination \(return value (-?\d+)\)", ln)
            if m:
                a["TerminatedNormally"] = True
                a["ReturnValue"] = int(m.group(1))
            m = re.match(r"\(0\) Abnormal termination \(signal (\d+)\)", ln)
            if m:
                a["TerminatedNormally"] = False
                a["TerminatedBySignal"] = int(m.group(1))
    elif code == JobEventType.JOB_HELD:
        if lines:
            a["HoldReason"] = lines[0]
        for ln in lines[1:]:
            m = re.match(r"Code (-?\d+) Subcode (-?\d+)", ln)
            if m:
                a["HoldReasonCode"], a["HoldReasonSubCode"] = int(m.group(1)), int(m.group(2))
    elif code in (JobEventType.JOB_ABORTED, JobEventType.JOB_RELEASED):
        if lines:
            a["Reason"] = lines[0]
    elif code == JobEventType.IMAGE_SIZE:
        m = re.search(r"(\d+)$", first)
        if m:
            a["Size"] = int(m.group(1))
        for ln in lines:
            m = re.match(r"(\d+)\s+-\s+(MemoryUsage|ResidentSetSize)", ln)
            if m:
                a[m.group(2)] = int(m.group(1))
    elif code == JobEventType.JOB_EVICTED:
        a["Reason"] = lines[-1] if lines and "Bytes" not in lines[-1] and "Usage" not in lines[-1] else ""
    return a


class JobEventLog:
    """Reads a job event log, from its start, following it as it grows."""

    poll_interval = 0.1  # seconds between looks at a log that did not grow

    def __init__(self, filename):
        self._f = open(filename, "r", encoding="utf-8", errors="replace")
        self._partial = ""
        self._lines = []

    def close(self):
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        return self.events(stop_after=None)

    def _next_event(self):
        """The next complete event, or None if the log holds no more yet."""
        while True:
            chunk = self._f.readline()
            if not chunk:
                return None
            if not chunk.endswith("\n"):
                self._partial += chunk  # a line being written
                continue
            line, self._partial = (self._partial + chunk).rstrip("\r\n"), ""
            if line.rstrip() == "...":
                if self._lines:
                    lines, self._lines = self._lines, []
                    ev = self._parse(lines)
                    if ev is not None:
                        return ev
                continue
            if self._lines or line.strip():
                self._lines.append(line)

    @staticmethod
    def _parse(lines):
        m = _HEADER.match(lines[0])
        if not m:
            return None  # not an event (HTCondor skips these too)
        code, cluster, proc = int(m.group(1)), int(m.group(2)), int(m.group(3))
        ts = _timestamp(m.group(5), m.group(6) == "Z")
        text = "\n".join(lines) + "\n...\n"
        return JobEvent(text, code, cluster, proc, ts, _attributes(code, m.group(7), lines[1:]))

    def events(self, stop_after=None):
        """Iterate over events: at the end of the log, wait for more for
        stop_after seconds (None: for ever; 0: not at all)."""
        deadline = None if stop_after is None else time.monotonic() + stop_after
        while True:
            ev = self._next_event()
            if ev is not None:
                yield ev
                continue
            if deadline is not None and time.monotonic() >= deadline:
                return
            time.sleep(self.poll_interval)
