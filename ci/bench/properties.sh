#!/usr/bin/env bash
# The verdicts' property tests (tests/properties/, tests/README.md) with
# many more examples than CI tries: the Hypothesis profile "deep", 20
# times CI's examples each, random ones (CI's are derandomized, the same
# every run). Prints, per property test, the examples tried and the
# seconds spent (ci/bench/properties_table.py), with the date, the
# machine and the seed that repeats the run.
#
# Usage: ci/bench/properties.sh [PYTEST ARGS...]
# Environment: SEED (default: the time), as pytest's --hypothesis-seed;
#   STATE_DIR (default var/bench/properties-<time>: pytest's output and
#   the table in table.md).
# Exit status: 0 every property held, 1 one failed (its counterexample,
#   shrunk, in the output: keep it as an explicit @example), 2 cannot run.
set -euo pipefail

die() { echo "properties: $*" >&2; exit 2; }

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$project_dir"
[ -x .venv/bin/python ] || die "no .venv: run ci/setup.sh --test first"
seed=${SEED:-$(date +%s)}
[[ $seed =~ ^[0-9]+$ ]] || die "SEED=$seed: not a number"
state=${STATE_DIR:-$project_dir/var/bench/properties-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$state"

started=$(date +%s)
status=0
HPC_ACCEPTANCE_PROPERTIES=deep .venv/bin/python -m pytest tests/properties \
    -p no:cacheprovider -q --hypothesis-show-statistics \
    --hypothesis-seed="$seed" "$@" > "$state/pytest.log" 2>&1 || status=$?
seconds=$(( $(date +%s) - started ))
tail -n 3 "$state/pytest.log"
(( status <= 1 )) || die "pytest could not run (exit $status; see $state/pytest.log)"

{
    echo "$(date -u +%Y-%m-%d), $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' |
        head -n 1), $(nproc) CPUs; seed $seed; ${seconds} s in all"
    echo
    .venv/bin/python ci/bench/properties_table.py "$state/pytest.log"
} | tee "$state/table.md"
exit "$status"
