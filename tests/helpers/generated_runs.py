'''Fleets and runs generated for the properties of the verdicts
(tests/properties/), shaped as ReFrame stores them.

A :class:`Fleet` is what Hypothesis draws: the nodes of one partition
(4-300, named as sites name them, in the order ReFrame's ``--distribute``
gives them), one to three hardware generations (CPU model, memory, BIOS
and kernel strings, each node's MemTotal a few tens of MB from its
siblings', across any rounding boundary), the checks run (those of
tests/helpers/fleet_cases.py: bandwidths, times and clocks), the figures' noise
(0.5-10 %), ``k`` degraded nodes losing ``L`` on some checks, retried,
skipped and failed test cases. :func:`report` makes it a JSON run report
on the template of a real one (tests/helpers/fleet_cases.py ``as_report``),
which ReFrame's own storage takes (``hpc-acceptance db import``).

The figures' values come from a seeded generator (``Fleet.seed``): a run
of 300 nodes holds thousands, which Hypothesis would shrink one by one; the
seed is part of every counterexample, so each is reproduced exactly.
'''

import copy
import math
import random
from dataclasses import dataclass, field, replace
from typing import Dict, List, Tuple

from hypothesis import strategies as st

from helpers import fleet_cases

#: CPU models, BIOS and kernel strings as node probes read them.
CPUS = ('Intel(R) Xeon(R) Gold 6430', 'AMD EPYC 9654 96-Core Processor',
        'Intel(R) Xeon(R) Platinum 8480+', 'AMD EPYC 7763 64-Core Processor',
        'implementer 0x41 variant 0x0 part 0xd4f')
BIOSES = ('Dell Inc. 2.1.5 05/10/2024', 'Dell Inc. 2.0.1 01/10/2024',
          'HPE A48 v2.62 (03/14/2024) 03/14/2024',
          'American Megatrends International, LLC. 1.3 03/02/2023',
          'Lenovo IVE176K-3.10 06/13/2024')
KERNELS = ('6.1.0-26-amd64', '6.1.0-28-amd64', '6.8.0-45-generic',
           '5.14.0-427.13.1.el9_4.x86_64', '4.18.0-553.el8_10.x86_64')
#: Installed memory of node types, in GiB.
MEMORY_GIB = (64, 96, 128, 192, 256, 384, 512, 768, 1024)
#: How sites name nodes.
NAMES = ('n{}', 'nid{:05d}', 'cn{:03d}', 'node-{}', 'c1-r{}')

MB_KB = 1024
GIB_KB = 2 ** 20

#: How a figure that is no measurement is written in a report
#: (:data:`MISSING`: its entry left out of ``perfvalues``).
MISSING = 'missing'
NO_MEASUREMENTS = (float('nan'), float('inf'), float('-inf'), None, MISSING,
                   -1.0, -38500.0, '38500', 'n/a', [38500.0], True)

#: System and partition of the generated runs.
SYSTEM, PARTITION = 'cluster', 'compute'
PARTITION_NAME = f'{SYSTEM}:{PARTITION}'


@dataclass(frozen=True)
class Generation:
    '''A hardware generation: what its nodes' probes read, and how fast
    it is beside the others.'''
    cpu: str
    cores: int
    #: MemTotal, in kB, the generation's nodes report around
    memory_kb: int
    bios: str
    kernel: str
    #: its figures against tests/helpers/fleet_cases.py's levels, as a factor
    speed: float


@dataclass
class Fleet:
    '''One fleet run, as Hypothesis draws it.'''
    #: the nodes, in the order the run lists them
    nodes: List[str]
    generations: List[Generation]
    #: ``{node: index of its generation}``
    generation_of: Dict[str, int]
    #: ``{node: MemTotal in kB}``: its generation's, with the jitter
    memory_kb: Dict[str, int]
    #: ``{check: [(figure, unit, level)]}``
    checks: Dict[str, list]
    #: run-to-run and node-to-node spread of the figures (a lognormal's
    #: sigma)
    noise: float
    #: ``{node: (loss, checks)}``: degraded nodes, losing ``loss`` of
    #: performance on every figure of those checks, in every attempt
    degraded: Dict[str, Tuple[float, tuple]] = field(default_factory=dict)
    #: ``{(node, check)}`` whose first attempt failed, passed on retry
    retried: frozenset = frozenset()
    #: ``{(node, check)}`` whose first attempt was out and passed with
    #: figures (a performance failure), retried with figures again
    retried_with_figures: frozenset = frozenset()
    #: ``{(node, check)}`` skipped
    skipped: frozenset = frozenset()
    #: ``{(node, check)}`` that failed in every attempt
    failed: frozenset = frozenset()
    #: the partition's own minimum bands (``extras.fleet_floors``)
    floors: str = ''
    seed: int = 0

    def group(self, index):
        '''The nodes of generation ``index``.'''
        return [n for n in self.nodes if self.generation_of[n] == index]


