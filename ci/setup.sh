#!/usr/bin/env bash
# Prepares this machine for the acceptance suite:
#  1. the system packages the embedded default system runs with (Debian, as
#     root, through ci/install-packages.sh, which starts and enables no
#     service; otherwise the exact commands are printed), and
#  2. the project's Python environment .venv/ with the pinned ReFrame and this
#     checkout's check machinery (pip install -e), and
#  3. a Spack with spack-envs/local installed (ci/setup-spack.sh), or a
#     message saying why there is none.
# Safe to run again: it installs only what is missing. An administrator
# runs it once, as root, before the night's account runs the nightly
# (ci/README.md, "The night's account"); the night itself installs
# nothing (--verify).
#
# Exit status (ci/README.md, "Exit status"): 6 when a step of its own
# failed, the step and its tool's own status said (apt-get's 100, pip's
# 1, ...), or (--verify) the setup is incomplete, so
# that the scripts that start with it (ci/acceptance.sh, ci/nightly.sh,
# ci/post-upgrade.sh, ci/test.sh) never end with a status that reads as a
# check's. No Spack is no failure: the checks fall back (ci/setup-spack.sh).
#
# Usage: ci/setup.sh [--test] [--list-packages] [--verify]
#                    [--night-account NAME]
#   --test           also the packages only the project's tests use
#                    (ci/test.sh); ci/acceptance.sh and ci/post-upgrade.sh
#                    install what the checks run with, nothing more
#   --list-packages  print the Debian packages this setup makes sure of,
#                    one a line, and do nothing else
#   --verify         install nothing, from the network or elsewhere: say
#                    which Debian packages are missing, stop (exit 6) when
#                    .venv/ is missing or not of pyproject.toml's pins, and
#                    use the Spack an earlier setup recorded as it is (what
#                    ci/nightly.sh runs)
#   --night-account NAME   as root, after the setup: var/ made the
#                    unprivileged account NAME's own (the results, logs,
#                    database and spool of earlier runs with it), 0750,
#                    and the code the night would run checked as
#                    ci/nightly.sh checks it
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# What setup installs is code the night's account runs, and reads: .venv/,
# .spack/ and the tests' npm packages are readable by all, writable by
# their owner alone, whatever the caller's umask (the run's own files are
# private: hpc_acceptance.tools.common.file_modes).
umask 022

say() { echo "setup: $*" >&2; }

#: The status of a setup that could not finish (see the top).
SETUP_FAILED=6

# failed WHAT STATUS: say which step failed with which status, and stop.
failed() {
    say "$1 failed (exit $2): the machine is not set up; nothing was run"
    exit "$SETUP_FAILED"
}

usage="ci/setup.sh [--test] [--list-packages] [--verify]"
usage+=" [--night-account NAME]"
with_tests=false
list_only=false
verify_only=false
night_account=''
while (( $# )); do
    case $1 in
        --test) with_tests=true ;;
        --list-packages) list_only=true ;;
        --verify) verify_only=true ;;
        --night-account)
            night_account=${2:-}
            if [[ -z $night_account || $night_account == -* ]]; then
                say "--night-account needs the account's name (usage: $usage)"
                exit 2
            fi
            shift ;;
        *) say "unknown option $1 (usage: $usage)"
           exit 2 ;;
    esac
    shift
done
if $verify_only && [[ -n $night_account ]]; then
    say "--verify installs nothing and --night-account changes var/: one" \
        "or the other (usage: $usage)"
    exit 2
fi
if [[ -n $night_account ]]; then
    if (( EUID != 0 )); then
        say "--night-account $night_account: only root can give var/ to" \
            "the account; run it as root"
        exit 2
    fi
    if ! id -u -- "$night_account" >/dev/null 2>&1; then
        say "--night-account $night_account: no such account; make it" \
            "first (ci/README.md, \"The night's account\")"
        exit 2
    fi
fi

# What the checks run with: compilers with OpenMP, Open MPI, Debian's HPCC
# and Python's venv module; OpenBLAS is HPCC's BLAS when Spack builds HPCC
# (an external).
packages=(gcc g++ gfortran make libopenmpi-dev openmpi-bin hpcc
          libopenblas-dev python3 python3-venv)

# A Slurm this host already has that is not Debian's package (a site's
# own build) stays the only one: the tests start no Slurm beside it
# (tests/helpers/slurm_cluster.py skips), and Debian's is not installed.
site_slurm() {
    local sinfo
    sinfo=$(command -v sinfo) || return 1
    ! dpkg-query -S "$(readlink -f "$sinfo")" >/dev/null 2>&1
}

# Only for the tests: gdb corrupts a running benchmark's data to see its
# validation fail; Slurm and munge make this machine a one-node cluster,
# and with iproute2's `ip netns` a cluster of nodes in network namespaces;
# headless chromium opens the report page as a person would;
# victoria-metrics is the real time-series store the export is tested
# against (started by the tests on 127.0.0.1, its service left disabled);
# the nightly recipes run as a site runs them: cron's daemon (started by
# the tests in a private mount namespace, its service left disabled),
# systemd's systemd-analyze, and gitlab-ci-local (npm, below), which
# copies with rsync. npm comes with Node.js where Node.js is not Debian's
# (NodeSource's nodejs provides npm and conflicts with Debian's).
if $with_tests; then
    packages+=(gdb iproute2 chromium victoria-metrics cron systemd rsync)
    command -v npm >/dev/null || packages+=(npm)
    if site_slurm; then
        say "this host has a Slurm that is not Debian's ($(command -v sinfo)):" \
            "not installing slurm-wlm and munge; the Slurm tests skip"
    else
        packages+=(slurm-wlm munge)
    fi
