'''Whether the fleet night names a node whose jobs get only part of a CPU:
a Slurm cluster of network namespaces on this machine
(tests/helpers/slurm_cluster.py), one node's slurmd (and so every job it
starts) held to PERCENT % of a CPU in PERIOD_US periods by a cgroup CPU
quota (ci/bench/cpu_quota.sh's rule: cgroup v1's cpu controller or v2's
cpu.max), the fleet nightly run on it (ci/acceptance.sh --fleet), one job
at a time.

    .venv/bin/python ci/bench/throttled_node.py STATE_DIR [--nodes 5]
        [--slow n3] [--percent 40] [--period-us 10000]
        [--bursts ON_MS/OFF_MS] [ACCEPTANCE ARGS...]
                                  (as root, under the e2e lock)

``--bursts 400/200`` holds the node to the quota for 400 ms, then lets it
run free for 200 ms, over and over: a neighbour that takes the cores in
bursts longer than a repetition (the kernels' last at least 50 ms), so
some repetitions run at full speed and most do not, the case the fleet
names *contended*. Without it the quota holds all night, slowing every
repetition alike, which the fleet names a suspect.

Default checks: the nightly's one-thread memory and STREAM checks
(``-n StreamCheck.*single -n MemoryDaxpyCheck.*single
-n MemoryReadBandwidthCheck.*single``), each figure the best repetition
over the kernels' default span (2 s). Prints the night's summary lines
that name the slowed node (suspect, contended) and each node's
repetition ratios (best/median) and best figures from the report, then
the verdict. Exit status: 0 measured (whatever the verdict), 2 cannot run.
'''

import argparse
import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'tests'))
from helpers import slurm_cluster  # noqa: E402  (as fleet_cost.py)

PROJECT = Path(__file__).resolve().parents[2]
OVERLAY = PROJECT / 'tests' / 'fixtures' / 'data' / 'slurm' / \
    'slurm_localhost.py'
CGROUP_V1 = Path('/sys/fs/cgroup/cpu')
CGROUP_V2 = Path('/sys/fs/cgroup')
CHECKS = ['-n', 'StreamCheck.*single', '-n', 'MemoryDaxpyCheck.*single',
          '-n', 'MemoryReadBandwidthCheck.*single']


@contextlib.contextmanager
def quota(pid, name, percent, period_us):
    '''Process ``pid`` (and what it starts) in a cgroup with ``percent``
    % of a CPU per ``period_us``.'''
    amount = percent * period_us // 100
    if amount < 1000:
        raise ValueError(f'{percent} % of {period_us} us is below the '
                         f'kernel\'s 1000 us')
    if (CGROUP_V1 / 'cpu.cfs_quota_us').exists():
        group, parent = CGROUP_V1 / name, CGROUP_V1
        limits = {'cpu.cfs_period_us': str(period_us),
                  'cpu.cfs_quota_us': str(amount)}
    elif 'cpu' in (CGROUP_V2 / 'cgroup.subtree_control').read_text():
        group, parent = CGROUP_V2 / name, CGROUP_V2
        limits = {'cpu.max': f'{amount} {period_us}'}
    else:
        raise ValueError('no cgroup cpu controller')

    group.mkdir()
    try:
        for key, value in limits.items():
            (group / key).write_text(value)
        (group / 'cgroup.procs').write_text(str(pid))
        yield group
    finally:
        for left in (group / 'cgroup.procs').read_text().split():
            with contextlib.suppress(OSError):
                (parent / 'cgroup.procs').write_text(left)
        group.rmdir()


@contextlib.contextmanager
def bursts(group, on_ms, off_ms):
    """Lift the quota of the cgroup ``group`` (as :func:`quota` made it)
    for ``off_ms`` after every ``on_ms``, until the block ends."""
    v1 = (group / 'cpu.cfs_quota_us').exists()
    key = 'cpu.cfs_quota_us' if v1 else 'cpu.max'
    held = (group / key).read_text().strip()
    free = '-1' if v1 else f'max {held.split()[1]}'
    done = threading.Event()

    def toggle():
        while True:
            for value, ms in ((held, on_ms), (free, off_ms)):
                (group / key).write_text(value)
                if done.wait(ms / 1000):
                    return

    thread = threading.Thread(target=toggle, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def burst_times(text):
    """``(on_ms, off_ms)`` of ``--bursts ON_MS/OFF_MS``."""
    try:
        on, off = (int(part) for part in text.split('/'))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'--bursts {text!r}: expected ON_MS/OFF_MS, e.g. 400/200')
    if on < 1 or off < 1:
        raise argparse.ArgumentTypeError(
            f'--bursts {text!r}: both times must be at least 1 ms')
    return on, off


