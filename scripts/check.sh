#!/usr/bin/env bash
# Set up and run the whole check: ruff (lint and format), mypy --strict, import-linter
# contracts, deptry and pytest (unit, fault-injection and end-to-end suites). Idempotent:
# reuses .venv and the Pi cache when they are there. Needs Python 3.11+; the end-to-end tests also need npm (Node 22 and a pinned Pi
# are installed from npm into .cache/pi). Without npm, or without the registry, those tests
# skip with the reason — except under CI=true, where the check fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
# Node 22 and a pinned Pi from npm, for the end-to-end tests.
if [ -f scripts/install-pi.sh ]; then
  if ! bash scripts/install-pi.sh >/dev/null; then
    if [ "${CI:-}" = "true" ]; then
      echo "check: installing Node 22 and Pi failed (see above); CI=true needs them" >&2
      exit 1
    fi
    echo "check: Node 22 and Pi are not installed (see above); the end-to-end tests will skip" >&2
  fi
fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports
.venv/bin/deptry .
.venv/bin/pytest -q "$@"
