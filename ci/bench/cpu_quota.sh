# Sourced by ci/bench/sensitivity.sh (after it defines die): CPU quota
# groups, the kernel's CFS bandwidth control, to slow a process tree by a
# known fraction of a core.
#
# The period of a benchmark's group is short (3333 us) so that every timed
# run, however short, is throttled: with the default 100 ms period a run of
# a few milliseconds often fits in the unthrottled part, and a best-of-runs
# figure then shows no loss at all. The kernel's smallest quota is 1000 us,
# so the smallest share is 30 % of a core. A process that runs throughout
# (the memory hog) is throttled as well by the default period, which
# allows down to 1 %.
#
#   quota_problem PERCENT CPUS [PERIOD_US]
#                                   prints why the kernel cannot give that
#                                   share, nothing if it can
#   quota_group NAME PERCENT CPUS [PERIOD_US]
#                                   creates group NAME with PERCENT % of
#                                   CPUS cores per period (default 3333 us);
#                                   prints its directory
#   in_quota_group DIR COMMAND...   runs COMMAND (a function too) in it
#   remove_quota_group DIR          removes it (its processes have ended)
#
# cgroup v1 with the cpu controller at /sys/fs/cgroup/cpu, or cgroup v2
# with cpu enabled in /sys/fs/cgroup/cgroup.subtree_control; as root.

quota_problem() {
    local percent=$1 cpus=$2 period=${3:-3333} quota
    quota=$(( percent * cpus * period / 100 ))
    (( quota >= 1000 )) ||
        echo "a quota of $percent % of $cpus core(s) is $quota us per $period us period, below the kernel's 1000 us"
}

quota_group() {
    local name=$1 percent=$2 cpus=$3 quota_period_us=${4:-3333} problem quota dir
    problem=$(quota_problem "$percent" "$cpus" "$quota_period_us")
    [ -z "$problem" ] || die "$problem"
    quota=$(( percent * cpus * quota_period_us / 100 ))
    if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
        dir=/sys/fs/cgroup/cpu/$name
        mkdir "$dir" || die "cannot create the cgroup $dir (as root?)"
        echo "$quota_period_us" >"$dir/cpu.cfs_period_us"
        echo "$quota" >"$dir/cpu.cfs_quota_us"
    elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
        dir=/sys/fs/cgroup/$name
        mkdir "$dir" || die "cannot create the cgroup $dir (as root?)"
        echo "$quota $quota_period_us" >"$dir/cpu.max"
    else
        die "no CPU bandwidth control: neither cgroup v1's cpu controller at /sys/fs/cgroup/cpu nor cgroup v2 with cpu in /sys/fs/cgroup/cgroup.subtree_control"
    fi
    echo "$dir"
}

in_quota_group() {
    local dir=$1; shift
    ( echo "$BASHPID" >"$dir/cgroup.procs" && "$@" )
}

remove_quota_group() {
    local tries
    for tries in 1 2 3 4 5; do
        rmdir "$1" 2>/dev/null && return
        sleep 1
    done
    echo "sensitivity: could not remove the cgroup $1 (processes still in it?)" >&2
}
