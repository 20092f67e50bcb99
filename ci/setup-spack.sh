#!/usr/bin/env bash
# Prepares a Spack for the project and installs a Spack environment with it
# (called by ci/setup.sh). The first setup takes, in this order:
#  1. `spack` already on PATH;
#  2. the Spack checkout named by SPACK_ROOT;
#  3. the offline kit named by HPC_ACCEPTANCE_SPACK_KIT (the layout of
#     ../shared/spack-offline: spack.tar.gz, spack-packages.tar.gz and a
#     source mirror in mirror/), unpacked into the Spack directory;
#  4. a pinned Spack and spack-packages cloned from GitHub into it.
# For 3 and 4 clingo comes from PyPI, so Spack bootstraps nothing, and the
# configuration and caches live in the Spack directory (never ~/.spack).
# Then it registers the machine's compilers, Open MPI, make and OpenBLAS as
# externals and installs the environment; a package that fails is reported
# and the others stay installed. The externals go into a configuration
# scope the project owns: for 3 and 4 the Spack directory's own user scope,
# for 1 and 2 the scope setup-externals that the environment includes (a
# directory beside its spack.yaml), never the user's scope (~/.spack,
# SPACK_USER_CONFIG_PATH) or the site's, so that what that Spack builds
# elsewhere stays as its users and site configured it.
#
# The Spack it prepared is recorded in <Spack directory>/setup.json, which
# config/systems/local.py reads, and later setups use that one again
# without any variable. A variable naming another Spack is reported and
# ignored unless HPC_ACCEPTANCE_SPACK_REPLACE=1 says to switch. Setup never
# deletes what an earlier run made: it unpacks and clones into
# .partial-* directories and renames them into place only when complete,
# refuses to put a Spack where another one is, and an interrupted setup
# (Ctrl-C, kill) is completed by the next one, which installs only what is
# missing. When the recorded Spack cannot be used this run, the record says
# why ("problem"), the checks fall back as without Spack, and
# ci/acceptance.sh reports the change. Always exits 0.
#
# --verify (the night's, through ci/setup.sh --verify): installs and
# writes nothing, fetches nothing: says which Spack the record names and
# why it cannot be used, if it cannot; the checks then use it as it is
# (core/spack.py installs nothing either).
#
# Settings (environment variables):
#   HPC_ACCEPTANCE_SPACK=off        skip all of this; the run uses no Spack
#   HPC_ACCEPTANCE_SPACK_DIR=DIR    the Spack directory (default .spack/)
#   HPC_ACCEPTANCE_SPACK_ENV=DIR    environment to install, relative to the
#                                   checkout (default spack-envs/local)
#   HPC_ACCEPTANCE_SPACK_REPLACE=1  replace the recorded Spack by the one
#                                   PATH, SPACK_ROOT or the kit names
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# The clone's pins: the commits the offline kit was made from.
spack_url=https://github.com/spack/spack.git
spack_commit=9cf66332df3dd988248617fc93400045be59ebab
packages_url=https://github.com/spack/spack-packages.git
packages_commit=1e8cf059e35d55c4fe1142fed41785bedf6c7246
# Spack's solver, from PyPI: pinned, as the Spack it serves
clingo_version=5.8.3

say() { echo "setup: spack: $*"; }

# The night's: what was set up, said; nothing written, nothing installed.
verify_only() {
    local record=${HPC_ACCEPTANCE_SPACK_DIR:-.spack}/setup.json
    if [[ ${HPC_ACCEPTANCE_SPACK:-} == off ]]; then
        say "skipped (HPC_ACCEPTANCE_SPACK=off): this run uses no Spack"
    elif [[ ! -f $record ]]; then
        say "none set up ($record): the checks use modules, PATH and" \
            "in-tree builds; an administrator sets one up with ci/setup.sh"
    else
        python3 - "$record" <<'EOF'
import json, sys
record = json.load(open(sys.argv[1]))
said = (f"{record.get('spack_bin')}/spack and {record.get('environment')}, "
        f"prepared {record.get('prepared')}; the night installs nothing")
if record.get('problem'):
    said += (f"; unusable since {record.get('problem_since')}: "
             f"{record['problem']} (the checks do not use Spack)")
print(f'setup: spack: {said}')
EOF
    fi
}

if [[ ${1:-} == --verify ]]; then
    verify_only
    exit 0
fi

