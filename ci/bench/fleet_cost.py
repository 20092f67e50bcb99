'''What a fleet night costs as the fleet grows (ci/bench/fleet_cost.sh).

    fleet_cost.py run DIR NODES [ACCEPTANCE ARGS...]   (as root)
    fleet_cost.py measure DIR                          DIR/measures.json
    fleet_cost.py table DIR [DIR...] [--nodes 1000]    the Markdown tables

``run`` starts a Slurm cluster of NODES nodes in network namespaces of
this machine (tests/helpers/slurm_cluster.py) and runs the fleet nightly on it,
``ci/acceptance.sh --fleet ARGS --system slurm-nodes``, under
process_timeline.py, with its own results database, stage and reports in
DIR. It reads slurmctld's CPU time (/proc/PID/stat: user + system) before
and after, and the load average every 30 s. Slurm's logs stay in
DIR/slurm.

``measure`` reads what the night left:

- Slurm's own times of every job, to the millisecond, from slurmctld's log
  (submitted, allocated, completed) and each node's slurmd log (the batch
  script launched, done). The test clusters keep no accounting database,
  so ``sacct`` knows nothing; these lines are logged at Slurm's default
  level (info).
- ReFrame's JSON reports: when ReFrame saw each job end
  (``job_completion_time_unix``: its squeue backend sets it at the first
  poll that no longer finds the job).
- the process timeline: the benchmark programs (processes in a stage
  directory named as a check's executable) and the rest of the jobs,
  ReFrame, its commands (sbatch, squeue, scontrol) and the tools around
  it, with the CPU time of each.

Every instant of the night's wall time goes to the first of
:data:`CLASSES` busy then (``suite_cost.attribute``). ``table`` prints one
row per cluster size, then fits each figure to ``a + b * jobs`` (least
squares) and projects it to ``--nodes`` nodes.
'''

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import process_timeline
import suite_cost

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'tests'))
from helpers import slurm_cluster  # noqa: E402  (as ci/bench/fleet_scale.sh)
from hpc_acceptance.tools.node_jobs.slurm_jobs import \
    nodes_per_job  # noqa: E402

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent.parent
OVERLAY = PROJECT / 'tests' / 'fixtures' / 'data' / 'slurm' / \
    'slurm_localhost.py'

#: Classes in order of precedence, and how the output names them.
CLASSES = {
    'programs': 'benchmark programs',
    'jobs': 'job scripts around the programs',
    'slurm': 'Slurm: submitted, not started',
    'polling': 'ReFrame noticing an ended job',
    'builds': 'builds',
    'commands': "ReFrame's commands (sbatch, squeue, ...)",
    'reframe': 'ReFrame itself',
    'setup': 'ci/setup.sh',
    'reports': 'the tools around ReFrame',
    'other': 'other',
}

#: The reports of a fleet night: ci/acceptance.sh names the confirmation
#: rerun's and the multi-node run's after the first.
REPORTS = ('fleet.json', 'fleet-confirm.json', 'fleet-multinode.json')

_STAMP = r'^\[(?P<time>\d{4}-\d\d-\d\dT[\d:.]+)\] '
_SUBMITTED = re.compile(
    _STAMP + r'_slurm_rpc_submit_batch_job: JobId=(?P<job>\d+) ', re.M)
# the main scheduler's line, or the backfill scheduler's
_ALLOCATED = re.compile(
    _STAMP + r'(?:sched: Allocate JobId=(?P<job>\d+) NodeList=(?P<node>\S+)'
    r'|sched/backfill: _start_job: Started JobId=(?P<bf_job>\d+) in \S+ '
    r'on (?P<bf_node>\S+))', re.M)
_COMPLETED = re.compile(_STAMP + r'_job_complete: JobId=(?P<job>\d+) done',
                        re.M)
_LAUNCHED = re.compile(_STAMP + r'Launching batch job (?P<job>\d+) ', re.M)
_DONE = re.compile(_STAMP + r'\[(?P<job>\d+)\.batch\] done with job', re.M)


def stamp(text):
    '''Seconds since the epoch of a Slurm log time stamp (local time, as
    Slurm writes it).'''
    return datetime.fromisoformat(text).timestamp()


