'''Runs judged by no reference file.

A system without ``reference/<system>.yaml`` runs its checks without
bounds, and ReFrame passes whatever they measured. The verdict and the
report page say so ("passed — not judged against references"). For the
embedded default ``local`` that is the normal state until a site proposes
its references; for a site's own system it is no validation: such a run is
NOT VALIDATED unless the site names the system in
:data:`VARIABLE` (names separated by spaces or commas, or ``all``), for
example while it brings up that system's references. The figures a fleet
run compared across the nodes of their partition are judged by them
(:func:`..fleet.comparison.judged_by_siblings`) and are not counted here.
'''

from hpc_acceptance.tools.common import command_settings

#: The site's list of systems that may pass without a reference file.
VARIABLE = command_settings.UNREFERENCED_OK

#: What a passed run judged by no reference file adds to its verdict.
NOT_JUDGED = 'not judged against references'

#: The system that has no reference file until a site writes one.
EMBEDDED_DEFAULT = 'local'


def unjudged_systems(testcases):
    '''The systems of the passed checks (fixtures left out) that ran
    without a reference file, sorted.'''
    return sorted({case.get('system') for case in testcases
                   if not case.get('fixture') and case['result'] == 'pass'
                   and case.get('reference_file') == 'none'})


def refused(systems, ok):
    '''Which of ``systems`` (unjudged) make the run not validated, where
    the site lets the systems ``ok`` pass without references (its
    settings' :data:`VARIABLE`).'''
    if 'all' in ok:
        return []

    return [s for s in systems if s != EMBEDDED_DEFAULT and s not in ok]


def not_validated(systems, summary):
    names = ', '.join(systems)
    files = ', '.join(f'reference/{s}.yaml' for s in systems)
    return (f'acceptance NOT VALIDATED: no reference file for {names} '
            f'({summary}; {files} missing): propose one with "hpc-acceptance '
            f'propose-references --system {systems[0]} --write", or set '
            f'{VARIABLE}={systems[0]} to accept runs judged by nothing')