spack_dir=$(mkdir -p "${HPC_ACCEPTANCE_SPACK_DIR:-.spack}" &&
            cd "${HPC_ACCEPTANCE_SPACK_DIR:-.spack}" && pwd)
environment=${HPC_ACCEPTANCE_SPACK_ENV:-spack-envs/local}
record=$spack_dir/setup.json

# One setup per Spack directory at a time (ci/test.sh and ci/acceptance.sh
# in one checkout, test runs sharing a cache): the second waits, and never
# takes the first one's unfinished directories for an interrupted setup's.
exec {setup_lock}>"$spack_dir/.setup.lock"
if ! flock -n "$setup_lock"; then
    say "waiting for another setup of $spack_dir"
    flock "$setup_lock"
fi
install_opts=()
# The configuration scope setup registers externals in (see the top).
externals_scope=setup-externals
# What is being prepared: source (path, SPACK_ROOT, kit, clone), origin
# (the directory or the pins) and, for a kit, its archives' key.
source_kind='' source_origin='' source_key='' spack_bin='' replacing=false

# A field of the record; empty when there is no record or no such field.
recorded() {
    [[ -f $record ]] || return 0
    python3 - "$record" "$1" <<'EOF'
import json, sys
value = json.load(open(sys.argv[1])).get(sys.argv[2], '')
print(' '.join(value) if isinstance(value, list) else value)
EOF
}

describe() {
    local kind=$1 origin=$2 key=$3
    case $kind in
        path) echo "the spack on PATH ($origin/spack)" ;;
        SPACK_ROOT) echo "SPACK_ROOT=$origin" ;;
        kit) echo "the offline kit $origin${key:+ (archives $key)}" ;;
        clone) echo "the clone of $origin" ;;
        *) echo "the Spack recorded in $record" ;;
    esac
}

kit_key() {
    cat "$1/spack.tar.gz" "$1/spack-packages.tar.gz" | sha256sum | cut -c1-16
}

# What this run's environment names, if anything (sets source_*).
requested_source() {
    if command -v spack >/dev/null; then
        source_kind=path
        source_origin=$(cd "$(dirname "$(command -v spack)")" && pwd)
    elif [[ -n ${SPACK_ROOT:-} ]]; then
        source_kind=SPACK_ROOT source_origin=$SPACK_ROOT
    elif [[ -n ${HPC_ACCEPTANCE_SPACK_KIT:-} ]]; then
        source_kind=kit
        source_origin=$(cd "$HPC_ACCEPTANCE_SPACK_KIT" 2>/dev/null && pwd) ||
            source_origin=$HPC_ACCEPTANCE_SPACK_KIT
        if [[ -f $source_origin/spack.tar.gz &&
              -f $source_origin/spack-packages.tar.gz ]]; then
            source_key=$(kit_key "$source_origin")
        fi
    fi
}

# The Spack to prepare: the recorded one, unless this run names another
# and says to replace it; the first time, what this run names or a clone.
choose_source() {
    local kind origin key prepared spack_bin_recorded
    kind=$(recorded source) origin=$(recorded origin) key=$(recorded key)
    prepared=$(recorded prepared)
    spack_bin_recorded=$(recorded spack_bin)
    requested_source
    if [[ -z $kind && -n $spack_bin_recorded ]]; then
        # A record of an earlier version of this script, which named no
        # source: its kit when the stamp matches the one named now.
        kind=recorded origin=$spack_bin_recorded prepared='earlier'
        if [[ $source_kind == kit && -n $source_key &&
              -f $spack_dir/.kit-$source_key ]]; then
            kind=kit origin=$source_origin key=$source_key
        fi
    fi
    if [[ -z $kind ]]; then
        [[ -n $source_kind ]] ||
            source_kind=clone source_origin="spack@$spack_commit spack-packages@$packages_commit"
        return
    fi

    if [[ -z $source_kind ||
          "$source_kind $source_origin $source_key" == "$kind $origin $key" ||
          ($source_kind == path && $source_origin == "$spack_bin_recorded") ]]
    then
        source_kind=$kind source_origin=$origin source_key=$key
        say "using $(describe "$kind" "$origin" "$key"), recorded $prepared"
    elif [[ ${HPC_ACCEPTANCE_SPACK_REPLACE:-} == 1 ]]; then
        say "replacing $(describe "$kind" "$origin" "$key") (recorded" \
            "$prepared) with $(describe "$source_kind" "$source_origin" \
            "$source_key") (HPC_ACCEPTANCE_SPACK_REPLACE=1);" \
            "nothing of the old one is deleted"
        replacing=true
    else
        say "$(describe "$source_kind" "$source_origin" "$source_key")" \
            "is ignored: this checkout uses $(describe "$kind" "$origin" \
            "$key"), recorded $prepared. To replace it, run again with" \
            "HPC_ACCEPTANCE_SPACK_REPLACE=1"
        source_kind=$kind source_origin=$origin source_key=$key
    fi
}

