'''Where the ranks of an MPI check ran, read from the program's output.

``net_pairs`` reports each rank's host, CPU and allowed CPUs in a comment
line (``# rank R host H cpu C allowed LIST partner P``, see
``src/network/README.md``). :func:`layout_problems` compares those with the
distribution the check asked for
(:mod:`hpc_acceptance.core.rank_placement`) and the partition's processor
topology.
'''

import re
from dataclasses import dataclass

from hpc_acceptance.core import node_shape

_RANK_LINE = re.compile(r'^# rank (?P<rank>\d+) host (?P<host>\S+) '
                        r'cpu (?P<cpu>-?\d+) allowed (?P<allowed>\S+) '
                        r'partner (?P<partner>\d+|none)$')


class RankReportError(ValueError):
    '''The rank report cannot be read or checked; the message says why.'''


@dataclass(frozen=True)
class RankPlacement:
    rank: int
    host: str
    #: the CPU the rank was running on when it reported
    cpu: int
    #: the CPUs the rank may run on, or ``None`` if it could not tell
    allowed: frozenset
    #: the rank it communicated with, or ``None``
    partner: int


def parse_cpu_list(text):
    '''``"0-3,8"`` as ``frozenset({0, 1, 2, 3, 8})``.'''
    cpus = set()
    for part in text.split(','):
        first, _, last = part.partition('-')
        cpus.update(range(int(first), int(last or first) + 1))

    return frozenset(cpus)


def parse_rank_lines(text, source='<output>'):
    '''The ``# rank`` comment lines of the program's output, by rank.

    :raises RankReportError: when ranks are missing or reported twice.
    '''
    ranks = {}
    for line in text.splitlines():
        match = _RANK_LINE.match(line.strip())
        if not match:
            continue

        rank = int(match['rank'])
        if rank in ranks:
            raise RankReportError(f'{source}: rank {rank} reported twice')

        allowed = (None if match['allowed'] == 'unknown'
                   else parse_cpu_list(match['allowed']))
        partner = None if match['partner'] == 'none' else int(match['partner'])
        ranks[rank] = RankPlacement(rank, match['host'], int(match['cpu']),
                                    allowed, partner)

    if not ranks:
        raise RankReportError(f'{source}: no "# rank" placement lines')

    if sorted(ranks) != list(range(len(ranks))):
        missing = sorted(set(range(max(ranks) + 1)) - set(ranks))
        raise RankReportError(f'{source}: no placement line for rank(s) '
                              f'{", ".join(map(str, missing))}')

    return [ranks[r] for r in sorted(ranks)]


def summary(ranks):
    '''A one-line record of where the ranks ran: ``r0=host:cpu ...``.'''
    return ' '.join(f'r{p.rank}={p.host}:{p.cpu}' for p in ranks)


def _masks(info, kind):
    '''CPU sets of the ``sockets`` or ``cores`` of a processor description,
    as the checks count them (:mod:`hpc_acceptance.core.node_shape`).'''
    node = node_shape.shape(info)
    try:
        node.require(kind)
    except node_shape.TopologyError as err:
        raise RankReportError(str(err)) from None

    return list(getattr(node, kind))


def _containing(cpus, sets):
    return next((i for i, s in enumerate(sets) if cpus <= s), None)


def _pairs(ranks):
    for p in ranks:
        if p.partner is not None and p.rank < p.partner < len(ranks):
            yield p, ranks[p.partner]


def layout_problems(ranks, *, layout, info, num_tasks, num_nodes=1,
                    per_thread=False):
    '''Messages for every way ``ranks`` differ from ``layout``.

    :arg layout: ``same_socket``, ``cross_socket``, ``all_cores`` (one
        node), ``one_per_node`` or ``all_per_node`` (``num_nodes`` nodes);
        see :mod:`hpc_acceptance.network.check`.
    :arg info: the partition's processor description, for its cores and
        sockets.
    :arg per_thread: ranks are bound to hardware threads (SMT on), not
        cores; ``same_socket`` then means the two threads of one core.
    '''
    if len(ranks) != num_tasks:
        return [f'{len(ranks)} ranks reported, {num_tasks} were started']

    cores, sockets = _masks(info, 'cores'), _masks(info, 'sockets')
    unit = 'core'
    units = cores
    if per_thread:
        unit = 'hardware thread'
        units = [frozenset({cpu}) for core in cores for cpu in sorted(core)]

    problems = []
    unit_of = {}
    for p in ranks:
        bound = _containing(p.allowed, units) if p.allowed else None
        if bound is None:
            allowed = ('unknown' if p.allowed is None else
                       ','.join(map(str, sorted(p.allowed))))
            problems.append(f'rank {p.rank} on {p.host} is not bound to one '
                            f'{unit} (allowed CPUs: {allowed})')
        else:
            unit_of[p.rank] = bound

    if problems:
        return problems

    hosts = {}
    for p in ranks:
        hosts.setdefault(p.host, []).append(unit_of[p.rank])

    for host, used in sorted(hosts.items()):
        if len(set(used)) != len(used):
            problems.append(f'ranks share {unit}s on {host}')

    def socket(p):
        return _containing(units[unit_of[p.rank]], sockets)

    def core(p):
        return _containing(units[unit_of[p.rank]], cores)

    if layout in ('same_socket', 'cross_socket', 'all_cores'):
        expected_hosts = 1
    elif layout in ('one_per_node', 'all_per_node'):
        expected_hosts = num_nodes
    else:
        raise RankReportError(f'unknown layout {layout!r}')

    if len(hosts) != expected_hosts:
        problems.append(f'ranks ran on {len(hosts)} host(s) '
                        f'({", ".join(sorted(hosts))}), expected '
                        f'{expected_hosts}')
        return problems

    per_host = num_tasks // expected_hosts
    for host, used in sorted(hosts.items()):
        if len(used) != per_host:
            problems.append(f'{len(used)} ranks ran on {host}, expected '
                            f'{per_host}')

    across_sockets = (layout == 'cross_socket' or
                      (layout == 'all_cores' and len(sockets) > 1))
    for a, b in _pairs(ranks):
        if layout == 'same_socket' and per_thread:
            if core(a) != core(b):
                problems.append(f'ranks {a.rank} and {b.rank} ran on cores '
                                f'{core(a)} and {core(b)}, expected the two '
                                f'hardware threads of one core')
        elif layout == 'same_socket':
            if socket(a) != socket(b):
                problems.append(f'ranks {a.rank} and {b.rank} ran on '
                                f'sockets {socket(a)} and {socket(b)}, '
                                f'expected one socket')
        elif across_sockets:
            if socket(a) == socket(b):
                problems.append(f'ranks {a.rank} and {b.rank} both ran on '
                                f'socket {socket(a)}, expected two sockets')
        elif expected_hosts > 1 and a.host == b.host:
            problems.append(f'ranks {a.rank} and {b.rank} both ran on '
                            f'{a.host}, expected two hosts')

    return problems
