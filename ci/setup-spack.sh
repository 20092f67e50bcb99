#!/usr/bin/env bash
# Prepares a Spack for the project and installs a Spack environment with it
# (called by ci/setup.sh). The Spack is, in this order:
#  1. `spack` already on PATH;
#  2. the Spack checkout named by SPACK_ROOT;
#  3. the offline kit named by HPC_ACCEPTANCE_SPACK_KIT (the layout of
#     ../shared/spack-offline: spack.tar.gz, spack-packages.tar.gz and a
#     source mirror in mirror/), unpacked into the Spack directory, or
#     the kit an earlier setup unpacked there (recorded in its kit.path),
#     so that a later setup without the variable (ci/acceptance.sh, the
#     bench scripts) keeps the same Spack and its install tree;
#  4. a pinned Spack and spack-packages cloned from GitHub into it (never
#     over a Spack directory unpacked from a kit).
# For 3 and 4 clingo comes from PyPI, so Spack bootstraps nothing, and the
# configuration lives in the Spack directory (never ~/.spack).
# Then it registers the machine's compilers, Open MPI, make and OpenBLAS as
# externals and installs the environment; a package that fails is reported
# and the others stay installed.
#
# Success is recorded in <Spack directory>/setup.json, which
# config/systems/local.py reads: the local partition uses the environment
# exactly when that file exists. When no Spack can be had, this says why,
# removes the record and exits 0: the checks then fall back as without Spack.
#
# Settings (environment variables):
#   HPC_ACCEPTANCE_SPACK=off        skip all of this
#   HPC_ACCEPTANCE_SPACK_DIR=DIR    the Spack directory (default .spack/)
#   HPC_ACCEPTANCE_SPACK_ENV=DIR    environment to install, relative to the
#                                   checkout (default spack-envs/local)
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# The clone's pins: the commits the offline kit was made from.
spack_url=https://github.com/spack/spack.git
spack_commit=9cf66332df3dd988248617fc93400045be59ebab
packages_url=https://github.com/spack/spack-packages.git
packages_commit=1e8cf059e35d55c4fe1142fed41785bedf6c7246

spack_dir=$(mkdir -p "${HPC_ACCEPTANCE_SPACK_DIR:-.spack}" &&
            cd "${HPC_ACCEPTANCE_SPACK_DIR:-.spack}" && pwd)
environment=${HPC_ACCEPTANCE_SPACK_ENV:-spack-envs/local}
record=$spack_dir/setup.json
install_opts=()

say() { echo "setup: spack: $*"; }

# Spack 1.x with the builtin repository at $spack_dir/spack-packages and
# clingo from PyPI; the user scope is $spack_dir/user.
use_private_spack() {
    if [[ ! -x $spack_dir/py/bin/python ]] ||
       ! "$spack_dir/py/bin/python" -c 'import clingo' 2>/dev/null; then
        python3 -m venv "$spack_dir/py"
        "$spack_dir/py/bin/pip" install -q clingo || return 1
    fi
    export SPACK_PYTHON=$spack_dir/py/bin/python
    export SPACK_USER_CONFIG_PATH=$spack_dir/user
    mkdir -p "$SPACK_USER_CONFIG_PATH"
    # Two colons: replace the default entry, a git clone from GitHub.
    printf 'repos::\n  builtin: %s\n' \
        "$spack_dir/spack-packages/repos/spack_repo/builtin" \
        > "$SPACK_USER_CONFIG_PATH/repos.yaml"
    spack_bin=$spack_dir/spack/bin
    "$spack_bin/spack" bootstrap disable
}

from_kit() {
    local kit=$1 key
    [[ -f $kit/spack.tar.gz && -f $kit/spack-packages.tar.gz &&
       -d $kit/mirror ]] || {
        say "HPC_ACCEPTANCE_SPACK_KIT=$kit lacks spack.tar.gz," \
            "spack-packages.tar.gz or mirror/"
        return 1
    }
    # Unpack again only when the kit's archives changed (or the unpacked
    # Spack is gone).
    key=$(cat "$kit/spack.tar.gz" "$kit/spack-packages.tar.gz" |
          sha256sum | cut -c1-16)
    if [[ ! -f $spack_dir/.kit-$key || ! -x $spack_dir/spack/bin/spack ]]; then
        say "unpacking the offline kit $kit"
        rm -rf "$spack_dir/spack/lib" "$spack_dir/spack-packages" \
            "$spack_dir"/.kit-*
        tar -xzf "$kit/spack.tar.gz" -C "$spack_dir"
        tar -xzf "$kit/spack-packages.tar.gz" -C "$spack_dir"
        touch "$spack_dir/.kit-$key"
    fi
    use_private_spack || return 1
    (cd "$kit" && pwd) > "$spack_dir/kit.path"
    # Sources only: no binary index to look for.
    "$spack_bin/spack" mirror add --scope user --type source offline \
        "file://$(cd "$kit" && pwd)/mirror" 2>/dev/null ||
        "$spack_bin/spack" mirror set-url --scope user offline \
        "file://$(cd "$kit" && pwd)/mirror"
    # The kit's NPB source is NPB 3.4 stored under 3.4.3's checksum path
    # (see the kit's README): it installs only without checksums.
    install_opts+=(--no-checksum)
}

clone_at() {
    local url=$1 commit=$2 dest=$3
    [[ -d $dest/.git ]] && return
    git init -q "$dest" &&
        timeout 120 git -C "$dest" fetch -q --depth 1 "$url" "$commit" &&
        git -C "$dest" checkout -q FETCH_HEAD
}

