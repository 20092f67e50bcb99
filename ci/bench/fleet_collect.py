'''What the coordinator of a fleet night pays after the jobs: collecting
the nodes' reports into the run's one report, and storing it in the
results database, at a real fleet's size.

    .venv/bin/python ci/bench/fleet_collect.py NIGHT_DIR [--nodes 1000 ...]
        [--copies C] [--read-back]

NIGHT_DIR is the ``<stem>-node-runs`` folder of a night that ran (e.g.
``var/bench/fleet-cost-*/nodes-16-node-jobs/reports/fleet-node-runs``
after ``ci/bench/fleet_cost.sh``). For each size, a night of that many
nodes is made from it in a temporary folder: its node folders cycled, each
copy's node name put in place of the original's (``n3`` becomes ``n1019``
in the report, status, perflogs), its plan and jobs the original's with
the new nodes, its perflogs folder its own. With ``--copies C`` each
copy's test cases (not its builds) are C test cases each, variants
``%copy=1`` and on beside the original, their perflog lines too: a node
of the nightly set's size (41 records) from a night of 3 checks (C = 12:
4 builds and 36 test cases). Then, in this process, the CPU seconds and the
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
import sqlite3
import tempfile
import time
from pathlib import Path

from hpc_acceptance.tools.node_jobs import gather
from hpc_acceptance.tools.node_jobs.night import SUFFIX, Night
from hpc_acceptance.tools.results import runs


def _renamed(text, old, new):
    '''``text`` with the node name ``old`` made ``new`` where it stands
    alone (not inside ``n10`` for ``n1``).'''
    return re.sub(rf'(?<![\w.-]){re.escape(old)}(?![\w-])', new, text)


#: Where a test case's display name takes the variant of its copy: before
#: the partition and node ReFrame's fleet mode pins it to.
_PINNED = ' %.part='


def _copied(name, copy):
    return name.replace(_PINNED, f' %copy={copy}{_PINNED}', 1)


def _widened_report(text, copies):
    '''The node's report ``text`` with each test case that is no build
    ``copies`` test cases (:func:`_copied`), as its ReFrame writes it.'''
    report = json.loads(text)
    session = report['session_info']['uuid']
    for number, run in enumerate(report['runs']):
        cases = []
        for case in run['testcases']:
            made = range(copies if _PINNED in case['display_name'] else 1)
            cases += [dict(case, display_name=_copied(case['display_name'],
                                                      copy),
                           name=f'{case["name"]}_copy{copy}',
                           unique_name=f'{case["unique_name"]}_copy{copy}')
                      if copy else case for copy in made]
        for index, case in enumerate(cases):
            case['uuid'] = f'{session}:{number}:{index}'
        run['testcases'] = cases
        run['num_cases'] = len(cases)
    report['session_info']['num_cases'] = sum(
        len(run['testcases']) for run in report['runs'][:1])
    return json.dumps(report, indent=2)


def _widened_perflog(text, copies):
    header, *lines = text.splitlines(keepends=True)
    return header + ''.join(
        line if copy == 0 else _copied(line, copy)
        for line in lines
        for copy in range(copies if _PINNED in line else 1))


def scaled(source, nodes, folder, copies=1):
    '''A night of ``nodes`` nodes in ``folder`` made from the night
    ``source``, each node's test cases ``copies`` (see the module's
    docstring); the report's path.'''
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
            text = _renamed(Path(night.node_dir(original), part).read_text(),
                            original, name)
            if part == 'report.json' and copies > 1:
                text = _widened_report(text, copies)
            Path(made.node_dir(name), part).write_text(text)
        shutil.copy(night.log(original), made.log(name))
        for path in Path(night.perflogs(original)).rglob('*.log'):
            copy = Path(made.perflogs(name)) / path.relative_to(
                night.perflogs(original))
            copy.parent.mkdir(parents=True, exist_ok=True)
            text = _renamed(path.read_text(), original, name)
            copy.write_text(_widened_perflog(text, copies) if copies > 1
                            else text)
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


def measure(source, nodes, read_back=False, copies=1):
    '''``(test cases, collect CPU s, store CPU s, largest RSS MB, read
    back)`` of a night of ``nodes`` nodes made from ``source``; ``read
    back`` with ``read_back``: ``(sessions stored, test cases read, CPU
    s)``, else ``None``.'''
    with tempfile.TemporaryDirectory() as folder:
        report = scaled(source, nodes, folder, copies)
        database = os.path.join(folder, 'db')
        started = _cpu()
        merged, _ = gather.collect(report)
        collected = _cpu()
        with open(os.devnull, 'w') as log:
            stored = gather.store(report, merged, log, database)
        done = _cpu()
        if not stored:
            raise RuntimeError(f'the {nodes}-node night was not stored')

        cases = len(merged.records())
        session = merged.session_info['uuid']
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
    parser.add_argument('--copies', type=int, default=1,
                        help='each test case of a node C test cases')
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
        cases, collect, store, rss, back = measure(
            str(args.night), nodes, args.read_back, args.copies)
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