def slurm_jobs(slurmctld_log, slurmd_logs):
    '''``{job id: {'submitted', 'allocated', 'node', 'launched', 'done',
    'completed'}}`` from slurmctld's log text and the slurmd logs' texts;
    a time its log lacks is ``None``.'''
    jobs = {}

    def job(number):
        return jobs.setdefault(int(number), dict.fromkeys(
            ('submitted', 'allocated', 'node', 'launched', 'done',
             'completed')))

    for match in _SUBMITTED.finditer(slurmctld_log):
        job(match['job'])['submitted'] = stamp(match['time'])

    for match in _ALLOCATED.finditer(slurmctld_log):
        entry = job(match['job'] or match['bf_job'])
        entry['allocated'] = stamp(match['time'])
        entry['node'] = match['node'] or match['bf_node']

    for match in _COMPLETED.finditer(slurmctld_log):
        job(match['job'])['completed'] = stamp(match['time'])

    for text in slurmd_logs:
        for pattern, key in ((_LAUNCHED, 'launched'), (_DONE, 'done')):
            for match in pattern.finditer(text):
                job(match['job'])[key] = stamp(match['time'])

    return jobs


def report_cases(paths):
    '''``(sessions, cases)`` of the ReFrame reports that exist.'''
    sessions, cases = [], []
    for path in paths:
        if not Path(path).is_file():
            continue

        session, run_cases = suite_cost.read_report(path)
        sessions.append(session)
        cases += run_cases

    return sessions, cases


def job_spans(jobs, cases):
    '''Spans (as ``suite_cost.intervals`` yields them) of Slurm's part of
    each job: submitted to started, the job, and from its end until
    ReFrame saw it end.'''
    seen = {int(c['jobid']): c for c in cases
            if str(c.get('jobid') or '').isdigit()}
    for number, job in sorted(jobs.items()):
        case = seen.get(number, {})
        test = case.get('name') or f'job {number}'
        if job['submitted'] and job['launched']:
            yield (job['submitted'], job['launched'], 'slurm', 'slurm',
                   test, 0)
        if job['launched'] and job['done']:
            yield job['launched'], job['done'], 'jobs', 'slurmstepd', test, 0
        noticed = case.get('job_completion_time_unix')
        if job['done'] and noticed and noticed > job['done']:
            yield job['done'], noticed, 'polling', 'ReFrame', test, 0


def process_spans(timeline, programs):
    '''Spans of the timeline's processes: those in a job (adopted from a
    stage directory, not descended from the command) as programs or job
    scripts, the others as ``suite_cost.intervals`` classes them.'''
    everything = suite_cost.Processes(timeline['processes'])
    ours, in_jobs = [], []
    for record in timeline['processes']:
        top = list(everything.lineage(record))[-1]
        (ours if top['pid'] == timeline['pid'] else in_jobs).append(record)

    yield from suite_cost.intervals(suite_cost.Processes(ours), programs)
    for record in in_jobs:
        kind = 'programs' if record['name'] in programs else 'jobs'
        yield (record['start'], record['end'], kind, record['name'],
               os.path.basename(record['cwd']), 1)


def cpu_of(timeline, name, apart=()):
    '''CPU seconds of the timeline's processes called ``name`` that no
    such process started (their own and their reaped children's), less
    those of the outermost of their descendants called one of ``apart``
    (counted on their own: ``hpc-acceptance run`` starts ReFrame).'''
    records = suite_cost.Processes(timeline['processes'])
    roots = {id(r) for r in records.records if r['name'] == name and
             (records.parent(r) or {}).get('name') != name}
    total = sum(r['cpu'] + r['child_cpu'] for r in records.records
                if id(r) in roots)
    for record in records.records:
        ancestors = list(records.lineage(record))[1:]
        if (record['name'] in apart and
                any(id(a) in roots for a in ancestors) and
                not any(a['name'] in apart for a in ancestors)):
            total -= record['cpu'] + record['child_cpu']

    return total


def per_job(jobs, cases):
    '''Medians, in seconds, of each job's steps.'''
    def median(values):
        values = [v for v in values if v is not None]
        return round(statistics.median(values), 3) if values else None

    ran = [j for j in jobs.values() if j['submitted'] and j['launched']]
    noticed = {int(c['jobid']): c['job_completion_time_unix']
               for c in cases if str(c.get('jobid') or '').isdigit()
               and c.get('job_completion_time_unix')}
    return {
        'submission to start': median(
            j['launched'] - j['submitted'] for j in ran),
        'scheduler': median(j['allocated'] - j['submitted'] for j in ran
                            if j['allocated']),
        'start on the node': median(j['launched'] - j['allocated']
                                    for j in ran if j['allocated']),
        'on the node': median(j['done'] - j['launched'] for j in ran
                              if j['done']),
        'noticed': median(noticed[n] - j['done'] for n, j in jobs.items()
                          if n in noticed and j['done']),
    }


