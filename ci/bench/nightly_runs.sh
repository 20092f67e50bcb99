# Sourced by the bench scripts that run the nightly several times on a
# private state (ci/bench/quiet_proof.sh, ci/bench/sensitivity.sh), from
# the checkout, after they took the run lock:
#
#   nightly_state DIR     DIR holds the runs' results database, stage,
#                         perflogs, reports and references: nothing shared
#                         with the checkout's var/ or another proof
#   reframe_run NAME ...  one nightly-like run, report in DIR/NAME.json
#   select_checks ARGS... sets `select` to the reframe selection ARGS, by
#                         default the memory and STREAM nightly
#
# Sets `memory_hog` to a Python program that copies 256 MiB over and over:
# a memory-bandwidth hog (`taskset -c CPU python3 -c "$memory_hog" &`).
# Sets `floors` to the --floor option of hpc-acceptance from NOISE_FLOORS
# (the machine's own minimum bands learnt from its quiet repeats, e.g.
# "Memory=0.5"; default: the families' bands).

nightly_state() {
    state=$1
    mkdir -p "$state/refs"
    export RFM_SQLITE_DB_FILE=$state/results.db RFM_PREFIX=$state/prefix \
           RFM_PERFLOG_DIR=$state/perflogs RFM_REPORT_JUNIT=$state/junit.xml \
           RFM_COLORIZE=n
}

select_checks() {
    select=("$@")
    if (( ${#select[@]} == 0 )); then
        select=(-c checks/memory -c checks/stream)
    fi
}

floors=()
[ -z "${NOISE_FLOORS:-}" ] || floors=(--floor "$NOISE_FLOORS")

# reframe_run NAME [reframe args...]: a nightly (--mode nightly, the very
# set and options ci/acceptance.sh runs) whose session is tagged with NAME
# up to its first digit or dash instead (suite_mode=train, quiet, fault,
# ...; ReFrame lets the command line's extras override the mode's), so that
# the training can be selected as the baseline. ReFrame's output goes to
# $state/NAME.log.
reframe_run() {
    local name=$1; shift
    RFM_REPORT_FILE=$state/$name.json .venv/bin/reframe -C config/settings.py \
        --mode nightly -r --session-extras="suite_mode=${name//[0-9-]*/}" \
        "$@" >"$state/$name.log" 2>&1 || true
}

memory_hog='
b = bytearray(256 << 20)
while True:
    bytes(b)'
