#!/usr/bin/env bash
# The bench scripts' peers, the way sites get them (after ci/setup.sh, which
# the acceptance suite needs; these are for ci/bench/ only and never part of
# ci/setup.sh's list):
#   likwid-bench  Debian's likwid package (ci/install-packages.sh, as root);
#                 elsewhere the command to run is printed
#   stream_c.exe  McCalpin's STREAM from the checkout's Spack environment
#                 (ci/bench/mccalpin_stream.sh says where, or what to run)
#
# Usage: ci/bench/setup.sh [likwid|stream]...   (default: both)
# Safe to run again: it installs only what is missing.
# Exit status: 0 every peer named is there, 2 one is missing (the message
#              says what to run).
set -euo pipefail

say() { echo "bench setup: $*"; }
die() { echo "bench setup: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

likwid() {
    command -v likwid-bench >/dev/null && return
    [ -f /etc/debian_version ] ||
        die "likwid-bench not found: install likwid from the distribution or with Spack (spack install likwid) and put likwid-bench on PATH"
    (( EUID == 0 )) ||
        die "likwid-bench not found: run as root: ci/install-packages.sh likwid"
    say "installing Debian's likwid (likwid-bench, a read-bandwidth peer)"
    local log
    log=$(mktemp)
    "$here/../install-packages.sh" likwid >"$log" 2>&1 ||
        { cat "$log" >&2; rm -f "$log"; die "apt-get could not install likwid"; }
    rm -f "$log"
    command -v likwid-bench >/dev/null ||
        die "the likwid package installed no likwid-bench on PATH"
    say "likwid $(dpkg-query -W -f='${Version}' likwid) installed"
}

stream() {
    local binary
    binary=$("$here/mccalpin_stream.sh") || exit 2
    say "McCalpin's STREAM: $binary"
}

peers=("$@")
(( ${#peers[@]} )) || peers=(likwid stream)
for peer in "${peers[@]}"; do
    case $peer in
        likwid|stream) "$peer" ;;
        *) die "unknown peer '$peer' (likwid or stream)" ;;
    esac
done
