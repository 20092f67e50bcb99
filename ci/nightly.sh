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
# cannot be written is said where the caller sees it (cron's mail).
#
# The other arguments go to ci/acceptance.sh (its own options first:
# --fleet for a fleet run), after the words of ACCEPTANCE_ARGS, where a
# recipe sets them (split at blanks: e.g. "--fleet -n Stream").
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

if [[ ${1:-} == --log ]]; then
    log=${2:?nightly: --log needs a file}
    shift 2
    mkdir -p "$(dirname "$log")"
    exec >"$log" 2>&1
fi

# shellcheck source=ci/named-system.sh
. ci/named-system.sh

system=${HPC_ACCEPTANCE_SYSTEM:-}
missing="HPC_ACCEPTANCE_SYSTEM is not set: set it in the recipe that"
missing+=" started this run to the system this node validates"
require_system nightly "$system" "HPC_ACCEPTANCE_SYSTEM=$system" "$missing" \
    'ci/README.md, "Running it every night"'
require_site_dir nightly

read -ra recipe_args <<< "${ACCEPTANCE_ARGS:-}"
exec ci/acceptance.sh "${recipe_args[@]}" "$@" --system "$system"
