#!/usr/bin/env bash
# The nightly acceptance run that the recipes in ci/systemd/, ci/cron/ and
# ci/gitlab/ start: ci/acceptance.sh --system "$HPC_ACCEPTANCE_SYSTEM".
#
#   ci/nightly.sh [--log FILE] [ci/acceptance.sh OPTIONS] [REFRAME ARGS...]
#
# Before anything runs, the setup included, also on a checkout that never
# ran (ci/named-system.sh): an unset, empty or unknown HPC_ACCEPTANCE_SYSTEM
# stops here (exit 2) naming the systems of config/systems/ and of the site
# directory, and so does an HPC_ACCEPTANCE_SITE_DIR that names no
# directory; the site directory used, and whether its export.yaml sends
# the figures to the site's store, is said first.
#
# --log FILE: everything the run says goes to FILE (its folder made first,
# as var/ on a fresh checkout): a cron line's redirect into var/ fails on
# a checkout that never ran, before the run starts. Only a FILE that
# cannot be written is said where the caller sees it (cron's mail). A FILE
# an earlier night wrote is kept beside it, renamed with its time
# (var/nightly.log -> var/nightly-20261124T023012Z.log).
#
# The night runs without root (ci/README.md, "The night's account"): as
# root it refuses (exit 2) unless HPC_ACCEPTANCE_NIGHT_AS_ROOT=1, where a
# site insists (Open MPI is then told to run as root); it refuses too
# (exit 2), naming them, when code it would run can be changed by others
# than root and its own account (ci/trusted-code.sh). It installs nothing:
# the setup only verifies what an administrator set up once
# (HPC_ACCEPTANCE_SETUP=verify; the setup exits 6 naming what is missing),
# unless the recipe sets HPC_ACCEPTANCE_SETUP=install. What it writes is
# its own and its group's (umask 0027 at least).
#
# The other arguments go to ci/acceptance.sh (its own options first:
# --fleet for a fleet run), after the words of ACCEPTANCE_ARGS, where a
# recipe sets them (split at blanks: e.g. "--fleet -n Stream").
#
# Exit status: ci/README.md, "Exit status" (the one table).
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# what the night writes, its log first: no one else's to read
umask "$(printf '%04o' $(( 8#$(umask) | 8#027 )))"

if [[ ${1:-} == --log ]]; then
    log=${2:?nightly: --log needs a file}
    shift 2
    mkdir -p "$(dirname "$log")"
    # the night before's log is kept, named by its time: a failed night's
    # log survives the nights after it
    if [[ -s $log ]]; then
        base=${log%.log}
        mv -f "$log" "$base-$(date -u -r "$log" +%Y%m%dT%H%M%SZ)${log#"$base"}"
    fi
    exec >"$log" 2>&1
fi

# shellcheck source=ci/named-system.sh
. ci/named-system.sh
# shellcheck source=ci/trusted-code.sh
. ci/trusted-code.sh

system=${HPC_ACCEPTANCE_SYSTEM:-}
missing="HPC_ACCEPTANCE_SYSTEM is not set: set it in the recipe that"
missing+=" started this run to the system this node validates"
require_system nightly "$system" "HPC_ACCEPTANCE_SYSTEM=$system" "$missing" \
    'ci/README.md, "Running it every night"'
require_site_dir nightly

if (( EUID == 0 )) && [[ ${HPC_ACCEPTANCE_NIGHT_AS_ROOT:-} != 1 ]]; then
    echo "nightly: runs as root: the night runs as an unprivileged account" \
         "that owns only var/ (ci/README.md, \"The night's account\"):" \
         "set User= in the systemd unit, the cron line's user, or the" \
         "GitLab runner's; where a site insists on root," \
         "HPC_ACCEPTANCE_NIGHT_AS_ROOT=1. Nothing was run." >&2
    exit 2
fi
require_trusted_code nightly

case ${HPC_ACCEPTANCE_SETUP:=verify} in
    verify | install) export HPC_ACCEPTANCE_SETUP ;;
    *) echo "nightly: HPC_ACCEPTANCE_SETUP=$HPC_ACCEPTANCE_SETUP: verify" \
            "(the night's default) or install. Nothing was run." >&2
       exit 2 ;;
esac

read -ra recipe_args <<< "${ACCEPTANCE_ARGS:-}"
exec ci/acceptance.sh "${recipe_args[@]}" "$@" --system "$system"
