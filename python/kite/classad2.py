"""ClassAds with the shape of HTCondor's ``classad2`` module.

``ClassAd`` is a mutable mapping of case-insensitive attribute names to
values: Python values for literals (int, float, str, bool, list,
nested ClassAd, datetime for absTime, timedelta for relTime,
``Value.Undefined`` and ``Value.Error``), ``ExprTree`` for any other
expression.

Parsing, printing in the old format, evaluation and matching are done by
Kite's own ClassAd library, reached through ``kite classad json`` (one
long-lived process, one JSON line per request): the answers are
HTCondor's because that evaluator is the one the conformance corpus
checks. Ads that come from the daemons (queries) are built in Python
from their JSON form, without that process.
"""

import atexit
import datetime
import enum
import json
import math
import re
import subprocess
import threading
from collections.abc import MutableMapping

from ._binary import kite_binary

__all__ = [
    "ClassAd", "ExprTree", "Value", "ParserType", "Parser", "ClassAdException",
    "parseAds", "parseOne", "parseNext", "quote", "unquote", "version", "lastError",
]


class ClassAdException(Exception):
    """A ClassAd could not be parsed or evaluated."""


class Value(enum.IntEnum):
    """The ClassAd values with no Python counterpart."""

    Error = 1
    Undefined = 2

    def __str__(self):
        return self.name


class ParserType(enum.IntEnum):
    """Which syntax parseAds and friends read."""

    Auto = -1
    Old = 0
    XML = 1
    JSON = 2
    New = 3
    FileAuto = 4


Parser = ParserType

_last_error = ""


def lastError():
    """Return the message of the last parse or evaluation failure."""
    return _last_error


def version():
    """Return the version of this module."""
    from . import __version__
    return __version__


# --- the kite classad json process ---------------------------------------


