#!/usr/bin/env bash
# Set up and run the whole check: ruff, mypy --strict, import-linter contracts and pytest (unit, fault-injection and
# end-to-end suites). Idempotent: reuses .venv and the Pi cache when they are there.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
# Node 22 and a pinned Pi from npm, for the end-to-end tests (skipped with a reason if absent).
if [ -f scripts/install-pi.sh ]; then bash scripts/install-pi.sh; fi
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports
.venv/bin/pytest -q "$@"
