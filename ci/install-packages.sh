#!/usr/bin/env bash
# Installs Debian packages with apt-get without starting or enabling any
# system service. The setup runs as root on a site's login or compute nodes,
# where a daemon that a package brings (Debian's slurm-wlm enables
# slurmctld and slurmd, munge its munged) must neither start now nor at the
# next boot:
#
#  - while apt-get runs, a policy-rc.d (Debian's switch for maintainer
#    scripts, honoured by invoke-rc.d and deb-systemd-invoke) refuses every
#    start; one the host already has is its administrator's and stays as
#    it is;
#  - afterwards, failed or not, every boot-time link the install made is
#    undone as `systemctl disable` and `update-rc.d NAME disable` would:
#    new links in /etc/systemd/system/*.wants/ and *.requires/ are removed,
#    new /etc/rc?.d/S* links become K* links. Upgrades keep them so:
#    deb-systemd-helper re-enables a unit only while all its links exist,
#    and `update-rc.d defaults` adds links only to a script that has none.
#    Links that were there before are left alone.
#
# Usage: ci/install-packages.sh [--root DIR] PACKAGE...
#   --root DIR  the file system whose /etc and /usr/sbin are guarded
#               (default /); apt-get itself always installs on /: the
#               tests point this at a scratch tree and a stand-in apt-get.
set -euo pipefail

say() { echo "install-packages: $*" >&2; }

root=
if [[ ${1:-} == --root ]]; then
    root=${2:?--root needs a directory}
    shift 2
fi

if (( $# == 0 )); then
    say "usage: ci/install-packages.sh [--root DIR] PACKAGE..."
    exit 2
fi

policy=$root/usr/sbin/policy-rc.d
own_policy=false
links_before=

boot_links() {
    shopt -s nullglob
    local dir
    for dir in "$root"/etc/systemd/system/*.wants \
               "$root"/etc/systemd/system/*.requires; do
        find "$dir" -mindepth 1 -maxdepth 1 -type l
    done
    for dir in "$root"/etc/rc[S0-6].d; do
        find "$dir" -mindepth 1 -maxdepth 1 -type l -name 'S*'
    done
    shopt -u nullglob
}

disable_new_links() {
    local link base disabled=()
    while IFS= read -r link; do
        base=${link##*/}
        case $link in
            */rc?.d/S*)
                mv "$link" "${link%/*}/K${base#S}"
                disabled+=("${base:3} (init script)") ;;
            *)
                rm "$link"
                disabled+=("$base") ;;
        esac
    done < <(LC_ALL=C comm -13 <(echo "$links_before") \
                                <(boot_links | LC_ALL=C sort))

    if (( ${#disabled[@]} )); then
        say "left disabled at boot:" \
            "$(printf '%s\n' "${disabled[@]}" | sort -u | paste -sd ' ')"
    fi
}

cleanup() {
    disable_new_links
    if $own_policy; then
        rm -f "$policy"
    fi
}

links_before=$(boot_links | LC_ALL=C sort)
trap cleanup EXIT

if [[ -e $policy || -L $policy ]]; then
    say "keeping this host's $policy (its administrator's policy decides" \
        "whether services start during the install)"
# noclobber: never over one that appeared since the test above
elif ( set -C; printf '%s\n' '#!/bin/sh' \
        '# ci/install-packages.sh: no service starts while it installs.' \
        'exit 101' > "$policy" ) 2>/dev/null; then
    own_policy=true
    chmod 755 "$policy"
else
    say "cannot write $policy, which keeps services from starting during" \
        "the install: nothing installed"
    exit 1
fi

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends "$@"