def mode_of(args):
    '''The fleet mode of a night run with ci/acceptance.sh arguments
    ``args``: ``node-jobs`` unless ``--fleet-mode`` said otherwise, and
    ``node-groups`` for node jobs of several nodes (``--nodes-per-job``).'''
    mode = 'node-jobs'
    for arg, following in zip(args, args[1:] + ['']):
        if arg == '--fleet-mode':
            mode = following
        elif arg.startswith('--fleet-mode='):
            mode = arg.split('=', 1)[1]

    grouped = any(a == '--nodes-per-job' or a.startswith('--nodes-per-job=')
                  for a in args)
    return 'node-groups' if mode == 'node-jobs' and grouped else mode


def per_node(jobs):
    '''``{node: seconds}`` each node ran jobs (batch script launched to
    done, every job on it).'''
    busy = {}
    for job in jobs.values():
        if job['node'] and job['launched'] and job['done']:
            busy[job['node']] = busy.get(job['node'], 0.0) + \
                job['done'] - job['launched']

    return busy


def program_seconds(timeline, programs):
    '''Seconds the benchmark programs ran, all together.'''
    return sum(r['end'] - r['start'] for r in timeline['processes']
               if suite_cost.process_name(r['argv']) in programs and
               r['end'] and r['start'])


def night_of(folder):
    '''What a night of node jobs cost (its ``cost.json``) and its nodes'
    records: the coordinator's CPU to submit and watch, to collect, to
    store; each node's run (seconds) and its ReFrame's CPU; ``None``
    without a night.'''
    try:
        cost = json.loads((folder / 'cost.json').read_text())
    except (OSError, ValueError):
        return None

    statuses = [json.loads(p.read_text())
                for p in sorted(folder.glob('*/status.json'))]
    ran = [s['ended'] - s['started'] for s in statuses if s.get('ended')]
    cpu = [s['cpu'] for s in statuses if s.get('cpu') is not None]
    return {
        'submit and watch': round(cost['cpu_watched'] - cost['cpu_before'],
                                  2),
        'collect': round(cost['cpu_collected'] - cost['cpu_watched'], 2),
        'store': round(cost['cpu_stored'] - cost['cpu_collected'], 2),
        'sbatch': cost['sbatch'], 'polls': cost['polls'],
        'node run': round(statistics.median(ran), 1) if ran else None,
        'node ReFrame CPU': round(statistics.median(cpu), 1) if cpu
        else None,
    }


def measure(state):
    '''The night's figures (see the module's docstring).'''
    state = Path(state)
    cluster = json.loads((state / 'cluster.json').read_text())
    timeline = json.loads((state / 'timeline.json').read_text())
    sessions, cases = report_cases(state / 'reports' / name
                                   for name in REPORTS)
    slurm = state / 'slurm'
    jobs = slurm_jobs((slurm / 'slurmctld.log').read_text(),
                      [p.read_text() for p in
                       sorted(slurm.glob('slurmd-*.log'))])
    programs = suite_cost.program_names(cases)
    spans = list(process_spans(timeline, programs)) + \
        list(job_spans(jobs, cases))
    per_class, per_label, _ = suite_cost.attribute(
        spans, timeline['start'], timeline['end'], order=CLASSES)
    wall = timeline['end'] - timeline['start']
    first = min((j['submitted'] for j in jobs.values() if j['submitted']),
                default=timeline['start'])
    busy = list(per_node(jobs).values())
    on_each = program_seconds(timeline, programs) / cluster['nodes']
    return {
        'mode': mode_of(cluster.get('args', [])),
        'to verdict': round(timeline['end'] - first, 1),
        'per node': {
            'busy': round(statistics.median(busy), 1) if busy else None,
            'programs': round(on_each, 1),
            'overhead': round(statistics.median(busy) - on_each, 1)
            if busy else None},
        'night': night_of(state / 'reports' / 'fleet-node-runs'),
        'nodes': cluster['nodes'],
        'started': cluster['started'],
        'status': timeline['status'],
        'load': cluster['load'],
        'wall': round(wall, 1),
        'jobs': sum(1 for j in jobs.values() if j['submitted']),
        'test cases': sum(1 for c in cases if not c.get('fixture')),
        'sessions': [round(s.get('time_elapsed') or 0, 1) for s in sessions],
        'classes': {c: round(per_class.get(c, 0), 1) for c in CLASSES},
        'largest': {c: suite_cost.largest(per_label, c) for c in CLASSES
                    if per_class.get(c)},
        'per job': per_job(jobs, cases),
        'cpu': {'reframe': round(cpu_of(timeline, 'reframe'), 1),
                'tools': round(cpu_of(timeline, 'hpc-acceptance',
                                      apart={'reframe'}), 1),
                'coordinator': round(cpu_of(timeline, 'hpc-acceptance'), 1),
                'slurmctld': round(cluster['slurmctld_cpu'], 1)},
    }


