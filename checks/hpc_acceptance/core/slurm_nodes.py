'''Which of a job's nodes Slurm holds down, and why: Slurm's own line on a
job it ended for a node failure names the job's first node, not the one
that failed, and a job killed at once may never have been seen running
(ReFrame then knows none of its nodes).'''

import re
import shutil
import subprocess


def _run(*args):
    '''Standard output of a Slurm command, or ``None`` without Slurm or
    an answer.'''
    if not shutil.which(args[0]):
        return None

    done = subprocess.run(list(args), capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def job_nodes(jobid):
    '''The nodes of job ``jobid`` as a Slurm host list (``n[1-2]``), while
    slurmctld still holds the job's record (``MinJobAge``); else ``None``.
    '''
    shown = _run('scontrol', '-o', 'show', 'job', str(jobid))
    found = re.search(r'\bNodeList=(\S+)', shown or '')
    if not found or found[1] == '(null)':
        return None

    return found[1]


def down_nodes(jobid):
    '''``['node n2 is down (<reason>)', ...]`` for the nodes of job
    ``jobid`` that Slurm reports down, drained or failed; ``[]`` when
    Slurm cannot say.'''
    nodes = job_nodes(jobid) if jobid else None
    listed = nodes and _run('sinfo', '-h', '-N', '-n', nodes,
                            '-t', 'down,drain,fail', '-o', '%N|%T|%E')
    found = []
    for line in (listed or '').splitlines():
        name, state, reason = line.split('|', 2)
        described = f'node {name} is {state.lower()} ({reason})'
        if described not in found:
            found.append(described)

    return found
