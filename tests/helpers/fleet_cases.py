'''Synthetic test cases of a fleet run, shaped as ReFrame's JSON report
and results database give them (``%.nid=`` in the display name, the
``node`` the job reported, ``perfvalues``), for the fleet tools' tests.

The spread between nodes is realistic: each figure's values scatter by a
few percent around the figure's own level (run-to-run noise and identical
processors that differ in their Turbo clocks), and ``slow`` nodes are
slowed by a factor on every figure of chosen checks.
'''

import copy
import hashlib
import json
import random
import time
from pathlib import Path

#: A session's uuid as ReFrame writes it, for the reports tests write by
#: hand: a report without one is refused (:mod:`..results.report_shape`).
SESSION = '00000000-0000-4000-8000-000000000047'

#: Checks and their figures: ``{check: [(figure, unit, level)]}``.
FIGURES = {
    'StreamCheck': [('copy', 'MB/s', 36000), ('scale', 'MB/s', 35000),
                    ('add', 'MB/s', 38000), ('triad', 'MB/s', 38500),
                    ('core_clock', 'GHz', 2.9)],
    'MemoryLatencyCheck': [('latency_l1', 'ns', 1.2),
                           ('latency_l2', 'ns', 4.1),
                           ('latency_memory', 'ns', 95.0),
                           ('core_clock', 'GHz', 2.9)],
    'MemoryDaxpyCheck': [('flops_l1', 'MFLOP/s', 9000),
                         ('flops_memory', 'MFLOP/s', 1500),
                         ('core_clock', 'GHz', 2.9)],
}


def _family(check):
    '''The folder of ``checks/`` a check class lives in.'''
    for family in ('Memory', 'Stream', 'Network', 'Npb', 'Hpcc'):
        if check.startswith(family):
            return family.lower()

    return 'synthetic'


def session_id(number):
    '''A session UUID of ReFrame's form, the same for the same number (the
    tools refuse a session id of another form).'''
    return f'00000000-0000-4000-8000-{number:012x}'


def case(node, check, values, *, session=session_id(1), when=1000.0,
         result='pass', system='cluster', partition='compute',
         threads='single', identity='dependency=spack;isa_built=native'):
    '''One test case of ``check`` on ``node`` with ``values``
    ``{figure: (value, unit)}``.'''
    return {
        'display_name': f'{check} %isa=native %turbo=as-configured '
                        f'%smt=as-configured %threads={threads} '
                        f'%.part={system}:{partition} %.nid={node}',
        'system': system, 'partition': partition, 'environ': 'gnu',
        'fixture': False, 'result': result, 'node': node,
        'job_nodelist': [node], 'session_uuid': session,
        'job_completion_time_unix': when, 'identity': identity,
        'filename': f'/checks/{_family(check)}/check.py',
        'fail_phase': 'sanity' if result == 'fail' else None,
        'fail_reason': 'validation failed' if result == 'fail' else None,
        'perfvalues': {
            f'{system}:{partition}:{name}': [value, 0, None, None, unit,
                                             result]
            for name, (value, unit) in values.items()
        },
    }


def fleet(nodes, *, slow=None, spread=0.02, seed=1, figures=FIGURES,
          threads=('single',), **kwargs):
    '''Test cases of every check of ``figures`` on ``nodes`` nodes
    ``n1``...; ``slow`` maps a node to ``(factor, checks)``: its figures of
    those checks lose that fraction of performance.'''
    rng = random.Random(seed)
    slow = slow or {}
    cases = []
    for number in range(1, nodes + 1):
        node = f'n{number}'
        factor, slowed = slow.get(node, (0.0, ()))
        for check, check_figures in figures.items():
            for layout in threads:
                values = {}
                for name, unit, level in check_figures:
                    value = level * rng.lognormvariate(0, spread)
                    if check in slowed:
                        value = (value / (1 - factor) if unit == 'ns'
                                 else value * (1 - factor))

                    values[name] = (value, unit)

                cases.append(case(node, check, values, threads=layout,
                                  **kwargs))

    return cases


def big_fleet(nodes=1000, figures=100, seed=7, slow=None):
    '''``nodes`` nodes x ``figures`` figures (20 checks of 5 figures).'''
    per_check = 5
    many = {f'Synthetic{i:02d}Check': [(f'bandwidth_{j}', 'MB/s',
                                        1000.0 * (i + 1) + j)
                                       for j in range(per_check)]
            for i in range(figures // per_check)}
    return fleet(nodes, figures=many, seed=seed, slow=slow)


#: A real ReFrame JSON report (tests/fixtures/data/reframe_runs/), whose
#: session and test case records the synthetic ones below are made from,
#: so that ReFrame's own storage takes them (``hpc-acceptance db import``).
REAL_REPORT = (Path(__file__).parent.parent / 'fixtures' / 'data' /
               'reframe_runs' / 'acceptance-report.json')


def hardware(cpu='Intel(R) Xeon(R) Gold 6430', cores=64, memory_gib=512,
             bios='Dell Inc. 2.1.5 05/10/2024', kernel='6.1.0-26-amd64'):
    '''``{node_hardware, node_software}`` as the node-state probe records
    them, for :func:`case`'s ``**kwargs`` through :func:`with_fingerprint`.'''
    return {'node_hardware': f'cpu={cpu}; cpus={cores}; cores={cores}; '
                             f'memory_kb={memory_gib * 2 ** 20}',
            'node_software': f'kernel={kernel}; bios={bios}; mpi=mpirun '
                             f'(Open MPI) 4.1.4'}


def with_fingerprint(cases, nodes, **fields):
    '''``cases`` with the nodes ``nodes`` given :func:`hardware`
    ``fields``; every other node the default fingerprint.'''
    for c in cases:
        c.update(hardware(**(fields if c['node'] in nodes else {})))

    return cases


def as_report(*runs, session, start, extras=None):
    '''A ReFrame JSON report of a session ``session`` that started at
    ``start`` (Unix time) whose runs (the first, then its retries) hold the
    synthetic test cases ``runs``, each completed on the template of a real
    test case record, as ReFrame writes them.'''
    real = json.loads(REAL_REPORT.read_text())
    template = next(c for c in real['runs'][0]['testcases']
                    if not c['fixture'])
    when = time.strftime('%Y%m%dT%H%M%S+0000', time.gmtime(start))
    info = dict(real['session_info'], uuid=session, time_start=when,
                time_end=when, time_start_unix=start, time_end_unix=start + 60,
                **(extras or {}))
    report = {'session_info': info, 'restored_cases': [], 'runs': []}
    for index, cases in enumerate(runs):
        records = []
        for number, synthetic in enumerate(cases):
            record = copy.deepcopy(template)
            record.update(synthetic, session_uuid=session, run_index=index,
                          uuid=f'{session}:{index}:{number}',
                          job_completion_time_unix=start + 1,
                          hashcode=hashlib.sha256(synthetic['display_name']
                                                  .encode()).hexdigest()[:8])
            records.append(record)

        report['runs'].append({
            'num_cases': len(records), 'run_index': index,
            'num_failures': sum(r['result'] == 'fail' for r in records),
            'num_aborted': 0, 'num_skipped': 0, 'testcases': records})

    return report
