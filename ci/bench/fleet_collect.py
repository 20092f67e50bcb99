'''What the coordinator of a fleet night pays after the jobs: collecting
the nodes' reports into the run's one report, and storing it in the
results database, at a real fleet's size.

    .venv/bin/python ci/bench/fleet_collect.py NIGHT_DIR [--nodes 1000 ...]

NIGHT_DIR is the ``<stem>-node-runs`` folder of a night that ran (e.g.
``var/bench/fleet-cost-*/nodes-16-node-jobs/reports/fleet-node-runs``
after ``ci/bench/fleet_cost.sh``). For each size, a night of that many
nodes is made from it in a temporary folder: its node folders cycled, each
copy's node name put in place of the original's (``n3`` becomes ``n1019``
in the report, status, perflogs), its plan and jobs the original's with
the new nodes, its perflogs folder its own. Then, in this process, the CPU seconds and the
largest resident memory of

    gather.collect(REPORT)                  the nodes' reports into one
    gather.store(REPORT, ..., DATABASE)     the run into an empty database

and with ``--read-back`` the sessions stored (more than one: a night too
large for one SQLite value, stored as parts) and the CPU seconds of

    runs.session_testcases(UUID, DATABASE)  its test cases read back

Prints one line per size. Exit status: 0 measured, 2 cannot run.
'''

import argparse
import json
import os
import re
import resource
import shutil
import sys
import tempfile
import sqlite3
import time
from pathlib import Path

from hpc_acceptance.tools.node_jobs import gather
from hpc_acceptance.tools.node_jobs.night import SUFFIX, Night
from hpc_acceptance.tools.results import runs


def _renamed(text, old, new):
    '''``text`` with the node name ``old`` made ``new`` where it stands
    alone (not inside ``n10`` for ``n1``).'''
    return re.sub(rf'(?<![\w.-]){re.escape(old)}(?![\w-])', new, text)


def scaled(source, nodes, folder):
    '''A night of ``nodes`` nodes in ``folder`` made from the night
    ``source`` (see the module's docstring); the report's path.'''
    night = Night(source)
    plan = night.read_plan()
    jobs = night.read_jobs()
    ran = [n for n in sorted(plan['nodes'])
           if os.path.exists(night.report(n))]
    if not ran:
        raise ValueError(f'{source}: no node report to copy')

    report = os.path.join(folder, 'fleet.json')
    made = Night(report[:-len('.json')] + SUFFIX)
    os.makedirs(made.folder)
    names = [f'n{i}' for i in range(1, nodes + 1)]
    plan['nodes'] = {}
    new_jobs = {}
    for index, name in enumerate(names):
        original = ran[index % len(ran)]
        os.makedirs(made.node_dir(name))
        for part in ('report.json', 'status.json'):
            text = Path(night.node_dir(original), part).read_text()
            Path(made.node_dir(name), part).write_text(
                _renamed(text, original, name))
        shutil.copy(night.log(original), made.log(name))
        for path in Path(night.perflogs(original)).rglob('*.log'):
            copy = Path(made.perflogs(name)) / path.relative_to(
                night.perflogs(original))
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(_renamed(path.read_text(), original, name))
        plan['nodes'][name] = night.read_plan()['nodes'][original]
        new_jobs[name] = dict(jobs.get(original, {}), job=str(index + 1))

    # the run's perflogs, which the nodes' join, are the made night's own
    plan['perflogs'] = os.path.join(folder, 'perflogs')
    Path(made.plan).write_text(json.dumps(plan))
    Path(made.jobs).write_text(json.dumps(new_jobs))
    return report


def _cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def measure(source, nodes, read_back=False):
    '''``(test cases, collect CPU s, store CPU s, largest RSS MB, read
    back)`` of a night of ``nodes`` nodes made from ``source``; ``read
    back`` with ``read_back``: ``(sessions stored, test cases read, CPU
    s)``, else ``None``.'''
    with tempfile.TemporaryDirectory() as folder:
        report = scaled(source, nodes, folder)
        database = os.path.join(folder, 'db')
        started = _cpu()
        merged, _ = gather.collect(report)
        collected = _cpu()
        with open(os.devnull, 'w') as log:
            stored = gather.store(report, merged, log, database)
        done = _cpu()
        if not stored:
            raise RuntimeError(f'the {nodes}-node night was not stored')

        cases = sum(len(run['testcases']) for run in merged['runs'])
        session = merged['session_info']['uuid']
        del merged
        back = _read_back(database, session) if read_back else None
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return cases, collected - started, done - collected, rss, back


def _read_back(database, session):
    with sqlite3.connect(database) as conn:
        (sessions,) = conn.execute('SELECT count(*) FROM sessions').fetchone()
    started = _cpu()
    cases = len(runs.session_testcases(session, database))
    return sessions, cases, _cpu() - started


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('night', type=Path)
    parser.add_argument('--nodes', type=int, nargs='+', default=[1000])
    parser.add_argument('--read-back', action='store_true',
                        help='read the stored night back by its UUID')
    args = parser.parse_args(argv)
    if not (args.night / 'night.json').is_file():
        print(f'fleet_collect: {args.night}: no night.json (the '
              f'<stem>-node-runs folder of a night that ran)',
              file=sys.stderr)
        return 2

    for nodes in args.nodes:
        begun = time.time()
        cases, collect, store, rss, back = measure(str(args.night), nodes,
                                                   args.read_back)
        each = (collect + store) / cases * 1e3
        read = (f', {back[0]} session(s) stored, {back[1]} test cases read '
                f'back in {back[2]:.1f} s of CPU' if back else '')
        print(f'{nodes} nodes, {cases} test cases: collect {collect:.1f} s, '
              f'store {store:.1f} s of CPU ({each:.2f} ms a test case){read}'
              f', {rss:.0f} MB largest so far, {time.time() - begun:.0f} s '
              f'in all')

    return 0


if __name__ == '__main__':
    sys.exit(main())
