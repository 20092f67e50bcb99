#!/usr/bin/env bash
# Prepares this machine for the acceptance suite and its tests:
#  1. the system packages the embedded default system needs (Debian, as root;
#     otherwise the exact commands are printed), and
#  2. the project's Python environment .venv/ with the pinned ReFrame and this
#     checkout's check machinery (pip install -e), and
#  3. a Spack with spack-envs/local installed (ci/setup-spack.sh), or a
#     message saying why there is none.
# Safe to run again: it installs only what is missing.
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# Compilers with OpenMP, Open MPI, Debian's HPCC and Python's venv module;
# OpenBLAS is HPCC's BLAS when Spack builds HPCC (an external).
# For the tests: gdb corrupts a running benchmark's data to see its
# validation fail; Slurm and munge make this machine a one-node cluster,
# and with iproute2's `ip netns` a cluster of nodes in network namespaces;
# headless chromium opens the report page as a person would.
packages=(gcc g++ gfortran make libopenmpi-dev openmpi-bin hpcc
          libopenblas-dev python3 python3-venv gdb slurm-wlm munge iproute2
          chromium)

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
        echo "setup: missing system packages; run as root:" >&2
        echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
        return
    fi

    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${missing[@]}"
}

install_python_env() {
    # Reinstall when pyproject.toml (the pins) changed since the last run.
    local stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
    if [[ -x .venv/bin/reframe && -f "$stamp" ]]; then
        return
    fi

    echo "setup: creating .venv with the pinned ReFrame"
    python3 -m venv .venv
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[test]'
    rm -f .venv/.installed-*
    touch "$stamp"
}

install_system_packages
install_python_env
ci/setup-spack.sh
echo "setup: done ($(.venv/bin/reframe --version | head -1), $(.venv/bin/python --version))"
