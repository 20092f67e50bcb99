#!/usr/bin/env bash
# Proof of the noise model (reference/README.md, "Noise model"), measured
# on this machine: after TRAIN_RUNS quiet nightly runs and references
# proposed from them, QUIET_RUNS more quiet runs must give 0 failures, and
# each injected fault must be flagged:
#   a  a memory-bandwidth hog on the last core (the benchmarks start on 0)
#   b  a CPU hog sharing core 0 with the benchmark
#   c  src/memory built for sse4.2 (x86-64-v2) and put on PATH, so the
#      native variant runs it: an identity mismatch (isa_built)
#   d  NPB CG at class S against references of class W: an identity
#      mismatch (npb_class), not a pass as "faster"; skipped without NPB
#      (NPB_BIN_DIR, or the local partition's Spack environment)
#
# Usage: ci/bench/quiet_proof.sh [reframe selection...]
#   default selection: -c checks/memory -c checks/stream, in the nightly
#                      mode (--mode nightly: its tags, retries, options)
# Environment: TRAIN_RUNS (3), QUIET_RUNS (5), FAULTS ("a b c d"),
#   NOISE_FLOORS (the machine's own minimum bands learnt from its quiet
#   repeats, e.g. "Memory=0.5"; default: the families' bands),
#   STATE_DIR (default var/bench/quiet-proof-<time>): results database,
#   stage, perflogs, reports and references of the proof, nothing shared.
# Run it on an idle machine: anything else running is noise it measures.
# Output: one line per run (checks failed after their one retry, checks
# that passed only when retried, figures regressed against the baseline of
# the training runs), also in $STATE_DIR/table.txt.
# Exit status: 0 no quiet run failed and every fault run was flagged.
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$project_dir"
if [ -z "${HPC_ACCEPTANCE_LOCK_HELD:-}" ]; then
    exec env PYTHONPATH=checks python3 -m hpc_acceptance.tools.launch.lock \
        -- "$0" "$@"
fi
ci/setup.sh >/dev/null

source ci/bench/nightly_runs.sh
nightly_state "${STATE_DIR:-$project_dir/var/bench/quiet-proof-$(date -u +%Y%m%dT%H%M%SZ)}"
select_checks "$@"
faults=${FAULTS:-a b c d}
hpc=.venv/bin/hpc-acceptance
last_core=$(( $(nproc) - 1 ))
table=$state/table.txt
: > "$table"
status=0

judge() {         # NAME EXPECT(pass|flag): one table line
    local name=$1 expect=$2 failed regressed verdict
    failed=$(PYTHONPATH=checks .venv/bin/python - "$state/$name.json" <<'PY'
import json, sys
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS, ResultsError,
                                          passed_on_retry, report_testcases)
try:
    cases = report_testcases(sys.argv[1])
    retried = sum(map(passed_on_retry, cases))
except ResultsError:
    print('no-report'); sys.exit()
bad = [c for c in cases if c['result'] in FAILED_RESULTS]
print(len(bad), f'(passed on retry: {retried})',
      ' '.join((c.get('fail_reason') or '').split(':')[0][:40]
               for c in bad[:1]))
PY
)
    "$hpc" post-upgrade --report "$state/$name.json" "${floors[@]}" \
        --baseline 'now-1d:now?suite_mode=="train"' \
        --json "$state/$name-verdict.json" >/dev/null 2>&1 || true
    regressed=$(python3 - "$state/$name-verdict.json" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))['figures']
except (OSError, ValueError, KeyError):
    print('-'); sys.exit()
bad = [r for r in rows if r['verdict'] == 'regressed']
print(len(bad), ', '.join(f"{r['figure']} {100 * r['change']:+.0f}%"
                          for r in bad[:4]))
PY
)
    if [ "$expect" = pass ] && [ "${failed%% *}" != 0 ]; then
        verdict='FALSE ALARM'; status=1
    elif [ "$expect" = flag ] && [ "${failed%% *}" = 0 ]; then
        verdict='MISSED'; status=1
    else
        verdict=ok
    fi
    printf '%-10s %-6s failed: %-56s regressed: %s  -> %s\n' "$name" \
        "$expect" "$failed" "$regressed" "$verdict" | tee -a "$table"
}

for i in $(seq 1 "${TRAIN_RUNS:-3}"); do
    reframe_run "train$i" "${select[@]}"
done
"$hpc" propose-references --system local "${floors[@]}" \
    --sessions 'now-1d:now?suite_mode=="train"' \
    --reference-dir "$state/refs" --write >"$state/propose.log" 2>&1
export RFM_REFERENCE_PREFIX=$state/refs

for i in $(seq 1 "${QUIET_RUNS:-5}"); do
    reframe_run "quiet$i" "${select[@]}"
    judge "quiet$i" pass
done

hog_pid=
stop_hog() { [ -z "$hog_pid" ] || kill "$hog_pid" 2>/dev/null || true; }
trap stop_hog EXIT

for fault in $faults; do
    case $fault in
    a)  taskset -c "$last_core" python3 -c "$memory_hog" & hog_pid=$!
        reframe_run fault-a "${select[@]}"; stop_hog; judge fault-a flag ;;
    b)  taskset -c 0 sh -c 'while :; do :; done' & hog_pid=$!
        reframe_run fault-b "${select[@]}"; stop_hog; judge fault-b flag ;;
    c)  build=$state/sse42/memory
        mkdir -p "$build" && cp src/memory/*.[ch] src/memory/Makefile "$build"
        make -s -C "$build" CFLAGS='-O3 -march=x86-64-v2' >/dev/null
        PATH=$build:$PATH reframe_run fault-c "${select[@]}"
        judge fault-c flag ;;
    d)  npb=(-c checks/npb -n NpbCgCheck --exclude-tag=variant -S)
        mkdir -p "$state/npb-refs"
        for i in 1 2 3; do
            (unset RFM_REFERENCE_PREFIX
             reframe_run "train-npb$i" "${npb[@]}" NpbCgCheck.npb_class=W)
        done
        if ! grep -q '"result": "pass"' "$state/train-npb1.json" 2>/dev/null
        then
            echo "fault-d    skipped: NpbCgCheck did not run here (see" \
                 "$state/train-npb1.log)" | tee -a "$table"
            continue
        fi
        "$hpc" propose-references --system local "${floors[@]}" \
            --sessions 'now-1d:now?suite_mode=="train"' \
            --reference-dir "$state/npb-refs" --write \
            >"$state/npb-propose.log" 2>&1
        RFM_REFERENCE_PREFIX=$state/npb-refs reframe_run fault-d \
            "${npb[@]}" NpbCgCheck.npb_class=S
        judge fault-d flag
        grep -o 'identity mismatch[^;]*npb_class[^;]*' "$state/fault-d.log" \
            | head -1 | tee -a "$table" ;;
    esac
done

echo "quiet_proof: table in $table, state in $state" >&2
exit "$status"