def _mb(value):
    return int(value * MB_KB)


@st.composite
def generations(draw, count=None):
    '''One to three hardware generations that differ in something a probe
    reads (CPU, memory size, BIOS or kernel).'''
    count = count or draw(st.integers(1, 3))
    made, seen = [], set()
    while len(made) < count:
        memory_gib = draw(st.sampled_from(MEMORY_GIB))
        # the kernel and firmware keep 1-3 % of it; across a rounding
        # boundary (x.5 GiB) where Hypothesis likes
        kept = memory_gib * (1 - draw(st.floats(0.01, 0.03)))
        if draw(st.booleans()):
            kept = math.floor(kept) + 0.5
        generation = Generation(
            draw(st.sampled_from(CPUS)), draw(st.sampled_from((32, 64, 96))),
            int(kept * GIB_KB), draw(st.sampled_from(BIOSES)),
            draw(st.sampled_from(KERNELS)), draw(st.floats(0.5, 2.0)))
        what = (generation.cpu, generation.cores, memory_gib,
                generation.bios, generation.kernel)
        if what not in seen:
            seen.add(what)
            made.append(generation)

    return made


def _names(draw, count):
    pattern = draw(st.sampled_from(NAMES))
    first = draw(st.integers(0, 3))
    return [pattern.format(first + i) for i in range(count)]


#: Partition sizes: small ones first, so that a counterexample shrinks to
#: a few nodes where it can.
SIZES = st.one_of(st.integers(4, 12), st.integers(13, 300))