def node_figures(report):
    '''``{node: {variable: value}}`` of the single-node cases of a
    report.'''
    found = {}
    for run in json.loads(Path(report).read_text())['runs']:
        for case in run['testcases']:
            # ReFrame writes a one-node list as the node's name
            nodes = case.get('job_nodelist') or [None]
            node = nodes if isinstance(nodes, str) else nodes[0]
            if not node or not case.get('perfvalues'):
                continue
            check = case['display_name'].split()[0]
            for name, perf in case['perfvalues'].items():
                variable = name.split(':')[-1]
                found.setdefault(node, {})[f'{check} {variable}'] = perf[0]
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('state', type=Path)
    parser.add_argument('--nodes', type=int, default=5)
    parser.add_argument('--slow', default='n3')
    parser.add_argument('--percent', type=int, default=40)
    parser.add_argument('--period-us', type=int, default=10000)
    parser.add_argument('--bursts', type=burst_times)
    # what this parser does not know goes to acceptance.sh, wherever it is
    args, acceptance_args = parser.parse_known_args(argv)
    state = args.state
    if state.exists():
        parser.error(f'{state} exists: a night needs a new folder')
    state.mkdir(parents=True)
    (state / 'slurm').mkdir()
    (state / 'prefix').mkdir()
    report = state / 'reports' / 'fleet.json'
    try:
        with slurm_cluster.namespaced_nodes(state / 'slurm',
                                            args.nodes) as cluster:
            pid = (state / 'slurm' / f'slurmd-{args.slow}.pid'
                   ).read_text().strip()
            env = dict(os.environ, **cluster,
                       RFM_PREFIX=str(state / 'prefix'),
                       RFM_PERFLOG_DIR=str(state / 'perflogs'),
                       RFM_SQLITE_DB_FILE=str(state / 'results.db'),
                       RFM_REPORT_FILE=str(report),
                       HPC_ACCEPTANCE_LOCK_FILE=str(state / 'run.lock'),
                       HPC_ACCEPTANCE_SPACK='off')
            with quota(pid, f'rfmacc-throttled-{args.slow}', args.percent,
                       args.period_us) as group, \
                    (bursts(group, *args.bursts) if args.bursts else
                     contextlib.nullcontext()), \
                    open(state / 'acceptance.log', 'w') as log:
                status = subprocess.run(
                    [str(PROJECT / 'ci' / 'acceptance.sh'), '--fleet',
                     '--max-jobs', '1', *(acceptance_args or CHECKS),
                     '-C', str(OVERLAY), '--system', 'slurm-nodes'],
                    env=env, stdout=log, stderr=subprocess.STDOUT
                ).returncode
    except (OSError, ValueError, slurm_cluster.ClusterUnavailable) as err:
        print(f'throttled_node: {err}', file=sys.stderr)
        return 2

    text = (state / 'acceptance.log').read_text()
    print(f'throttled_node: {args.nodes} nodes, {args.slow} held to '
          f'{args.percent} % of a CPU in {args.period_us} us periods'
          + (f' for {args.bursts[0]} ms in every {sum(args.bursts)} ms'
             if args.bursts else '') + '; '
          f'acceptance.sh exit {status}; log in {state}/acceptance.log')
    words = ' '.join(text.split())
    for line in text.splitlines():
        if args.slow in line or 'suspect nodes' in line or \
                line.startswith('acceptance '):
            print(line)
    print(f'named {args.slow} as contended: '
          f'{f"{args.slow}: contended" in words}')
    if report.exists():
        figures = node_figures(report)
        names = sorted({n for node in figures.values() for n in node
                        if 'best_to_median' in n or n.endswith(
                            ('bandwidth_l1', 'flops_l1', 'triad'))})
        print('| figure | ' + ' | '.join(sorted(figures)) + ' |')
        print('|---|' + '---|' * len(figures))
        for name in names:
            print(f'| {name} | ' + ' | '.join(
                f'{figures[node].get(name, float("nan")):.3g}'
                for node in sorted(figures)) + ' |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