# Spack 1.x with the builtin repository at $spack_dir/spack-packages and
# clingo from PyPI; the user scope is $spack_dir/user and Spack's caches
# are in $spack_dir/cache: this Spack is the project's own.
use_private_spack() {
    if [[ ! -x $spack_dir/py/bin/python ]] ||
       ! "$spack_dir/py/bin/python" -c 'import clingo' 2>/dev/null; then
        python3 -m venv "$spack_dir/py"
        "$spack_dir/py/bin/pip" install -q "clingo==$clingo_version" ||
            return 1
    fi
    export SPACK_PYTHON=$spack_dir/py/bin/python
    export SPACK_USER_CONFIG_PATH=$spack_dir/user
    export SPACK_USER_CACHE_PATH=$spack_dir/cache
    externals_scope=user
    mkdir -p "$SPACK_USER_CONFIG_PATH"
    # Two colons: replace the default entry, a git clone from GitHub.
    printf 'repos::\n  builtin: %s\n' \
        "$spack_dir/spack-packages/repos/spack_repo/builtin" \
        > "$SPACK_USER_CONFIG_PATH/repos.yaml"
    spack_bin=$spack_dir/spack/bin
    "$spack_bin/spack" bootstrap disable
}

# A new directory for unpacking or cloning, renamed into place only once
# complete; what an interrupted setup left of one was never in use.
partial_dir() {
    mktemp -d "$spack_dir/.partial-XXXXXX"
}

remove_interrupted() {
    local dir
    for dir in "$spack_dir"/.partial-*; do
        [[ -e $dir ]] || continue
        say "removing $dir, left incomplete by an interrupted setup"
        rm -rf "$dir"
    done
}

occupied() {
    say "$spack_dir/$1 already holds a Spack that $2; it is left as it is." \
        "Set HPC_ACCEPTANCE_SPACK_KIT to the kit it came from, or move it" \
        "away, or set HPC_ACCEPTANCE_SPACK_DIR to another directory"
}

from_kit() {
    local kit=$source_origin key=$source_key name partial
    # The stamp says that spack/ and spack-packages/ come from this kit:
    # written before they are renamed into place, so that an interrupted
    # setup's next run completes the one still missing.
    if [[ ! -f $spack_dir/.kit-$key || ! -d $spack_dir/spack ||
          ! -d $spack_dir/spack-packages ]]; then
        [[ -n $key ]] || {
            say "the kit $kit lacks spack.tar.gz or spack-packages.tar.gz"
            return 1
        }
        for name in spack spack-packages; do
            if [[ ! -f $spack_dir/.kit-$key && -e $spack_dir/$name ]]; then
                occupied "$name" "did not come from the kit $kit"
                return 1
            fi
        done
    fi
    for name in spack spack-packages; do
        [[ -e $spack_dir/$name ]] && continue
        say "unpacking $name from the offline kit $kit"
        partial=$(partial_dir)
        tar -xzf "$kit/$name.tar.gz" -C "$partial"
        touch "$spack_dir/.kit-$key"
        mv "$partial/$name" "$spack_dir/$name"
        rmdir "$partial"
    done
    use_private_spack || return 1
    if [[ -d $kit/mirror ]]; then
        # Sources only: no binary index to look for.
        "$spack_bin/spack" mirror add --scope user --type source offline \
            "file://$kit/mirror" 2>/dev/null ||
            "$spack_bin/spack" mirror set-url --scope user offline \
            "file://$kit/mirror"
    else
        say "the kit's mirror $kit/mirror is gone: what is installed" \
            "stays usable, nothing new can be fetched"
    fi
    # The kit's NPB source is NPB 3.4 stored under 3.4.3's checksum path
    # (see the kit's README): it installs only without checksums.
    install_opts+=(--no-checksum)
}

