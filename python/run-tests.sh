#!/bin/sh
# Run the Python package's tests against a personal pool they start
# (kite up in a temporary directory). CI (as root on Debian) needs
# python3, python3-pytest, python3-setuptools and python3-pip; without
# pytest the tests run under python3 -m unittest.
#
#   python/run-tests.sh            build kite, install the package, run the tests
#   KITE_BIN=path python/run-tests.sh   use that kite binary
#   PYTHON=/usr/bin/python3 python/run-tests.sh   use that interpreter
set -eu
py=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "${KITE_BIN:-}" ]; then
	(cd "$root" && go build -o "$work/kite" ./tools/kite)
	KITE_BIN="$work/kite"
fi
export KITE_BIN

# Install the package as a user would (no downloads: Debian's setuptools),
# into a private prefix the tests then import from.
"$py" -m pip install --quiet --root-user-action=ignore --no-build-isolation --no-deps --no-index \
	--target "$work/site" "$here"
rm -rf "$here/build" "$here"/*.egg-info
export PYTHONPATH="$work/site:$here/tests"

cd "$here/tests"
if "$py" -c 'import pytest' 2>/dev/null; then
	"$py" -m pytest -q -p no:cacheprovider .
else
	"$py" -m unittest discover -s . -p 'test_*.py'
fi
