'''Before a node is named a suspect, its slow or failing checks run once
more on it.

A node slower than its siblings on one run is as often a noisy night (a
neighbour's job on a shared switch, a background scrub) as a bad node; a
sysadmin would rerun before draining. After the fleet run
(``ci/acceptance.sh --fleet``) the check variants that made the nodes
suspects (their outlying figures' and their failures') run again on those
nodes, through ReFrame, with the fleet run's own options and node state:
ReFrame's ``--distribute`` over the suspects alone (every other node of
the partitions excluded, ``-J exclude=...``; ReFrame selects tests by name
before it distributes them, so a distributed test's hash cannot select
it). The rerun's test cases have the fleet run's names, so they are later
attempts of the same test cases (:func:`..results.runs.final_attempts`): a node
is named only if it is still out (:meth:`.model.Spread.is_worse`). A
variant that put one suspect out reruns on every suspect, which costs a
few runs and changes nothing: a node is out only when it is out twice. A node
named only for its fingerprint (:mod:`.fingerprint`) is not rerun:
another run cannot change what it is.

The rerun is stored as its own session with the extras ``fleet=confirm``
and ``fleet_confirms=<the fleet run's UUID>`` (:data:`CONFIRMS`): it is no
fleet run and no nightly run of its own, and whoever reads the fleet run
from the results database reads its rerun with it
(:func:`.history.stored_run`); whoever reads it from the reports reads it
after its run, whatever order the reports are named in
(:func:`..results.runs.in_session_order`).
'''

import re

from reframe.utility import nodelist_abbrev

from hpc_acceptance.tools.fleet.model import node_of, variant_key
from hpc_acceptance.tools.results.runs import (CONFIRMS, FAILED_RESULTS,
                                               figure_key)

#: The session extra of a confirmation rerun.
CONFIRM = 'confirm'

#: ReFrame's options that select tests by name: several are one union, so
#: the run's own are left out of the rerun, whose names select it alone.
_NAME_OPTIONS = ('-n', '--name')


def rerun_selection(fleets, testcases):
    '''``(variants, nodes)`` to rerun: the display names, without
    ReFrame's distribution parameters, of the check variants of the
    suspects' outlying figures and failures, and the suspect nodes.'''
    wanted = {}
    for partition in fleets:
        for suspect in partition.suspects:
            wanted.setdefault(suspect.node, set()).update(
                variant_key(o.figure.key) for o in suspect.outliers)

    variants = set()
    for case in testcases:
        node = node_of(case)
        if node in wanted and not case.get('fixture') and (
                variant_key(figure_key(case)) in wanted[node] or
                case['result'] in FAILED_RESULTS):
            variants.add(' '.join(word for word in
                                  case['display_name'].split()
                                  if not word.startswith('%.')))

    nodes = sorted({node for node in wanted if variants})
    return sorted(variants), nodes


def without_names(args):
    '''ReFrame arguments ``args`` without their ``-n``/``--name``
    selections.'''
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in _NAME_OPTIONS:
            skip = True
        elif not (arg.startswith('--name=') or
                  (arg.startswith('-n') and not arg.startswith('--'))):
            kept.append(arg)

    return kept


def _confirming(session):
    return [f'--session-extras=fleet={CONFIRM},{CONFIRMS}={session}',
            '--max-retries=0']


def _names(variants):
    return [arg for name in variants
            for arg in ('-n', '^' + re.escape(name.replace(' ', '')) + '$')]


def selection_args(variants, session, run_args):
    '''The ReFrame arguments that select the rerun of ``variants``
    (display names), confirming the fleet run of UUID ``session``
    (``run_args`` the fleet run's own arguments), whichever way it runs on
    its nodes.'''
    return _confirming(session) + without_names(run_args) + _names(variants)


def reframe_args(variants, nodes, others, session, state, run_args):
    '''The ReFrame arguments of the rerun of ``variants`` (display names)
    on ``nodes`` alone through ReFrame's ``--distribute``, ``others`` the
    partitions' other nodes, confirming the fleet run of UUID ``session``
    (ReFrame's ``--distribute`` state ``state``; ``run_args`` the fleet
    run's own arguments).'''
    excluded = sorted(set(others) - set(nodes))
    exclude = (['-J', f'exclude={nodelist_abbrev(excluded)}']
               if excluded else [])
    return (['--mode', 'fleet', f'--distribute={state}',
             *_confirming(session), '-r'] + without_names(run_args) +
            exclude + _names(variants))
