'''Before a node is named a suspect, its slow or failing checks run once
more on it.

A node slower than its siblings on one run is as often a noisy night (a
neighbour's job on a shared switch, a background scrub) as a bad node; a
sysadmin would rerun before draining. After the fleet run
(``ci/acceptance.sh --all-nodes``) the check variants that made each node
a suspect (its outlying figures' and its failures') run again on that
node, through ReFrame, with the fleet run's own options; the rerun's test
cases are later attempts of the same test cases (:func:`.results.
final_attempts`), so a node is named only if it is still out. A node
named only for its fingerprint (:mod:`.node_fingerprint`) is not rerun:
another run cannot change what it is.

The rerun is stored as its own session with the extras ``fleet=confirm``
and ``fleet_confirms=<the fleet run's UUID>``: it is no fleet run and no
nightly run of its own, and whoever reads the fleet run from the results
database reads its rerun with it (:func:`.fleet_history.stored_run`).
'''

from hpc_acceptance.tools import fleet
from hpc_acceptance.tools.results import FAILED_RESULTS, figure_key

#: The session extra of a confirmation rerun.
CONFIRM = 'confirm'

#: The session extra naming the fleet run a rerun confirms.
CONFIRMS = 'fleet_confirms'

#: ReFrame's options that select tests by name: several are one union, so
#: the run's own are left out of the rerun, whose names select it alone.
_NAME_OPTIONS = ('-n', '--name')


def rerun_hashes(fleets, testcases):
    '''ReFrame hash codes (``-n /HASH``) of the test cases to rerun: on
    each suspect node, those of the check variants of its outlying
    figures and those that failed.'''
    wanted = {}
    for partition in fleets:
        for suspect in partition.suspects:
            wanted.setdefault(suspect.node, set()).update(
                fleet.variant_key(o.figure.key) for o in suspect.outliers)

    hashes = set()
    for case in testcases:
        node = fleet.node_of(case)
        if node in wanted and case.get('hashcode') and (
                fleet.variant_key(figure_key(case)) in wanted[node] or
                (case['result'] in FAILED_RESULTS and
                 not case.get('fixture'))):
            hashes.add(case['hashcode'])

    return sorted(hashes)


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


def reframe_args(hashes, session, state, run_args):
    '''The ReFrame arguments of the rerun of ``hashes`` confirming the
    fleet run of UUID ``session`` (ReFrame's ``--distribute`` state
    ``state``; ``run_args`` the fleet run's own arguments).'''
    return (['--mode', 'fleet', f'--distribute={state}',
             f'--session-extras=fleet={CONFIRM},{CONFIRMS}={session}',
             '--max-retries=0', '-r'] + without_names(run_args) +
            [arg for h in hashes for arg in ('-n', f'/{h}')])
