#!/usr/bin/env bash
# The project's tests: sets the machine up (the acceptance suite's setup
# plus the packages only the tests use), then runs pytest in two workers,
# grouped by what they share (tests/README.md, "Two at a time"). Extra
# arguments go to pytest (-n 0: one process).
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"
ci/setup.sh --test
exec .venv/bin/python -m pytest --numprocesses 2 --dist loadgroup \
    --no-loadscope-reorder "$@"
