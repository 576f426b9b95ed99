"""The pool the kite tools would use: its collector and the token."""

import os
import tomllib
from dataclasses import dataclass


@dataclass
class PoolConfig:
    path: str        # the configuration file ("" if none)
    collector: str   # host:port
    token: str       # "" when none is found


def _config_path():
    env = os.environ.get("KITE_CONFIG")
    if env:
        return env
    home = os.environ.get("KITE_HOME") or os.path.join(os.path.expanduser("~"), ".kite")
    for p in (os.path.join(home, "kite.toml"), "/etc/kite/kite.toml"):
        if os.path.exists(p):
            return p
    return ""


def pool_config():
    """Read the configuration as the tools do: $KITE_CONFIG, else
    $KITE_HOME/kite.toml or ~/.kite/kite.toml, else /etc/kite/kite.toml;
    [pool] collector and token_file, which KITE_POOL_COLLECTOR and
    KITE_POOL_TOKEN_FILE override; the token of $KITE_TOKEN, else of the
    token file (relative to the configuration's directory)."""
    path = _config_path()
    pool = {}
    if path:
        with open(path, "rb") as f:
            pool = tomllib.load(f).get("pool", {})
    collector = os.environ.get("KITE_POOL_COLLECTOR") or pool.get("collector") or "127.0.0.1:9618"
    token = os.environ.get("KITE_TOKEN", "").strip()
    if not token:
        tf = os.environ.get("KITE_POOL_TOKEN_FILE") or pool.get("token_file") or "kite.token"
        if path and not os.path.isabs(tf):
            tf = os.path.join(os.path.dirname(os.path.abspath(path)), tf)
        try:
            with open(tf) as f:
                token = f.read().strip()
        except OSError:
            token = ""
    return PoolConfig(path=path, collector=collector, token=token)
