'''All ranks in pairs at once: contention at the socket link or the adapter.

Shan and Strohmaier's multi-pair benchmark: every rank communicates with
``rank XOR (np-1)`` at the same time. With every core of a node busy, the
pairs cross from socket 0 to socket 1; with every core of two (or
``num_nodes``) nodes busy, they cross from node to node and share the
nodes' network adapters, which a single pair never shows.

The logic is in :mod:`hpc_acceptance.network` (base check, build, rank
report).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.network import bounded
from hpc_acceptance.network.check import NetworkPairsCheck

_PLACEMENTS = ['all_cores', 'all_per_node']


@rfm.simple_test
class NetworkMultiPairCheck(NetworkPairsCheck):
    '''Per-pair, aggregate and effective bandwidth with all pairs busy.'''

    pairs = 'multi'

    #: ``all_cores``: one rank per core of one node; ``all_per_node``: one
    #: rank per core of ``num_nodes`` nodes.
    #:
    #: :type: :class:`str`
    #: :values: ``all_cores``, ``all_per_node``, those a configured
    #:     partition holds (:mod:`hpc_acceptance.network.bounded`)
    placement = parameter(bounded.placements(_PLACEMENTS),
                          loggable=True)

    variants_left_out = bounded.left_out('NetworkMultiPairCheck',
                                         _PLACEMENTS)
