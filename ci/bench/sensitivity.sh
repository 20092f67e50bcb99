#!/usr/bin/env bash
# How small a loss the nightly catches on this machine, and at what price
# in false alarms. After TRAIN_RUNS quiet nightly runs and references
# proposed from them (with the machine's own floors, NOISE_FLOORS), the
# benchmark is slowed by known amounts, each slowed run like a nightly (a
# failed check retried once), with a quiet run after each:
#   cpu  a CPU quota on the cgroup of ReFrame and its jobs, CPU_GRADES %
#        of a core (default "95 90 80 70 50": a 5 to 50 % slowdown); the
#        period is 3333 us, so that every timed run is throttled (see
#        ci/bench/cpu_quota.sh). Only the one-thread variants run
#        (CPU_SELECT, default -n %threads=single, added to the selection;
#        ReFrame ORs several -n, so with a selection of your own that has
#        one, set CPU_SELECT= and select one-thread checks yourself): a
#        quota of one core's share slows a check on N cores N times more.
#   hog  a memory-bandwidth hog on HOG_CPUS (default: the last core),
#        throttled to HOG_GRADES % of those cores (default "25 50 100"):
#        graded contention for the memory bus (and, on a small node, for
#        the core the all-cores variants share with it).
# Prints one line per run (per check family: checks failed after their
# retry, the figures' loss against the training medians), then two
# Markdown tables (also in $STATE_DIR/table.md): per family the smallest
# slowdown flagged and the false alarms of the quiet runs; per run the
# details (ci/bench/sensitivity_table.py).
#
# Usage: ci/bench/sensitivity.sh [reframe selection...]
#   default selection: -c checks/memory -c checks/stream, in the nightly
#                      mode (--mode nightly: its tags, retries, options)
# Environment: TRAIN_RUNS (3), CPU_GRADES, CPU_SELECT, HOG_GRADES,
#   HOG_CPUS (a taskset list), NOISE_FLOORS (e.g. "Memory=0.5"),
#   STATE_DIR (default var/bench/sensitivity-<time>): results database,
#   stage, perflogs, reports and references of the runs, nothing shared.
# Needs root (cgroups). Run it on an idle machine: anything else running is
# noise it measures.
# Exit status: 0 measured, 2 cannot run (no cgroup CPU control, bad
#   settings, no report from a run).
set -euo pipefail

die() { echo "sensitivity: $*" >&2; exit 2; }

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$project_dir"
if [ -z "${HPC_ACCEPTANCE_LOCK_HELD:-}" ]; then
    exec env PYTHONPATH=checks python3 -m hpc_acceptance.tools.launch.lock \
        -- "$0" "$@"
fi

cpu_grades=${CPU_GRADES-95 90 80 70 50}
hog_grades=${HOG_GRADES-25 50 100}
hog_cpus=${HOG_CPUS:-$(( $(nproc) - 1 ))}
read -r -a cpu_select <<<"${CPU_SELECT--n %threads=single}"
for grade in $cpu_grades $hog_grades; do
    [[ $grade =~ ^[1-9][0-9]*$ ]] && (( grade <= 100 )) ||
        die "grade '$grade' (CPU_GRADES, HOG_GRADES): a whole percentage, 1 to 100"
done
[[ ${TRAIN_RUNS:-3} =~ ^[1-9][0-9]*$ ]] || die "TRAIN_RUNS=${TRAIN_RUNS}: a positive integer"
(( EUID == 0 )) || die "needs root: the slowdowns are cgroups"
checked=$(taskset -c "$hog_cpus" true 2>&1) ||
    die "HOG_CPUS=$hog_cpus is not a CPU list of this node: $checked"
mapfile -t hog_cpu_array < <(python3 -c '
import sys
for part in sys.argv[1].split(","):
    first, _, last = part.partition("-")
    print(*range(int(first), int(last or first) + 1), sep="\n")' "$hog_cpus")

source ci/bench/cpu_quota.sh
# The hog runs throughout: the default period throttles it as well.
hog_period_us=100000
for grade in $cpu_grades; do
    problem=$(quota_problem "$grade" 1)
    [ -z "$problem" ] || die "CPU_GRADES: $problem"
done
for grade in $hog_grades; do
    problem=$(quota_problem "$grade" "${#hog_cpu_array[@]}" "$hog_period_us")
    [ -z "$problem" ] || die "HOG_GRADES: $problem"
done

ci/setup.sh >/dev/null
source ci/bench/nightly_runs.sh
nightly_state "${STATE_DIR:-$project_dir/var/bench/sensitivity-$(date -u +%Y%m%dT%H%M%SZ)}"
select_checks "$@"
hpc=.venv/bin/hpc-acceptance
: >"$state/runs.txt"
group=
hog_pids=()
cleanup() {
    local pid
    for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    [ -z "$group" ] || remove_quota_group "$group"
    group=
}
trap cleanup EXIT

# run NAME KIND GRADE [reframe args...]: one run, its line
run() {
    local name=$1 kind=$2 grade=$3; shift 3
    echo "$name $kind $grade" >>"$state/runs.txt"
    reframe_run "$name" "$@"
    [ -f "$state/$name.json" ] || die "$name: no report; see $state/$name.log"
    .venv/bin/python ci/bench/sensitivity_table.py line "$state" "$name" ||
        die "$name: its report cannot be read ($state/$name.json)"
}

echo "sensitivity: state in $state"
for i in $(seq 1 "${TRAIN_RUNS:-3}"); do
    run "train$i" train - "${select[@]}"
done
"$hpc" propose-references --system local "${floors[@]}" \
    --sessions 'now-1d:now?suite_mode=="train"' \
    --reference-dir "$state/refs" --write >"$state/propose.log" 2>&1 ||
    die "propose-references failed: see $state/propose.log"
export RFM_REFERENCE_PREFIX=$state/refs

quiet=0
quiet_run() {
    quiet=$(( quiet + 1 ))
    run "quiet$quiet" quiet - "${select[@]}"
}

quiet_run
for grade in $cpu_grades; do
    group=$(quota_group "hpc-acceptance-sensitivity-$$" "$grade" 1)
    in_quota_group "$group" run "cpu$grade" cpu "$grade" "${select[@]}" \
        "${cpu_select[@]}"
    cleanup
    quiet_run
done
for grade in $hog_grades; do
    group=$(quota_group "hpc-acceptance-sensitivity-$$" "$grade" \
            "${#hog_cpu_array[@]}" "$hog_period_us")
    for cpu in "${hog_cpu_array[@]}"; do
        ( echo "$BASHPID" >"$group/cgroup.procs" &&
          exec taskset -c "$cpu" python3 -c "$memory_hog" ) &
        hog_pids+=($!)
    done
    run "hog$grade" hog "$grade" "${select[@]}"
    cleanup
    hog_pids=()
    quiet_run
done

.venv/bin/python ci/bench/sensitivity_table.py table "$state" |
    tee "$state/table.md"
echo "sensitivity: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); tables in $state/table.md"