# `dest` as a checkout of `commit`: reused when it is one, cloned when
# absent, refused when it holds something else.
clone_at() {
    local url=$1 commit=$2 dest=$3 partial
    if [[ -e $dest ]]; then
        [[ $(git -C "$dest" rev-parse HEAD 2>/dev/null) == "$commit" ]] &&
            return
        occupied "$(basename "$dest")" "is not a clone of $url at $commit"
        return 1
    fi
    partial=$(partial_dir)
    if git init -q "$partial" &&
       timeout 120 git -C "$partial" fetch -q --depth 1 "$url" "$commit" &&
       git -C "$partial" checkout -q FETCH_HEAD; then
        mv "$partial" "$dest"
    else
        # Only what this attempt made.
        rm -rf "$partial"
        say "cannot clone $url (no network?)"
        return 1
    fi
}

from_clone() {
    say "cloning Spack $spack_commit and spack-packages $packages_commit"
    clone_at "$spack_url" "$spack_commit" "$spack_dir/spack" &&
        clone_at "$packages_url" "$packages_commit" \
            "$spack_dir/spack-packages" &&
        use_private_spack
}

locate_spack() {
    case $source_kind in
        path | SPACK_ROOT | recorded)
            case $source_kind in
                SPACK_ROOT) spack_bin=$source_origin/bin ;;
                *) spack_bin=$source_origin ;;
            esac
            [[ -x $spack_bin/spack ]] || {
                say "there is no $spack_bin/spack"
                return 1
            }
            if [[ $spack_bin == "$spack_dir/spack/bin" ]]; then
                # recorded by an earlier version: this directory's own
                use_private_spack || return 1
                read -ra install_opts <<< "$(recorded install_opts)"
            fi
            say "using $spack_bin/spack ($source_kind)"
            ;;
        kit) from_kit ;;
        clone) from_clone ;;
    esac
}

# OpenBLAS as Debian installs it (libopenblas-dev), as a file for
# `spack config add -f`; `spack external find` does not detect it.
openblas_external() {
    local version
    version=$(dpkg-query -W -f='${Version}' libopenblas-dev 2>/dev/null) ||
        return 0
    version=${version%%[+-]*}
    [[ -n $version ]] || return 0
    cat > "$1" <<EOF
packages:
  openblas:
    externals:
    - spec: openblas@$version
      prefix: /usr
    buildable: false
EOF
}

# The directory of the environment's scope setup-externals; empty when it
# includes none.
setup_externals_dir() {
    spack -e "$environment" config scopes -p 2>/dev/null |
        awk '$1 == "setup-externals" { sub(/^[^ ]+ +/, ""); print }'
}

# Every command names the scope, and Spack's default is that scope too:
# `spack external find openmpi` registers Open MPI's compiler wherever the
# default is (Spack's openmpi package calls find_compilers without a
# scope). Without an environment the default is the user scope, the
# Spack directory's own for 3 and 4 above, and ~/.spack for a site's
# Spack; with one active, the scope setup-externals, which the environment
# prefers to be modified (prefer_modify), else its spack.yaml.
register_externals() {
    local spack_cmd=(spack) dir registered openblas
    if [[ $externals_scope == setup-externals ]]; then
        dir=$(setup_externals_dir)
        if [[ -z $dir ]]; then
            say "$environment does not include the configuration scope" \
                "setup-externals (see spack-envs/README.md): registering" \
                "no compilers or externals; the environment uses those" \
                "it names and those of $(command -v spack)'s configuration"
            return
        fi
        # Spack's `config` refuses a directory scope that does not exist.
        mkdir -p "$dir"
        spack_cmd=(spack -e "$environment")
    fi
    # Where gcc is: searching all of PATH takes minutes on a loaded node.
    "${spack_cmd[@]}" compiler find --scope "$externals_scope" \
        "$(dirname "$(command -v gcc)")" >/dev/null
    "${spack_cmd[@]}" external find --not-buildable \
        --scope "$externals_scope" openmpi gmake >/dev/null
    registered=$("${spack_cmd[@]}" config --scope "$externals_scope" get \
                 packages)
    if ! grep -q '^  openblas:' <<< "$registered"; then
        openblas=$(mktemp)
        openblas_external "$openblas"
        if [[ -s $openblas ]]; then
            "${spack_cmd[@]}" config --scope "$externals_scope" add \
                -f "$openblas"
        fi
        rm -f "$openblas"
    fi
}