from_clone() {
    local dir
    for dir in "$spack_dir/spack" "$spack_dir/spack-packages"; do
        if [[ -e $dir && ! -d $dir/.git ]]; then
            say "$dir is not a git clone (unpacked from an offline kit?):" \
                "set HPC_ACCEPTANCE_SPACK_KIT to that kit; $dir is left as it is"
            return 1
        fi
    done
    say "cloning Spack $spack_commit and spack-packages $packages_commit"
    if ! clone_at "$spack_url" "$spack_commit" "$spack_dir/spack" ||
       ! clone_at "$packages_url" "$packages_commit" \
            "$spack_dir/spack-packages"; then
        rm -rf "$spack_dir/spack" "$spack_dir/spack-packages"
        say "cannot clone from GitHub (no network?)"
        return 1
    fi
    use_private_spack
}

locate_spack() {
    if command -v spack >/dev/null; then
        spack_bin=$(dirname "$(command -v spack)")
        say "using $spack_bin/spack (on PATH)"
    elif [[ -n ${SPACK_ROOT:-} ]]; then
        [[ -x $SPACK_ROOT/bin/spack ]] || {
            say "SPACK_ROOT=$SPACK_ROOT has no bin/spack"
            return 1
        }
        spack_bin=$SPACK_ROOT/bin
        say "using $spack_bin/spack (SPACK_ROOT)"
    elif [[ -n ${HPC_ACCEPTANCE_SPACK_KIT:-} ]]; then
        from_kit "$HPC_ACCEPTANCE_SPACK_KIT"
    elif [[ -f $spack_dir/kit.path ]]; then
        say "using the offline kit of the last setup, $(cat "$spack_dir/kit.path")"
        from_kit "$(cat "$spack_dir/kit.path")"
    else
        from_clone
    fi
}

# OpenBLAS as Debian installs it (libopenblas-dev); `spack external find`
# does not detect it.
openblas_external() {
    local version
    version=$(dpkg-query -W -f='${Version}' libopenblas-dev 2>/dev/null) ||
        return 0
    version=${version%%[+-]*}
    [[ -n $version ]] || return 0
    cat <<EOF
  openblas:
    externals:
    - spec: openblas@$version
      prefix: /usr
    buildable: false
EOF
}

register_externals() {
    local packages_yaml
    # Where gcc is: searching all of PATH takes minutes on a loaded node.
    spack compiler find "$(dirname "$(command -v gcc)")" >/dev/null
    spack external find --not-buildable openmpi gmake >/dev/null
    packages_yaml=${SPACK_USER_CONFIG_PATH:-$HOME/.spack}/packages.yaml
    if ! grep -q '^  openblas:' "$packages_yaml" 2>/dev/null; then
        [[ -f $packages_yaml ]] || echo 'packages:' > "$packages_yaml"
        openblas_external >> "$packages_yaml"
    fi
}

# The environment's concretization depends on its files and the externals;
# concretize again when one of them changed.
concretize() {
    local key
    # Sorted: `spack external find` rewrites packages.yaml in its own order.
    key=$(cat "$environment"/spack.yaml "$environment"/../common.yaml \
          "${SPACK_USER_CONFIG_PATH:-$HOME/.spack}"/packages.yaml \
          2>/dev/null | sort | sha256sum | cut -c1-16)
    if [[ -f $environment/spack.lock &&
          -f $spack_dir/.concretized-$key ]]; then
        return
    fi
    say "concretizing $environment (minutes)"
    spack -e "$environment" concretize -f > "$spack_dir/concretize.log"
    rm -f "$spack_dir"/.concretized-*
    touch "$spack_dir/.concretized-$key"
}

write_record() {
    "${SPACK_PYTHON:-python3}" - "$record" <<EOF
import json, os, sys
names = ('SPACK_PYTHON', 'SPACK_USER_CONFIG_PATH')
json.dump({
    'spack_bin': '$spack_bin',
    'environment': '$environment',
    'install_opts': '${install_opts[*]}'.split(),
    'env_vars': {n: os.environ[n] for n in names if n in os.environ},
}, open(sys.argv[1], 'w'), indent=1)
EOF
}

main() {
    rm -f "$record"
    if [[ ${HPC_ACCEPTANCE_SPACK:-} == off ]]; then
        say "skipped (HPC_ACCEPTANCE_SPACK=off)"
        return
    fi
    if ! locate_spack; then
        say "no Spack: the checks use modules, PATH and in-tree builds." \
            "To build with Spack put spack on PATH, set SPACK_ROOT or" \
            "HPC_ACCEPTANCE_SPACK_KIT, or allow access to GitHub"
        return
    fi
    export PATH=$spack_bin:$PATH
    register_externals
    if ! concretize; then
        say "concretizing $environment failed" \
            "(see $spack_dir/concretize.log); continuing without Spack"
        return
    fi
    write_record
    say "installing $environment (log: $spack_dir/install.log)"
    # Spack goes on past a package that fails (unless --fail-fast): the
    # others install, and the checks that need it fail with its error
    # (core/spack.py).
    if ! spack -e "$environment" install "${install_opts[@]}" \
            > "$spack_dir/install.log" 2>&1; then
        say "some packages failed to install; their checks will fail:"
        grep -E '^==> Error' "$spack_dir/install.log" | sed 's/^/  /' |
            tail -20
    fi
}

main
