'''Nightly STREAM runs as the results database gives them back, for the
tests of the shifts across nights (hpc_acceptance.tools.shifts): one test
case a night, its triad at 1 % noise, a step from a given night on, the
kernel changed that night.'''

import random

#: A night, in seconds.
DAY = 86400.0


def case(night, value, node=None, kernel='6.1.0-25', unit='MB/s',
         ref=(None, None, None), display='StreamCheck %threads=single',
         session=None, hour=0.0):
    if node:
        display += f' %.nid={node}'

    found = {'display_name': display, 'system': 'local',
             'partition': 'default', 'environ': 'gnu', 'result': 'pass',
             'session_uuid': session or f'night-{night}', 'fixture': False,
             'job_completion_time_unix': 1.8e9 + night * DAY + hour * 3600,
             'node_software': f'kernel={kernel}',
             'perfvalues': {'local:default:triad': [value, *ref, unit,
                                                    'pass']}}
    if node:
        found['node'] = node

    return found


def nights(count, shift_from, size, node=None, seed=0, **kwargs):
    rng = random.Random(seed)
    return [case(n, 40000 * (1 + 0.01 * rng.gauss(0, 1)) *
                 (1 + size if n >= shift_from else 1), node=node,
                 kernel='6.1.0-26' if n >= shift_from else '6.1.0-25',
                 **kwargs)
            for n in range(count)]