# The environment's concretization depends on its files and the externals;
# concretize again when one of them changed. The stamp is written only
# after Spack finished, so an interrupted concretization is done again.
concretize() {
    local key
    # The packages settings of every scope, externals included. Sorted:
    # `spack external find` rewrites packages.yaml in its own order.
    key=$( (cat "$environment"/spack.yaml "$environment"/../common.yaml \
            2>/dev/null; spack -e "$environment" config get packages) |
          sort | sha256sum | cut -c1-16)
    if [[ -f $environment/spack.lock &&
          -f $spack_dir/.concretized-$key ]]; then
        return
    fi
    say "concretizing $environment (minutes)"
    spack -e "$environment" concretize -f > "$spack_dir/concretize.log"
    rm -f "$spack_dir"/.concretized-*
    touch "$spack_dir/.concretized-$key"
}

# Write the record of the Spack prepared in this run in one step (a killed
# setup leaves the old record or the new one). $1: why this run cannot use
# it, or empty; the time it first could not is kept.
write_record() {
    local prepared now
    now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    prepared=$(recorded prepared)
    if [[ -z $prepared ||
          "$(recorded source) $(recorded origin)" != "$source_kind $source_origin" ]]
    then
        prepared=$now
    fi
    python3 - "$record" "$1" "$now" "$source_kind" "$source_origin" \
        "$source_key" "$prepared" "$spack_bin" "$environment" \
        "${install_opts[@]}" <<'EOF'
import json, os, sys
(path, problem, now, source, origin, key, prepared, spack_bin,
 environment, *install_opts) = sys.argv[1:]
old = json.load(open(path)) if os.path.exists(path) else {}
names = ('SPACK_PYTHON', 'SPACK_USER_CONFIG_PATH',
         'SPACK_USER_CACHE_PATH')
record = {
    'source': source, 'origin': origin, 'key': key, 'prepared': prepared,
    'spack_bin': spack_bin, 'environment': environment,
    'install_opts': install_opts,
    'env_vars': {n: os.environ[n] for n in names if n in os.environ},
}
if problem:
    record['problem'] = problem
    record['problem_since'] = old.get('problem_since') or now
with open(path + '.tmp', 'w') as fp:
    json.dump(record, fp, indent=1)
os.replace(path + '.tmp', path)
EOF
}

# The recorded Spack cannot be used in this run: the record says why and
# since when, and is otherwise kept for the next run.
mark_problem() {
    python3 - "$record" "$1" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" <<'EOF'
import json, os, sys
path, problem, now = sys.argv[1:]
record = json.load(open(path))
record.setdefault('problem_since', now)
record['problem'] = problem
with open(path + '.tmp', 'w') as fp:
    json.dump(record, fp, indent=1)
os.replace(path + '.tmp', path)
EOF
}

no_spack() {
    local why
    why="$(describe "$source_kind" "$source_origin" "$source_key")"
    why+=" cannot be used"
    if $replacing; then
        say "$why: the recorded Spack stays in use ($record)"
    elif [[ -f $record ]]; then
        mark_problem "$why"
        say "$why: this run's checks do not use Spack (see $record)"
    else
        say "no Spack ($why): the checks use modules, PATH and in-tree" \
            "builds. To build with Spack put spack on PATH, set SPACK_ROOT" \
            "or HPC_ACCEPTANCE_SPACK_KIT, or allow access to GitHub"
    fi
}

main() {
    remove_interrupted
    if [[ ${HPC_ACCEPTANCE_SPACK:-} == off ]]; then
        say "skipped (HPC_ACCEPTANCE_SPACK=off): this run uses no Spack"
        return
    fi
    choose_source
    if ! locate_spack; then
        no_spack
        return
    fi
    export PATH=$spack_bin:$PATH
    register_externals
    if ! concretize; then
        local why="concretizing $environment failed (see"
        why+=" $spack_dir/concretize.log)"
        write_record "$why"
        say "$why: this run's checks do not use Spack"
        return
    fi
    write_record ''
    say "installing $environment (log: $spack_dir/install.log)"
    # Spack goes on past a package that fails (unless --fail-fast): the
    # others install, and the checks that need it fail with its error
    # (core/spack.py). What a killed setup had installed stays installed;
    # the next setup installs the rest.
    if ! spack -e "$environment" install "${install_opts[@]}" \
            > "$spack_dir/install.log" 2>&1; then
        say "some packages failed to install; their checks will fail:"
        grep -E '^==> Error' "$spack_dir/install.log" | sed 's/^/  /' |
            tail -20
    fi
}

main