fi

if $list_only; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

missing_packages() {
    local pkg
    for pkg in "${packages[@]}"; do
        dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null |
            grep -q '^install ok installed$' || echo "$pkg"
    done
}

install_system_packages() {
    if [[ ! -f /etc/debian_version ]]; then
        echo "setup: not a Debian system; install the equivalents of:" >&2
        echo "  ${packages[*]}" >&2
        echo "  (or provide them through modules/Spack and the configuration)" >&2
        return
    fi

    local missing
    mapfile -t missing < <(missing_packages)
    if (( ${#missing[@]} == 0 )); then
        return
    fi

    if (( EUID != 0 )) || $verify_only; then
        echo "setup: missing system packages; run as root (apt-get, with no" \
             "service started or enabled):" >&2
        echo "  ci/install-packages.sh ${missing[*]}" >&2
        return
    fi

    echo "setup: installing ${missing[*]}"
    ci/install-packages.sh "${missing[@]}" ||
        failed "installing Debian packages (ci/install-packages.sh ${missing[*]})" $?
}

# Whether this account can run .venv/'s Python (a venv made with a Python
# under root's home, pyenv's, cannot be run by the night's account).
runs_here() {
    .venv/bin/python -c '' 2>/dev/null
}

install_python_env() {
    # Reinstall when pyproject.toml (the pins) changed since the last run.
    local stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
    if [[ -x .venv/bin/reframe && -f "$stamp" ]]; then
        runs_here && return
        say ".venv/bin/python ($(readlink -f .venv/bin/python)) cannot be" \
            "run by $(id -un): the setup made .venv/ with a Python in a" \
            "folder only its maker may enter. Remove .venv/ and set up" \
            "again (as root: ci/setup.sh) with a python3 every account" \
            "can run (Debian's /usr/bin/python3 first on PATH)."
        exit "$SETUP_FAILED"
    fi

    if $verify_only; then
        say ".venv/ is missing or not of pyproject.toml's pins, and this" \
            "setup installs nothing (--verify: the night's). An" \
            "administrator sets the node up: ci/setup.sh, as root" \
            "(ci/README.md, \"The night's account\"). Nothing was run."
        exit "$SETUP_FAILED"
    fi

    echo "setup: creating .venv with the pinned ReFrame"
    # The pip of Python's venv (Debian 12: pip 23.0.1) installs the pins;
    # no unpinned pip from the network.
    python3 -m venv .venv || failed "creating .venv (python3 -m venv)" $?
    .venv/bin/python -m pip install -q -e '.[test]' ||
        failed "installing ReFrame and this checkout into .venv (pip)" $?
    rm -f .venv/.installed-*
    touch "$stamp"
}

# The npm packages the tests use, pinned with all they depend on in
# ci/npm/package-lock.json, into ci/npm/node_modules/; again when the lock
# changed.
install_test_tools() {
    local stamp
    stamp="ci/npm/node_modules/.installed-$(sha256sum ci/npm/package-lock.json | cut -c1-16)"
    [[ -f $stamp ]] && return
    if ! command -v npm >/dev/null; then
        say "no npm: the GitLab recipe's test skips (ci/install-packages.sh npm)"
        return
    fi
    echo "setup: installing the tests' npm packages (ci/npm/)"
    npm ci --prefix ci/npm --no-audit --no-fund --loglevel=error ||
        failed "installing the tests' npm packages (npm ci --prefix ci/npm)" $?
    touch "$stamp"
}

# var/ the night account's own, the code the night runs checked.
give_var_to_night_account() {
    local group
    group=$(id -gn -- "$night_account")
    # its folders' modes too: the run's umask makes the new ones 0750
    mkdir -p var
    chown -R -- "$night_account:$group" var
    chmod -R o-rwx var
    chmod 0750 var
    echo "setup: var/ is $night_account's (group $group, 0750): its" \
         "results, logs, database and spool"
    # what the night will ask first, asked as the account now
    runuser -u "$night_account" -- bash -c \
        'project_dir=$1; . ci/trusted-code.sh; require_trusted_code setup' \
        _ "$project_dir" || failed "checking the code the night runs" $?
    if ! runuser -u "$night_account" -- .venv/bin/python -c ''; then
        say ".venv/bin/python ($(readlink -f .venv/bin/python)) cannot be" \
            "run by $night_account: remove .venv/ and set up again with a" \
            "python3 every account can run (Debian's /usr/bin/python3" \
            "first on PATH)"
        exit "$SETUP_FAILED"
    fi
}

install_system_packages
install_python_env
if $with_tests && ! $verify_only; then
    install_test_tools
fi
if $verify_only; then
    ci/setup-spack.sh --verify
else
    ci/setup-spack.sh
fi
if [[ -n $night_account ]]; then
    give_var_to_night_account
fi
echo "setup: done ($(.venv/bin/reframe --version | head -1), $(.venv/bin/python --version))"
