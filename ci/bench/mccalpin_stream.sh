#!/usr/bin/env bash
# Prints the path of McCalpin's STREAM (stream_c.exe) as a site gets it: the
# `stream+openmp` of the Spack environment ci/setup.sh installed for this
# checkout (spack-envs/local; recorded in <Spack directory>/setup.json),
# built for this machine's own target. Nothing is built or fetched here.
#
# Exit status: 0 found (the path on standard output), 2 not installed (the
#              message says what to run).
# Environment: HPC_ACCEPTANCE_SPACK_DIR (default: the checkout's .spack/,
#              as ci/setup-spack.sh uses it).
set -euo pipefail

die() { echo "mccalpin_stream: $*" >&2; exit 2; }

project=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$project"
spack_dir=${HPC_ACCEPTANCE_SPACK_DIR:-$project/.spack}
record=$spack_dir/setup.json
setup_hint="HPC_ACCEPTANCE_SPACK_KIT=/path/to/spack-offline ci/setup.sh (the offline kit), or ci/setup.sh where GitHub can be reached"

[ -f "$record" ] || die "no Spack environment prepared for this checkout ($record is missing): McCalpin's STREAM comes from it. Run $setup_hint"

# The record: the Spack to use, the environment and Spack's own variables
# (one NAME=VALUE a line after the first two lines).
mapfile -t prepared < <(python3 - "$record" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))
print(record['spack_bin'])
print(record['environment'])
for name, value in record['env_vars'].items():
    print(f'{name}={value}')
PY
) || die "$record is unreadable: run $setup_hint"
spack_bin=${prepared[0]}
environment=${prepared[1]}
for setting in "${prepared[@]:2}"; do
    export "${setting?}"
done
export PATH=$spack_bin:$PATH
command -v spack >/dev/null || die "$record names $spack_bin, which has no spack: run $setup_hint"

# The build for this machine: the checks load the one of the partition's
# own target (isa=native); the environment also holds one per ISA variant.
target=$(spack arch --target) || die "spack arch --target failed"
spec=(stream+openmp "target=$target")
prefixes=$(spack -e "$environment" find --format '{prefix}' "${spec[@]}" 2>/dev/null) || true
if [ -z "$prefixes" ]; then
    die "McCalpin's STREAM (${spec[*]}) is not installed in $environment. Run $setup_hint again; Spack's install log is $spack_dir/install.log"
fi
prefix=$(head -n 1 <<<"$prefixes")
binary=$prefix/bin/stream_c.exe
[ -x "$binary" ] || die "$binary is missing although Spack lists ${spec[*]} as installed in $environment: run $setup_hint again"
echo "$binary"