def fit(xs, ys):
    '''``(a, b)`` of the least-squares line ``a + b * x``.'''
    slope, intercept = statistics.linear_regression(xs, ys)
    return intercept, slope


#: The figures fitted, and how a night's measures give each; the wall
#: time's parts come first, then CPU times.
WHOLE = 'wall time (s)'
COLUMNS = {
    'wall time (s)': lambda m: m['wall'],
    'benchmark programs (s)': lambda m: m['classes']['programs'],
    'job scripts around them (s)': lambda m: m['classes']['jobs'],
    'Slurm, submitted to started (s)': lambda m: m['classes']['slurm'],
    'ReFrame noticing ended jobs (s)': lambda m: m['classes']['polling'],
    'ReFrame itself and its commands (s)': lambda m: (
        m['classes']['reframe'] + m['classes']['commands'] +
        m['classes']['builds']),
    'tools and setup around ReFrame (s)': lambda m: (
        m['classes']['reports'] + m['classes']['setup'] +
        m['classes']['other']),
    'ReFrame CPU (s)': lambda m: m['cpu']['reframe'],
    'tools CPU (s)': lambda m: m['cpu']['tools'],
    'slurmctld CPU (s)': lambda m: m['cpu']['slurmctld'],
}


def table(nights, nodes, out=sys.stdout):
    '''Prints the per-size table, then the fits and their projection to
    ``nodes`` nodes.'''
    nights = sorted(nights, key=lambda m: m['nodes'])
    print('| nodes | jobs | wall | benchmark share | submission to start '
          '(median a job) | ReFrame noticing an end (median a job) | '
          'ReFrame CPU | slurmctld CPU | load (1 min) |', file=out)
    print('|---' * 9 + '|', file=out)
    for m in nights:
        share = m['classes']['programs'] / m['wall']
        low, high = min(m['load']), max(m['load'])
        print(f"| {m['nodes']} | {m['jobs']} | {m['wall']:.0f} s | "
              f"{share:.0%} | {m['per job']['submission to start']:.2f} s | "
              f"{m['per job']['noticed']:.2f} s | "
              f"{m['cpu']['reframe']:.0f} s | {m['cpu']['slurmctld']:.1f} s "
              f"| {low:.1f}–{high:.1f} |", file=out)

    if len(nights) < 2:
        print('\n(one size: no fit)', file=out)
        return

    jobs = [m['jobs'] for m in nights]
    a, b = fit([m['nodes'] for m in nights], jobs)
    projected_jobs = a + b * nodes
    print(f'\njobs = {a:.1f} + {b:.2f} x nodes: {projected_jobs:.0f} jobs '
          f'at {nodes} nodes\n', file=out)
    print(f'| figure | a (s) | b (s a job) | at {nodes} nodes | share of '
          f'the projected wall |', file=out)
    print('|---' * 5 + '|', file=out)
    fits = {name: fit(jobs, [value(m) for m in nights])
            for name, value in COLUMNS.items()}
    projected = {name: a + b * projected_jobs
                 for name, (a, b) in fits.items()}
    for name, (a, b) in fits.items():
        # the CPU times are not parts of the wall time
        share = ('' if name in WHOLE or 'CPU' in name else
                 f'{projected[name] / projected[WHOLE]:.0%}')
        print(f'| {name} | {a:.1f} | {b:.3f} | {projected[name]:.0f} s | '
              f'{share} |', file=out)


#: Single-node test cases a node runs in the nightly set, the builds left
#: out: `reframe -C config/settings.py --mode nightly
#: --exclude-tag=multinode -l` on the embedded default (2026-11-28).
FULL_SET_CASES = 38