class _Service:
    """One `kite classad json` process, shared, started on first use."""

    def __init__(self):
        self._lock = threading.Lock()
        self._proc = None

    def call(self, request):
        global _last_error
        line = json.dumps(request) + "\n"
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = subprocess.Popen(
                    [kite_binary(), "classad", "json"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                    encoding="utf-8", bufsize=1)
            self._proc.stdin.write(line)
            self._proc.stdin.flush()
            answer = self._proc.stdout.readline()
        if not answer:
            raise ClassAdException("kite classad json ended without answering")
        out = json.loads(answer)
        if "error" in out:
            _last_error = out["error"]
            raise ClassAdException(out["error"])
        return out


    def close(self):
        with self._lock:
            if self._proc is not None:
                self._proc.stdin.close()
                self._proc.wait()
                self._proc.stdout.close()
                self._proc = None


_service = _Service()
atexit.register(_service.close)


# --- values between Python and ClassAd text ------------------------------


def _decode(tagged):
    """A value of the service's answers as a Python value."""
    t, v = tagged["t"], tagged.get("v")
    if t in ("int", "string", "bool"):
        return v
    if t == "real":
        return float(v) if not isinstance(v, str) else float(v.replace("nan", "NaN"))
    if t == "undefined":
        return Value.Undefined
    if t == "error":
        return Value.Error
    if t == "list":
        return [_decode(x) for x in v]
    if t == "ad":
        return _ad_of_pairs(v)
    if t == "abstime":
        tz = datetime.timezone(datetime.timedelta(seconds=tagged["tz"]))
        try:
            return datetime.datetime.fromtimestamp(v, tz)
        except (OverflowError, ValueError, OSError):
            return ExprTree._canonical('absTime(%d)' % v)
    if t == "reltime":
        try:
            return datetime.timedelta(seconds=v)
        except OverflowError:
            return ExprTree._canonical('relTime(%r)' % v)
    return ExprTree._canonical(v)


def _ad_of_pairs(pairs):
    ad = ClassAd()
    d = ad._dd
    for name, tagged in pairs:
        d[name.lower()] = (name, _decode(tagged))
    return ad


_RESERVED = {"true", "false", "undefined", "error", "is", "isnt"}
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def _escape(s, q):
    out = []
    for c in s:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif c == q:
            out.append("\\" + q)
        elif c < " " or c == "\x7f":
            out.append("\\%03o" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def _quote(s):
    return '"' + _escape(s, '"') + '"'


def _name(name):
    if _PLAIN.match(name) and name.lower() not in _RESERVED:
        return name
    return "'" + _escape(name, "'") + "'"


def _real(f, exact):
    if math.isnan(f):
        return 'real("NaN")'
    if math.isinf(f):
        return 'real("INF")' if f > 0 else 'real("-INF")'
    if f == 0:
        return "-0.0" if math.copysign(1, f) < 0 else "0.0"
    return repr(f) if exact else "%.15E" % f


def _abstime(t):
    if t.tzinfo is None:
        t = t.astimezone()
    off = int(t.utcoffset().total_seconds())
    sign = "-" if off <= 0 else "+"
    off = abs(off)
    return 'absTime("%d-%s%s%02d:%02d")' % (
        t.year, t.strftime("%m-%dT%H:%M:%S"), sign, off // 3600, off % 3600 // 60)


def _reltime(secs):
    """relTime("[-][D+][HH:][MM:]SS[.frac]"), as HTCondor prints it."""
    sign = "-" if secs < 0 else ""
    secs = abs(secs)
    frac = secs - math.floor(secs)
    whole = int(secs)
    days, hrs, mins, sec = whole // 86400, whole % 86400 // 3600, whole % 3600 // 60, whole % 60 + frac
    if days:
        head = "%d+%02d:%02d:" % (days, hrs, mins)
    elif hrs:
        head = "%02d:%02d:" % (hrs, mins)
    elif mins:
        head = "%02d:" % mins
    else:
        head = ""
    tail = "%02d" % sec if frac == 0 else ("%.6g" % sec).rjust(2, "0")
    return 'relTime("%s%s%s")' % (sign, head, tail)


def _unparse(v, exact=True):
    """ClassAd text of a Python value. exact keeps every bit of a real (for
    the evaluator); otherwise reals print as HTCondor prints them."""
    if isinstance(v, ExprTree):
        return v._text
    if isinstance(v, ClassAd):
        return _unparse_ad(v, exact)
    if isinstance(v, Value):
        return "undefined" if v == Value.Undefined else "error"
    if v is None:
        return "undefined"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _real(v, exact)
    if isinstance(v, str):
        return _quote(v)
    if isinstance(v, (list, tuple)):
        return "{ " + ",".join(_unparse(x, exact) for x in v) + " }"
    if isinstance(v, dict):
        return _unparse_ad(ClassAd(v), exact)
    if isinstance(v, datetime.datetime):
        return _abstime(v)
    if isinstance(v, datetime.timedelta):
        # relTime of a number is a relative time; of a string, as
        # HTCondor has it, a real.
        return "relTime(%r)" % v.total_seconds() if exact else _reltime(v.total_seconds())
    raise TypeError("a %s is not a ClassAd value" % type(v).__name__)


def _unparse_ad(ad, exact=True):
    return "[ " + "; ".join(
        "%s = %s" % (_name(n), _unparse(v, exact)) for n, v in ad._d.values()) + " ]"


# --- ExprTree ---------------------------------------------------------------


class ExprTree:
    """A ClassAd expression, immutable. str() is its canonical text."""

    __slots__ = ("_text",)

    def __init__(self, expr=None):
        if isinstance(expr, ExprTree):
            self._text = expr._text
            return
        if expr is None:
            self._text = "undefined"
            return
        if not isinstance(expr, str):
            raise TypeError("ExprTree wants a string or an ExprTree")
        ans = _service.call({"op": "print", "text": expr, "style": "new"})
        self._text = ans["text"]

    @classmethod
    def _canonical(cls, text):
        e = cls.__new__(cls)
        e._text = text
        return e

    def eval(self, scope=None, target=None):
        """Evaluate with MY bound to scope and TARGET to target."""
        req = {"op": "eval", "expr": self._text}
        if scope is not None:
            req["my"] = _unparse_ad(_as_ad(scope))
        if target is not None:
            req["target"] = _unparse_ad(_as_ad(target))
        return _decode(_service.call(req)["value"])

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text

    def __eq__(self, other):
        return isinstance(other, ExprTree) and other._text == self._text

    def __hash__(self):
        return hash(self._text)


def _as_ad(x):
    if isinstance(x, ClassAd):
        return x
    if isinstance(x, dict):
        return ClassAd(x)
    raise TypeError("want a ClassAd, not a %s" % type(x).__name__)


# --- ClassAd ----------------------------------------------------------------


class ClassAd(MutableMapping):
    """A ClassAd: attribute names (case-insensitive) to values."""

    # _dd maps lower-case names to (name, value); an ad from the daemons
    # keeps its JSON object in _raw until it is first read (a query of
    # 100 000 ads makes 100 000 of them, most never read in full).
    __slots__ = ("_dd", "_raw")

    @property
    def _d(self):
        if self._dd is None:
            self._dd = {k.lower(): (k, _from_json_value(v)) for k, v in self._raw.items()}
            self._raw = None
        return self._dd

    def __init__(self, input=None):
        self._dd, self._raw = {}, None
        if input is None:
            return
        if isinstance(input, str):
            ads = _service.call({"op": "parse_ads", "text": input, "format": "new"})["ads"]
            if len(ads) != 1:
                raise ClassAdException("want one ad in brackets, found %d" % len(ads))
            for name, tagged in ads[0]:
                self._d[name.lower()] = (name, _decode(tagged))
            return
        for k, v in dict(input).items():
            self[k] = v

    @classmethod
    def _from_json(cls, obj):
        """An ad of the daemons' JSON form: literals as JSON values,
        expressions as "\\/Expr(...)\\/" (json.loads makes it "/Expr(...)/")."""
        ad = cls.__new__(cls)
        ad._dd, ad._raw = None, obj
        return ad

    def __getitem__(self, key):
        return self._d[key.lower()][1]

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise TypeError("attribute names are strings")
        if isinstance(value, dict) and not isinstance(value, ClassAd):
            value = ClassAd(value)
        _unparse(value)  # refuses what is not a ClassAd value
        old = self._d.get(key.lower())
        self._d[key.lower()] = (old[0] if old else key, value)

    def __delitem__(self, key):
        del self._d[key.lower()]

    def __iter__(self):
        return iter([n for n, _ in self._d.values()])

    def __len__(self):
        return len(self._d)

    def __contains__(self, key):
        return isinstance(key, str) and key.lower() in self._d

    def eval(self, attr):
        """Evaluate attribute attr with this ad as MY."""
        if attr not in self:
            raise KeyError(attr)
        req = {"op": "eval_attr", "attr": attr, "my": _unparse_ad(self)}
        return _decode(_service.call(req)["value"])

    def lookup(self, attr):
        """Return attribute attr as an ExprTree, unevaluated."""
        v = self[attr]
        return v if isinstance(v, ExprTree) else ExprTree._canonical(_unparse(v, exact=False))

    def printOld(self):
        """The ad in the old format: one `name = value` a line."""
        return _service.call({"op": "print", "text": _unparse_ad(self), "style": "old"})["text"]

    formatOld = printOld

    def printJson(self):
        """The ad in HTCondor's JSON form."""
        return "{" + ", ".join(
            json.dumps(n) + ": " + _json_value(v) for n, v in self._d.values()) + "}"

    formatJson = printJson

    def matches(self, target):
        """Whether this ad's Requirements hold against target."""
        return _service.call({"op": "match", "left": _unparse_ad(self),
                              "right": _unparse_ad(_as_ad(target))})["left"]

    def symmetricMatch(self, target):
        """Whether both ads' Requirements hold against each other."""
        return _service.call({"op": "match", "left": _unparse_ad(self),
                              "right": _unparse_ad(_as_ad(target))})["match"]

    def __str__(self):
        return _unparse_ad(self, exact=False)

    def __repr__(self):
        return _unparse_ad(self, exact=False)

    def __eq__(self, other):
        if not isinstance(other, ClassAd):
            return NotImplemented
        return {k: v for k, (_, v) in self._d.items()} == {k: v for k, (_, v) in other._d.items()}

    __hash__ = None


def _from_json_value(v):
    if isinstance(v, str):
        if v.startswith("/Expr(") and v.endswith(")/"):
            return ExprTree._canonical(v[6:-2])
        return v
    if v is None:
        return Value.Undefined
    if isinstance(v, dict):
        return ClassAd._from_json(v)
    if isinstance(v, list):
        return [_from_json_value(x) for x in v]
    return v


def _json_value(v):
    if isinstance(v, ExprTree):
        return '"\\/Expr(' + json.dumps(v._text)[1:-1] + ')\\/"'
    if isinstance(v, ClassAd):
        return v.printJson()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_json_value(x) for x in v) + "]"
    if v is Value.Undefined or v is None:
        return "null"
    if isinstance(v, (bool, int, str)):
        return json.dumps(v)
    if isinstance(v, float) and math.isfinite(v):
        return json.dumps(v)
    return _json_value(ExprTree._canonical(_unparse(v, exact=True)))


# --- parsing -----------------------------------------------------------------

_FORMATS = {ParserType.Auto: "auto", ParserType.FileAuto: "auto", ParserType.Old: "old", ParserType.New: "new"}


def _text_of(input):
    if isinstance(input, str):
        return input
    if hasattr(input, "read"):
        return input.read()
    return "".join(input)


def parseAds(input, parser=ParserType.Auto):
    """Iterate over the ads of input (a string or a file): old ones are
    separated by blank lines, new ones are each in brackets."""
    if parser not in _FORMATS:
        raise ClassAdException("parser %s: want Auto, Old or New" % ParserType(parser).name)
    ans = _service.call({"op": "parse_ads", "text": _text_of(input), "format": _FORMATS[parser]})
    return iter([_ad_of_pairs(pairs) for pairs in ans["ads"]])


def parseOne(input, parser=ParserType.Auto):
    """Parse every ad of input and merge them into one."""
    out = ClassAd()
    for ad in parseAds(input, parser):
        out.update(ad)
    return out


def parseNext(input, parser=ParserType.Auto):
    """Return the first ad of input."""
    for ad in parseAds(input, parser):
        return ad
    raise StopIteration


def quote(s):
    """A Python string as a ClassAd string literal."""
    return _service.call({"op": "quote", "string": s})["text"]


def unquote(s):
    """The Python string of a ClassAd string literal."""
    return _service.call({"op": "unquote", "text": s})["string"]
