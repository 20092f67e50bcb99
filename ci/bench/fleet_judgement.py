'''The judgement of a fleet run at a real fleet's size: a generated run of
NODES nodes, as the property tests generate fleets
(tests/helpers/generated_runs.py: three hardware generations, each node's
MemTotal jittered, the figures' noise, degraded nodes, retried, skipped
and failed test cases), then the wall time and the largest resident memory
of

    hpc-acceptance verdict REPORT 1                (the run's verdict)
    hpc-acceptance suspects --run-report REPORT    (the fleet comparison)

each a process of its own (``/usr/bin/time``), with an empty results
database of its own.

    PYTHONPATH=tests .venv/bin/python ci/bench/fleet_judgement.py \\
        [--nodes 10000] [--checks StreamCheck MemoryLatencyCheck ...]

Prints the report's size, then one line per command: its wall time and
CPU time, its largest resident memory and its exit status. Exit status: 0 measured, 2 cannot run.
'''

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from helpers import fleet_cases, generated_runs

PROJECT = Path(__file__).resolve().parents[2]
TOOL = PROJECT / '.venv' / 'bin' / 'hpc-acceptance'


def fleet(nodes, checks, seed=11):
    '''A generated fleet of ``nodes`` nodes running ``checks``: three
    hardware generations, a 3 % noise, 1 % of the nodes degraded, 1 % with
    a test case retried, skipped or failed.'''
    rng = random.Random(seed)
    generations = [generated_runs.generation(
        kb, cpu=cpu, cores=cores) for kb, cpu, cores in (
        (int(251.3 * 2 ** 20), generated_runs.CPUS[0], 64),
        (int(503.1 * 2 ** 20), generated_runs.CPUS[1], 96),
        (int(125.6 * 2 ** 20), generated_runs.CPUS[2], 32))]
    generation_of = [rng.choice((0, 0, 0, 1, 1, 2)) for _ in range(nodes)]
    memory = [generations[g].memory_kb + rng.randint(-40, 40) * 1024
              for g in generation_of]
    made = generated_runs.example(generations, generation_of, memory,
                                  checks=checks, noise=0.03, seed=seed,
                                  names='nid{:05d}')
    hit = rng.sample(made.nodes, max(1, nodes // 100))
    made.degraded = {node: (0.4, (checks[0],)) for node in hit}
    troubled = rng.sample(made.nodes, max(3, nodes // 100))
    thirds = len(troubled) // 3
    made.retried = frozenset((n, checks[-1]) for n in troubled[:thirds])
    made.skipped = frozenset((n, checks[-1])
                             for n in troubled[thirds:2 * thirds])
    made.failed = frozenset((n, checks[-1]) for n in troubled[2 * thirds:])
    return made


def timed(command, env):
    '''``(wall seconds, CPU seconds, largest resident MB, exit status)`` of
    ``command``.'''
    with tempfile.NamedTemporaryFile('r') as out:
        done = subprocess.run(['/usr/bin/time', '-f', '%e %U %S %M', '-o',
                               out.name, *command], env=env,
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        wall, user, system, kb = out.read().split()[-4:]

    return (float(wall), float(user) + float(system), int(kb) / 1024,
            done.returncode)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--nodes', type=int, default=10000)
    parser.add_argument('--checks', nargs='+',
                        default=sorted(fleet_cases.FIGURES),
                        choices=sorted(fleet_cases.FIGURES))
    args = parser.parse_args(argv)
    if not TOOL.exists() or not shutil.which('/usr/bin/time'):
        print(f'fleet_judgement: needs {TOOL} (ci/setup.sh) and '
              f'/usr/bin/time (Debian\'s time)', file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory() as tmp:
        started = time.time()
        report = Path(tmp) / 'fleet.json'
        report.write_text(json.dumps(generated_runs.report(
            fleet(args.nodes, args.checks))))
        made = time.time() - started
        cases = sum(len(run['testcases']) for run in
                    json.loads(report.read_text())['runs'])
        print(f'{args.nodes} nodes x {len(args.checks)} checks: {cases} test '
              f'case records, {report.stat().st_size / 2 ** 20:.0f} MB of '
              f'JSON (generated in {made:.0f} s)')
        env = dict(os.environ, RFM_SQLITE_DB_FILE=str(Path(tmp) / 'db'))
        for command in (['verdict', str(report), '1'],
                        ['suspects', '--run-report', str(report)]):
            wall, cpu, mb, status = timed([str(TOOL), *command], env)
            print(f'hpc-acceptance {command[0]}: {wall:.1f} s ({cpu:.1f} s '
                  f'of CPU), {mb:.0f} MB (exit {status})')

    return 0


if __name__ == '__main__':
    sys.exit(main())