def orchestration(m):
    '''CPU seconds of what runs the night's checks on the nodes and
    collects them, from the coordinator: ReFrame's (every run, with
    ``--distribute``; the multi-node run's, with node jobs) and, with node
    jobs, the coordinator's submitting, watching, collecting and storing;
    the judgement (summary, page, verdict) left out.'''
    night = m.get('night') or {}
    return m['cpu']['reframe'] + sum(
        night.get(k, 0.0) for k in ('submit and watch', 'collect', 'store'))


def _row(m):
    per_node = m['per node']
    night = m.get('night') or {}
    return (f"| {m['mode']} | {m['nodes']} | {m['jobs']} | {m['wall']:.0f} s "
            f"| {m['to verdict']:.0f} s | {orchestration(m):.1f} s "
            f"| {m['cpu']['coordinator']:.1f} s | {m['cpu']['slurmctld']:.1f} s "
            f"| {per_node['busy']} s | {per_node['overhead']} s "
            f"| {m['per job']['submission to start']} s "
            f"| {night.get('node ReFrame CPU', '')} |")


def projected(nights, nodes, cases=FULL_SET_CASES):
    '''``{mode: (jobs, orchestration CPU, slurmctld CPU)}`` at ``nodes``
    nodes each running ``cases`` test cases, fitted per mode: with
    ``--distribute`` every figure to ``a + b x jobs`` and a job per test
    case and node (the builds once); with node jobs the submitting and
    watching to ``a + b x sbatch``, collecting and storing per test case,
    slurmctld to ``a + b x jobs``, a job per node (``node-jobs``) or per
    group of the default size (``node-groups``).'''
    found = {}
    for mode in sorted({m['mode'] for m in nights}):
        own = sorted((m for m in nights if m['mode'] == mode),
                     key=lambda m: m['nodes'])
        if len(own) < 2:
            continue

        jobs = [m['jobs'] for m in own]
        # the jobs besides the nodes' (the builds, the multi-node run's)
        others = max(0.0, fit([m['nodes'] for m in own], jobs)[0])
        if mode in ('node-jobs', 'node-groups'):
            # one sbatch a job: a node each, or as many as the default
            # groups of a night of ``nodes`` make
            submitted = nodes if mode == 'node-jobs' else math.ceil(
                nodes / nodes_per_job(nodes))
            total_jobs = submitted + others
            watch = fit([m['night']['sbatch'] for m in own],
                        [m['night']['submit and watch'] for m in own])
            per_case = statistics.median(
                (m['night']['collect'] + m['night']['store']) /
                m['test cases'] for m in own)
            reframe = statistics.median(m['cpu']['reframe'] for m in own)
            cpu = (reframe + watch[0] + watch[1] * submitted +
                   per_case * nodes * cases)
        else:
            total_jobs = others + nodes * cases
            a, b = fit(jobs, [orchestration(m) for m in own])
            cpu = a + b * total_jobs
        ctld = fit(jobs, [m['cpu']['slurmctld'] for m in own])
        found[mode] = (total_jobs, cpu, ctld[0] + ctld[1] * total_jobs)

    return found


def compare(nights, sizes=(1000, 10000), out=sys.stdout,
            cases=FULL_SET_CASES):
    '''The side-by-side table of the nights of both fleet modes, then the
    projection to each of ``sizes`` nodes with ``cases`` test cases a
    node.'''
    print('| mode | nodes | jobs | wall | first submission to verdict | '
          'orchestration CPU | coordinator CPU (all) | slurmctld CPU | '
          'a node busy (median) | a node\'s overhead (median) | submission '
          'to start (median a job) | a node\'s ReFrame CPU (median) |',
          file=out)
    print('|---' * 12 + '|', file=out)
    for m in sorted(nights, key=lambda m: (m['mode'], m['nodes'])):
        print(_row(m), file=out)

    found = {size: projected(nights, size, cases) for size in sizes}
    print(f'\nProjected to the nightly set ({cases} single-node test cases '
          f'a node):\n', file=out)
    print('| mode | nodes | jobs | orchestration CPU | slurmctld CPU |',
          file=out)
    print('|---' * 5 + '|', file=out)
    for size, modes in found.items():
        for mode, (jobs, cpu, ctld) in modes.items():
            print(f'| {mode} | {size} | {jobs:.0f} | {cpu:.0f} s | '
                  f'{ctld:.0f} s |', file=out)


