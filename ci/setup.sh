#!/usr/bin/env bash
# Prepares this machine for the acceptance suite:
#  1. the system packages the embedded default system runs with (Debian, as
#     root, through ci/install-packages.sh, which starts and enables no
#     service; otherwise the exact commands are printed), and
#  2. the project's Python environment .venv/ with the pinned ReFrame and this
#     checkout's check machinery (pip install -e), and
#  3. a Spack with spack-envs/local installed (ci/setup-spack.sh), or a
#     message saying why there is none.
# Safe to run again: it installs only what is missing.
#
# Exit status: 0 ready; 2 a wrong option; 6 a step of its own failed, the
# step and its tool's own status said (apt-get's 100, pip's 1, ...), so
# that the scripts that start with it (ci/acceptance.sh, ci/nightly.sh,
# ci/post-upgrade.sh, ci/test.sh) never end with a status that reads as a
# check's. No Spack is no failure: the checks fall back (ci/setup-spack.sh).
#
# Usage: ci/setup.sh [--test] [--list-packages]
#   --test           also the packages only the project's tests use
#                    (ci/test.sh); ci/acceptance.sh and ci/post-upgrade.sh
#                    install what the checks run with, nothing more
#   --list-packages  print the Debian packages this setup makes sure of,
#                    one a line, and do nothing else
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

say() { echo "setup: $*" >&2; }

#: The status of a setup that could not finish (see the top).
SETUP_FAILED=6

# failed WHAT STATUS: say which step failed with which status, and stop.
failed() {
    say "$1 failed (exit $2): the machine is not set up; nothing was run"
    exit "$SETUP_FAILED"
}

with_tests=false
list_only=false
for arg in "$@"; do
    case $arg in
        --test) with_tests=true ;;
        --list-packages) list_only=true ;;
        *) say "unknown option $arg (usage: ci/setup.sh [--test]" \
               "[--list-packages])"
           exit 2 ;;
    esac
done

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

    if (( EUID != 0 )); then
        echo "setup: missing system packages; run as root (apt-get, with no" \
             "service started or enabled):" >&2
        echo "  ci/install-packages.sh ${missing[*]}" >&2
        return
    fi

    echo "setup: installing ${missing[*]}"
    ci/install-packages.sh "${missing[@]}" ||
        failed "installing Debian packages (ci/install-packages.sh ${missing[*]})" $?
}

install_python_env() {
    # Reinstall when pyproject.toml (the pins) changed since the last run.
    local stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
    if [[ -x .venv/bin/reframe && -f "$stamp" ]]; then
        return
    fi

    echo "setup: creating .venv with the pinned ReFrame"
    python3 -m venv .venv || failed "creating .venv (python3 -m venv)" $?
    .venv/bin/python -m pip install -q --upgrade pip ||
        failed "upgrading pip in .venv" $?
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

install_system_packages
install_python_env
if $with_tests; then
    install_test_tools
fi
ci/setup-spack.sh
echo "setup: done ($(.venv/bin/reframe --version | head -1), $(.venv/bin/python --version))"
