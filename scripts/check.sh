#!/usr/bin/env bash
# Set up and run the whole check: ruff (lint and format), mypy --strict, import-linter
# contracts, deptry and pytest (unit, fault-injection and end-to-end suites). Idempotent:
# reuses .venv and the Pi cache when they are there. Needs Python 3.11+; the end-to-end tests also need npm (Node 22 and a pinned Pi
# are installed from npm into .cache/pi). Without npm, or without the registry, those tests
# skip with the reason — except under CI=true, where the check fails instead.
#
#   scripts/check.sh            # the whole check, as CI runs it (about 15 min on 2 cores)
#   scripts/check.sh --quick    # lint, types, contracts and the unit + integration tests, no
#                               # real-Pi end-to-end tests and no Node/Pi install (about 10 min)
# Other arguments go to pytest.
set -euo pipefail
QUICK=0
if [ "${1:-}" = "--quick" ]; then
  QUICK=1
  shift
fi
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
# Node 22 and a pinned Pi from npm, for the end-to-end tests.
if [ "$QUICK" = 0 ] && [ -f scripts/install-pi.sh ]; then
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
if [ "$QUICK" = 1 ]; then
  .venv/bin/pytest -q -m "not e2e" --ignore=tests/e2e "$@"
else
  .venv/bin/pytest -q "$@"
fi
