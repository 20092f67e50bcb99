#!/usr/bin/env bash
# The nightly acceptance run that the recipes in ci/systemd/, ci/cron/ and
# ci/gitlab/ start: ci/acceptance.sh --system "$HPC_ACCEPTANCE_SYSTEM".
#
# The system is named, not guessed: ReFrame picks a system by host name,
# and the embedded default `local` matches every host, so on a cluster
# whose host-name pattern is wrong an unattended run would validate the
# node as `local`, against no references, and pass. An unset, empty or
# unknown HPC_ACCEPTANCE_SYSTEM therefore stops here (exit 2) naming the
# systems of config/systems/ and of the site directory. Extra arguments go
# to ci/acceptance.sh (its own options first: --fleet for a fleet run).
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

say() { echo "nightly: $*" >&2; }

# The names in config/systems/*.py and the site directory's systems/, read
# with the standard library alone: an unknown system is refused before the
# setup, also on a fresh checkout. "?" is a system file whose name is
# computed: then any name is let through to ReFrame, which refuses an
# unknown --system before any check.
known_systems() {
    PYTHONPATH=checks python3 -m hpc_acceptance.core.system_names \
        config/systems \
        ${HPC_ACCEPTANCE_SITE_DIR:+"$HPC_ACCEPTANCE_SITE_DIR/systems"} |
        tr '\n' ' '
}

system=${HPC_ACCEPTANCE_SYSTEM:-}
known=$(known_systems)
known=${known% }
if [[ -z $system ]]; then
    say "HPC_ACCEPTANCE_SYSTEM is not set: set it in the recipe that" \
        "started this run to the system this node validates" \
        "(${known:-see config/systems/}; ci/README.md, \"Running it" \
        "every night\"). Nothing was run."
    exit 2
fi
if [[ " $known " != *" ? "* && " $known " != *" $system "* ]]; then
    say "HPC_ACCEPTANCE_SYSTEM=$system is no system of" \
        "config/systems/${HPC_ACCEPTANCE_SITE_DIR:+ or $HPC_ACCEPTANCE_SITE_DIR/systems/}" \
        "(known: $known). Nothing was run."
    exit 2
fi

exec ci/acceptance.sh "$@" --system "$system"
