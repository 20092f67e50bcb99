'''Which of a job's nodes Slurm holds down, and why: Slurm's own line on a
job it ended for a node failure names the job's first node, not the one
that failed.'''

import shutil
import subprocess


def down_nodes(nodes):
    '''``['node n2 is down (<reason>)', ...]`` for the nodes of ``nodes``
    that Slurm reports down, drained or failed; ``[]`` without Slurm's
    ``sinfo`` or when it cannot answer.'''
    sinfo = shutil.which('sinfo')
    if not (sinfo and nodes):
        return []

    done = subprocess.run(
        [sinfo, '-h', '-N', '-n', ','.join(nodes),
         '-t', 'down,drain,fail', '-o', '%N|%T|%E'],
        capture_output=True, text=True
    )
    if done.returncode != 0:
        return []

    found = []
    for line in done.stdout.splitlines():
        name, state, reason = line.split('|', 2)
        described = f'node {name} is {state.lower()} ({reason})'
        if described not in found:
            found.append(described)

    return found
