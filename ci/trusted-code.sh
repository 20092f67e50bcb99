# Whether the code the night runs is the administrator's: what ci/nightly.sh
# (sourced from the checkout) asks before the setup and the run, and
# ci/setup.sh --night-account after it; bash and coreutils alone.
#
# The night runs as an unprivileged account (ci/README.md, "The night's
# account"), and runs code from the checkout (its scripts, checks and
# configuration, .venv/ and .spack/), from the site directory (its systems
# and settings) and from a Spack directory named elsewhere. Whoever can
# change one of them runs code as that account the next night, and can
# pass or fail any node. So each file and folder there, and each folder
# above them, must be owned by root or by the account itself, and
# writable by no one else: not by its group, not by others (a folder
# above, such as /tmp, may be writable by all when it is sticky: no one
# can rename what is not theirs). var/ is the account's own: its results,
# never run as code.

# untrusted_code DIR...: each path in or above the DIRs that others than
# root and this account can change, as "PATH (owner USER, mode MODE)";
# var/ of the checkout left out.
untrusted_code() {
    local me dir root owner mode name
    me=$(id -u)
    for root in "$@"; do
        [[ -e $root ]] || continue
        dir=$(dirname "$(realpath "$root")")
        while :; do
            read -r owner mode name < <(stat -c '%u %a %n' "$dir")
            if [[ $owner != 0 && $owner != "$me" ]] ||
               { (( 8#$mode & 8#022 )) && ! (( 8#$mode & 8#1000 )); }; then
                stat -c '%n (owner %U, mode %04a)' "$dir"
            fi
            [[ $dir == / ]] && break
            dir=$(dirname "$dir")
        done
    done
    find "$@" -path "$project_dir/var" -prune -o ! -type l \
        \( -perm /022 -o ! \( -uid 0 -o -uid "$me" \) \) \
        -printf '%p (owner %u, mode %#m)\n' 2>/dev/null
}

# require_trusted_code WHO: exit 2, naming what others can change, unless
# every place the night runs code from is root's or this account's alone.
require_trusted_code() {
    local who=$1 spack_dir=${HPC_ACCEPTANCE_SPACK_DIR:-} found count owners
    local places=("$project_dir")
    [[ -n ${HPC_ACCEPTANCE_SITE_DIR:-} ]] && places+=("$HPC_ACCEPTANCE_SITE_DIR")
    [[ -n $spack_dir && $(realpath "$spack_dir") != "$project_dir"/* ]] &&
        places+=("$spack_dir")
    mapfile -t found < <(untrusted_code "${places[@]}")
    count=${#found[@]}
    (( count == 0 )) && return
    owners=root
    (( EUID != 0 )) && owners+=" and $(id -un)"
    {
        echo "$who: the night runs code that others than $owners can" \
             "change; it runs only code that they alone can change" \
             "(ci/README.md, \"The night's account\"):"
        printf '  %s\n' "${found[@]:0:10}"
        (( count > 10 )) && echo "  ... and $(( count - 10 )) more"
        echo "Make them root's, writable by it alone (chown -R root:" \
             "and chmod -R go-w, as root), or the account's own. Nothing" \
             "was run."
    } >&2
    exit 2
}