def load_sampler(samples, stop, every=30):
    '''Appends the 1-minute load average to ``samples`` every ``every``
    seconds until ``stop`` is set.'''
    while True:
        with open('/proc/loadavg') as fp:
            samples.append(float(fp.read().split()[0]))
        if stop.wait(every):
            return


def cpu_seconds(pid):
    '''CPU seconds (user + system) a running process has used.'''
    stat = process_timeline.stat_of(pid)
    if stat is None:
        raise RuntimeError(f'process {pid} is gone')

    return stat[3] / os.sysconf('SC_CLK_TCK')


def run(state, nodes, args):
    '''The fleet nightly on a cluster of ``nodes`` nodes, its traces in
    ``state``; the exit status of ci/acceptance.sh.'''
    state.mkdir(parents=True)
    (state / 'slurm').mkdir()
    samples, stop = [], threading.Event()
    sampler = threading.Thread(target=load_sampler, args=(samples, stop))
    started = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    with slurm_cluster.namespaced_nodes(state / 'slurm', nodes) as cluster:
        controller = int((state / 'slurm' / 'slurmctld.pid').read_text())
        before = cpu_seconds(controller)
        env = dict(os.environ, **cluster,
                   RFM_PREFIX=str(state / 'prefix'),
                   RFM_PERFLOG_DIR=str(state / 'perflogs'),
                   RFM_REPORT_JUNIT=str(state / 'junit.xml'),
                   RFM_SQLITE_DB_FILE=str(state / 'results.db'),
                   RFM_REPORT_FILE=str(state / 'reports' / REPORTS[0]),
                   HPC_ACCEPTANCE_LOCK_FILE=str(state / 'run.lock'),
                   HPC_ACCEPTANCE_SPACK='off')
        (state / 'prefix').mkdir()
        sampler.start()
        try:
            with open(state / 'acceptance.log', 'w') as log:
                status = subprocess.run(
                    [sys.executable, str(BENCH / 'process_timeline.py'),
                     str(state / 'timeline.json'),
                     '--also-under', str(state / 'prefix'), '--',
                     str(PROJECT / 'ci' / 'acceptance.sh'), '--fleet', *args,
                     '-C', str(OVERLAY), '--system', 'slurm-nodes'],
                    env=env, stdout=log, stderr=subprocess.STDOUT).returncode
        finally:
            stop.set()
            sampler.join()

        used = cpu_seconds(controller) - before

    (state / 'cluster.json').write_text(json.dumps({
        'nodes': nodes, 'started': started, 'args': args, 'status': status,
        'slurmctld_cpu': used, 'load': samples}, indent=1))
    return status


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    run_parser = sub.add_parser('run')
    run_parser.add_argument('state', type=Path)
    run_parser.add_argument('nodes', type=int)
    run_parser.add_argument('args', nargs=argparse.REMAINDER)
    measure_parser = sub.add_parser('measure')
    measure_parser.add_argument('state', type=Path)
    table_parser = sub.add_parser('table')
    table_parser.add_argument('states', type=Path, nargs='+')
    table_parser.add_argument('--nodes', type=int, default=1000)
    compare_parser = sub.add_parser('compare')
    compare_parser.add_argument('states', type=Path, nargs='+')
    compare_parser.add_argument('--cases', type=int, default=FULL_SET_CASES)
    args = parser.parse_args(argv)
    try:
        if args.command == 'run':
            if args.state.exists():
                parser.error(f'{args.state} exists: a night needs a new '
                             f'folder')
            if args.nodes < 1:
                parser.error(f'{args.nodes} nodes: 1 or more')
            run(args.state, args.nodes, args.args)
        elif args.command == 'measure':
            night = measure(args.state)
            (args.state / 'measures.json').write_text(
                json.dumps(night, indent=1))
            print(json.dumps(night))
        elif args.command == 'compare':
            compare([json.loads((s / 'measures.json').read_text())
                     for s in args.states], cases=args.cases)
        else:
            table([json.loads((s / 'measures.json').read_text())
                   for s in args.states], args.nodes)
    except (OSError, ValueError, KeyError,
            slurm_cluster.ClusterUnavailable) as err:
        print(f'fleet_cost: {err}', file=sys.stderr)
        return 2

    return 0


if __name__ == '__main__':
    sys.exit(main())
