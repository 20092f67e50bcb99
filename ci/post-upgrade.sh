#!/usr/bin/env bash
# Post-upgrade validation, in three steps:
#
#   ci/post-upgrade.sh --before [OPTIONS] [REFRAME ARGS...]   # the baseline
#   ... the upgrade (firmware, kernel, compiler, MPI, BIOS) ...
#   ci/post-upgrade.sh [OPTIONS] [REFRAME ARGS...]            # the verdict
#
# Each runs the post-upgrade set (every check and variant) through ReFrame.
# --before stores it as the baseline (several --before runs, a week apart
# at most, make the band better). Without it, every figure is compared
# with the latest --before runs, or where a figure has none with the
# nightly runs of the same work (fleet runs left out), and gets a verdict
# (missing after the upgrade / regressed / no baseline / within noise on
# rerun / improved / within noise); the table, what changed since the
# baseline (kernel, BIOS, MPI, compiler, binaries) and its JSON copy next
# to the run report, then the verdict in one line.
#
# The system is named, not guessed, as in ci/nightly.sh: --system NAME
# among the reframe arguments, else HPC_ACCEPTANCE_SYSTEM; neither, or a
# name no system file has, stops it before anything runs (exit 2), as does
# an HPC_ACCEPTANCE_SITE_DIR that names no directory (ci/named-system.sh).
#
# Options (before the reframe arguments): --fleet[=STATE] every node,
# each compared with its own --before figures; --reservation NAME;
# --max-jobs N (as ci/acceptance.sh); --baseline QUERY the nightly
# sessions compared with where a figure has no --before run, as ReFrame's
# --describe-stored-testcases takes them (default: the nightly sessions
# of the last 30 days); --min-runs N the baseline runs a figure needs for the band
# its own runs show (default 3; fewer: the family's minimum band);
# --floor "FAMILY=F ..." the system's own minimum bands learnt from its
# quiet repeats (e.g. "Memory=0.5"); --no-confirm no rerun of a check
# whose figure fell outside its band. POST_UPGRADE_BASELINE and
# NOISE_FLOORS set --baseline and --floor too (the option wins).
#
# Exit status: ci/README.md, "Exit status" (the one table). The results
# database is checked and backed up before the run, as an acceptance
# run's is.
set -euo pipefail

usage() {
    sed -n '/^#   ci/,/^#   ci.*verdict/p' "$0" | sed 's/^#//' >&2
    exit 2
}

own_options=()
while (( $# )); do
    case $1 in
        --before|--fleet|--fleet=?*|--reservation=?*|--max-jobs=?*| \
        --baseline=?*|--min-runs=?*|--floor=?*|--no-confirm)
            own_options+=("$1") ;;
        --reservation|--max-jobs|--baseline|--min-runs|--floor)
            (( $# > 1 )) || usage
            own_options+=("$1=$2"); shift ;;
        *) break ;;
    esac
    shift
done

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# The system the reframe arguments name, else HPC_ACCEPTANCE_SYSTEM's,
# which is then passed on.
system=
shown=
args=("$@")
for (( i = 0; i < ${#args[@]}; i++ )); do
    case ${args[i]} in
        --system=*) system=${args[i]#--system=} shown="--system $system" ;;
        --system) system=${args[i + 1]:-} shown="--system $system" ;;
        --) break ;;
    esac
done
if [[ -z $shown && -n ${HPC_ACCEPTANCE_SYSTEM:-} ]]; then
    system=$HPC_ACCEPTANCE_SYSTEM shown="HPC_ACCEPTANCE_SYSTEM=$system"
    set -- "$@" --system "$system"
fi
# shellcheck source=ci/named-system.sh
. ci/named-system.sh
require_system post-upgrade "$system" "$shown" \
    "no system named: give --system NAME (or set HPC_ACCEPTANCE_SYSTEM)" \
    'reference/README.md, "Post-upgrade verdict"'
require_site_dir post-upgrade

if [ -z "${HPC_ACCEPTANCE_LOCK_HELD:-}" ]; then
    exec env PYTHONPATH=checks python3 -m hpc_acceptance.tools.launch.lock \
        ${HPC_ACCEPTANCE_WAIT:+--wait} -- "$0" "${own_options[@]}" "$@"
fi

ci/setup.sh
# the environment's settings first: an option given wins
exec .venv/bin/hpc-acceptance post-upgrade \
    ${POST_UPGRADE_BASELINE:+--baseline "$POST_UPGRADE_BASELINE"} \
    ${NOISE_FLOORS:+--floor "$NOISE_FLOORS"} "${own_options[@]}" -- "$@"