@st.composite
def fleets(draw, nodes=SIZES, generation_count=None,
           checks=None, noise=st.floats(0.005, 0.10), degraded=True,
           troubles=True, floors=True):
    '''A :class:`Fleet`. ``degraded``: draw degraded nodes; ``troubles``:
    retried, skipped and failed test cases; ``floors``: the partition's own
    minimum bands, sometimes. What a counterexample turns on (the nodes'
    generations, MemTotal jitter, order, losses and troubles) is drawn
    node by node, so that Hypothesis shrinks it.'''
    count = draw(nodes)
    names = _names(draw, count)
    gens = draw(generations(generation_count))
    assignment = draw(st.lists(st.integers(0, len(gens) - 1),
                               min_size=count, max_size=count))
    jitter = _mb(draw(st.integers(5, 60)))
    memory = draw(st.lists(st.integers(-jitter, jitter), min_size=count,
                           max_size=count))
    order = draw(st.permutations(names))
    chosen = checks or draw(st.lists(st.sampled_from(
        sorted(fleet_cases.FIGURES)), min_size=1, max_size=3, unique=True))
    fleet = Fleet(
        list(order), gens, dict(zip(names, assignment)),
        {n: gens[g].memory_kb + j
         for n, g, j in zip(names, assignment, memory)},
        {c: fleet_cases.FIGURES[c] for c in sorted(chosen)}, draw(noise),
        seed=draw(st.integers(0, 2 ** 32 - 1)))
    if degraded:
        hit = draw(st.lists(st.integers(0, count - 1), unique=True,
                            max_size=(count - 1) // 2))
        loss = draw(st.floats(0.02, 0.999))
        checks_hit = tuple(draw(st.lists(st.sampled_from(
            sorted(fleet.checks)), min_size=1, unique=True)))
        fleet.degraded = {names[i]: (loss, checks_hit) for i in hit}

    if troubles:
        picked = draw(st.lists(st.tuples(
            st.integers(0, count - 1), st.sampled_from(sorted(fleet.checks)),
            st.integers(0, 3)), max_size=max(1, count // 10)))
        kinds = {}
        for index, check, kind in picked:
            kinds[names[index], check] = kind
        fleet.retried = frozenset(p for p, k in kinds.items() if k == 0)
        fleet.retried_with_figures = frozenset(
            p for p, k in kinds.items() if k == 1)
        fleet.skipped = frozenset(p for p, k in kinds.items() if k == 2)
        fleet.failed = frozenset(p for p, k in kinds.items() if k == 3)

    if floors and draw(st.booleans()):
        fleet.floors = ' '.join(
            f'{family}={draw(st.sampled_from((0.02, 0.05, 0.1)))}'
            for family in ('Stream', 'Memory'))

    return fleet


def values(fleet, node, check, attempt):
    '''``{figure: (value, unit)}`` of ``check`` on ``node`` in attempt
    ``attempt`` (0: the first): the level, the node's generation, its
    noise and its loss.'''
    rng = random.Random(f'{fleet.seed}/{node}/{check}/{attempt}')
    speed = fleet.generations[fleet.generation_of[node]].speed
    loss, hit = fleet.degraded.get(node, (0.0, ()))
    figures = {}
    for name, unit, level in fleet.checks[check]:
        value = level * rng.lognormvariate(0, fleet.noise)
        factor = speed * (1 - loss if check in hit else 1.0)
        figures[name] = (value / factor if unit == 'ns' else value * factor,
                         unit)

    return figures


def _hardware(fleet, node):
    generation = fleet.generations[fleet.generation_of[node]]
    return {'node_hardware': f'cpu={generation.cpu}; '
                             f'cpus={generation.cores}; '
                             f'cores={generation.cores}; '
                             f'memory_kb={fleet.memory_kb[node]}',
            'node_software': f'kernel={generation.kernel}; '
                             f'bios={generation.bios}; mpi=mpirun (Open '
                             f'MPI) 4.1.4'}


def _case(fleet, node, check, attempt, result='pass', figures=True):
    made = fleet_cases.case(
        node, check, values(fleet, node, check, attempt) if figures else {},
        result=result, system=SYSTEM, partition=PARTITION)
    made.update(_hardware(fleet, node))
    if fleet.floors:
        made['fleet_floors'] = fleet.floors
    if result == 'skip':
        # a skipped test never ran its job: no node of its own, only the
        # one --distribute pinned it to (its name's %.nid=)
        made.update(node='', job_nodelist=[],
                    skip_reason='the node lacks the variant')
    elif result == 'fail':
        made.update(fail_phase='performance' if figures else 'sanity')

    return made


def attempts(fleet):
    '''``(first run, retries)``: the test cases of the run and of its
    retries, in the run's node order.'''
    first, retries = [], []
    for node in fleet.nodes:
        for check in fleet.checks:
            pair = (node, check)
            if pair in fleet.skipped:
                first.append(_case(fleet, node, check, 0, 'skip', False))
            elif pair in fleet.failed:
                first.append(_case(fleet, node, check, 0, 'fail', False))
                retries.append(_case(fleet, node, check, 1, 'fail', False))
            elif pair in fleet.retried:
                first.append(_case(fleet, node, check, 0, 'fail', False))
                retries.append(_case(fleet, node, check, 1))
            elif pair in fleet.retried_with_figures:
                first.append(_case(fleet, node, check, 0, 'fail'))
                retries.append(_case(fleet, node, check, 1))
            else:
                first.append(_case(fleet, node, check, 0))

    return first, retries


def report(fleet, session='00000000-0000-4000-8000-000000000038',
           start=1795500000.0, extras=None):
    '''The ReFrame JSON run report of ``fleet``'s run, on the template of
    a real report.'''
    first, retries = attempts(fleet)
    runs = [first] + ([retries] if retries else [])
    return fleet_cases.as_report(*runs, session=session, start=start,
                                 extras={'fleet': 'yes', **(extras or {})})


def testcases(made):
    '''Every test case record of a report, each run's in order.'''
    return [case for run in made['runs'] for case in run['testcases']]


def with_cases(made, change):
    '''A copy of report ``made`` with ``change(case)`` applied to each
    test case record.'''
    made = copy.deepcopy(made)
    for case in testcases(made):
        change(case)

    return made


def node_cases(made, node, check=None):
    '''The test case records of ``node`` (of ``check``) in report
    ``made``.'''
    return [c for c in testcases(made)
            if c['display_name'].endswith(f'%.nid={node}') and
            (check is None or c['display_name'].startswith(check + ' '))]


def without(fleet, nodes):
    '''``fleet`` with the nodes ``nodes`` left out.'''
    kept = [n for n in fleet.nodes if n not in nodes]

    def pairs(which):
        return frozenset(p for p in which if p[0] in kept)

    return replace(fleet, nodes=kept,
                   degraded={n: d for n, d in fleet.degraded.items()
                             if n in kept},
                   retried=pairs(fleet.retried),
                   retried_with_figures=pairs(fleet.retried_with_figures),
                   skipped=pairs(fleet.skipped), failed=pairs(fleet.failed))


#: The kinds of trouble a test case can have (fields of :class:`Fleet`).
TROUBLES = ('retried', 'retried_with_figures', 'skipped', 'failed')


def with_trouble(fleet, node, check, trouble):
    '''``fleet`` in which ``check`` on ``node`` has the trouble
    ``trouble`` (one of :data:`TROUBLES`) and no other.'''
    return replace(fleet, **{
        kind: (getattr(fleet, kind) | {(node, check)} if kind == trouble
               else getattr(fleet, kind) - {(node, check)})
        for kind in TROUBLES})


def first_figure(fleet, check):
    '''``(figure, unit)`` of ``check``'s first figure.'''
    name, unit, _ = fleet.checks[check][0]
    return name, unit


def worse(value, unit, factor):
    '''``value`` with a ``factor`` (below 1) of its performance: a rate
    times it, a time divided by it.'''
    return value / factor if unit == 'ns' else value * factor


def scaled(made, node, check, figure, factor):
    '''A copy of report ``made`` in which ``figure`` of ``check`` on
    ``node`` has ``factor`` times its performance, in every attempt.'''
    made = copy.deepcopy(made)
    for case in node_cases(made, node, check):
        for name, perf in (case.get('perfvalues') or {}).items():
            if name.split(':')[-1] == figure:
                perf[0] = worse(perf[0], perf[4], factor)

    return made


def passed(made, node, check):
    '''Whether ``check`` passed on ``node`` in the report's last attempt
    of it.'''
    cases = node_cases(made, node, check)
    return bool(cases) and cases[-1]['result'] == 'pass'


def generation(memory_kb, cpu=CPUS[0], cores=32, bios=BIOSES[0],
               kernel=KERNELS[0], speed=1.0):
    '''A :class:`Generation`, for the explicit examples of a property.'''
    return Generation(cpu, cores, memory_kb, bios, kernel, speed)


def example(generations, generation_of, memory_kb=None, checks=(
        'MemoryDaxpyCheck',), noise=0.0625, seed=0, names='n{}', **fields):
    '''A :class:`Fleet` written out, for a property's explicit examples
    (a counterexample Hypothesis found, kept): ``generation_of`` and
    ``memory_kb`` list the nodes' generations and MemTotal (default: the
    generation's) in node order, ``names`` the nodes' (a list, or a
    pattern of their numbers), ``fields`` the rest of :class:`Fleet`.'''
    nodes = (list(names) if not isinstance(names, str) else
             [names.format(i) for i in range(len(generation_of))])
    memory_kb = memory_kb or [generations[g].memory_kb
                              for g in generation_of]
    return Fleet(nodes, list(generations), dict(zip(nodes, generation_of)),
                 dict(zip(nodes, memory_kb)),
                 {c: fleet_cases.FIGURES[c] for c in checks}, noise,
                 seed=seed, **fields)


#: An index a property draws to pick one of a few things (:func:`pick`):
#: it shrinks to the first.
INDEX = st.integers(0, 999)


def pick(items, index):
    '''The ``index``-th of ``items`` (sorted), round the end.'''
    items = sorted(items)
    return items[index % len(items)]


def four_nodes(**fields):
    '''The smallest fleet: 4 nodes of one generation, one check
    (``MemoryDaxpyCheck``), the default noise and seed, where most
    counterexamples shrank to; ``fields`` as :func:`example` takes them.'''
    return example([generation(66060288)], [0] * 4, **fields)
