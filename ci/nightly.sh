#!/usr/bin/env bash
# The nightly acceptance run that the recipes in ci/systemd/, ci/cron/ and
# ci/gitlab/ start: ci/acceptance.sh --system "$HPC_ACCEPTANCE_SYSTEM".
#
# The system is named, not guessed: ReFrame picks a system by host name,
# and the embedded default `local` matches every host, so on a cluster
# whose host-name pattern is wrong an unattended run would validate the
# node as `local`, against no references, and pass. An unset, empty or
# unknown HPC_ACCEPTANCE_SYSTEM therefore stops here (exit 2) naming the
# systems of config/systems/. Extra arguments go to ci/acceptance.sh.
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

say() { echo "nightly: $*" >&2; }

# The names in config/systems/*.py; empty before ci/setup.sh made .venv
# (then ReFrame itself refuses an unknown --system, before any check).
known_systems() {
    [[ -x .venv/bin/python ]] || return 0
    .venv/bin/python - <<'EOF'
from hpc_acceptance.core import system_files
print(' '.join(sorted(system_files.load(path).system['name']
                      for path in system_files.SYSTEMS_DIR.glob('*.py'))))
EOF
}

system=${HPC_ACCEPTANCE_SYSTEM:-}
known=$(known_systems)
if [[ -z $system ]]; then
    say "HPC_ACCEPTANCE_SYSTEM is not set: set it in the recipe that" \
        "started this run to the system this node validates" \
        "(${known:-see config/systems/}; README, \"Running it every" \
        "night\"). Nothing was run."
    exit 2
fi
if [[ -n $known && " $known " != *" $system "* ]]; then
    say "HPC_ACCEPTANCE_SYSTEM=$system is no system of config/systems/" \
        "(known: $known). Nothing was run."
    exit 2
fi

exec ci/acceptance.sh --system "$system" "$@"
