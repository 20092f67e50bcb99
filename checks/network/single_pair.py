'''One pair of ranks: PingPong (unidirectional) and PingPing (bidirectional).

Shan and Strohmaier's single-pair benchmarks, within a socket, across the
sockets of a node and between two nodes. Their ratio PingPing / PingPong
shows how well a link carries both directions at once (2 at best).

The logic is in :mod:`hpc_acceptance.network` (base check, build, rank
report).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.network import bounded
from hpc_acceptance.network.check import NetworkPairsCheck

_PLACEMENTS = ['same_socket', 'cross_socket', 'one_per_node']


@rfm.simple_test
class NetworkSinglePairCheck(NetworkPairsCheck):
    '''Latency and bandwidth between two ranks, 0 B to 4 MiB messages.'''

    pairs = 'single'

    #: Where the two ranks run: two cores of one socket, one core on each
    #: socket of a node, or one core on each of two nodes.
    #:
    #: :type: :class:`str`
    #: :values: ``same_socket``, ``cross_socket``, ``one_per_node``, those
    #:     a configured partition holds
    #:     (:mod:`hpc_acceptance.network.bounded`)
    placement = parameter(bounded.placements(_PLACEMENTS),
                          loggable=True)

    variants_left_out = bounded.left_out('NetworkSinglePairCheck',
                                         _PLACEMENTS)
