#!/bin/sh
# Stands in for `spack` in the tests (tests/e2e/test_spack_environment_runs.py,
# tests/unit/test_spack_envs.py): appends its arguments to $FAKE_SPACK_LOG
# and acts out the commands the Spack fixture and the checks run, for
# `spack -e ENV <command> ...` only.
#
#   install      writes ENV/spack.lock, as Spack does when it concretizes
#   spec         prints one root, as `spack spec --long --install-status`
#   load --sh    puts $FAKE_SPACK_PREFIX/bin on PATH
#   find         prints $FAKE_SPACK_FIND (a spec, or an install prefix)
set -eu
echo "$*" >> "$FAKE_SPACK_LOG"
[ "$1" = "-e" ] || { echo "fake spack: expected -e ENV, got: $*" >&2; exit 2; }
env=$2
shift 2
case "$1" in
    install)
        printf '{"_meta": {"file-type": "spack-lockfile"}, "roots": []}\n' \
            > "$env/spack.lock" ;;
    spec)
        echo "[+]  fake000  $FAKE_SPACK_FIND" ;;
    load)
        echo "export PATH=$FAKE_SPACK_PREFIX/bin:\$PATH;" ;;
    find)
        echo "$FAKE_SPACK_FIND" ;;
    *)
        echo "fake spack: unexpected command: $*" >&2; exit 2 ;;
esac
