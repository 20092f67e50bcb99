'''What a job's exit status, and the scheduler's word in its standard
error, say.

Some schedulers report no exit status: ReFrame's ``squeue`` backend (Slurm
without an accounting database) and others leave ``job.exitcode`` at
``None``, also for a job Slurm killed at its time limit or on a node taken
down. The checks then judge the run by its output, which they check in full
anyway (benchmarks such as NPB exit 0 after a failed verification), and by
what Slurm wrote to the job's standard error when it ended the job early:
that names the node or the limit, where missing output names neither.
'''

import re

from hpc_acceptance.core import slurm_nodes

#: Slurm's lines when it ends a job or a step early: slurmstepd's ``***
#: JOB 12 ON n1 CANCELLED AT <time> DUE TO TIME LIMIT ***``, srun's
#: ``srun: error: Node failure on n2`` and ``task 0 launch failed``.
_SLURM_ENDED = re.compile(
    r'\*\*\* (?:JOB|STEP) \S+ ON \S+ CANCELLED AT .*? \*\*\*'
    r'|srun: error: (?:Node failure on \S+|task \d+ launch failed.*)'
)


def failed(exitcode):
    '''True if the job reported a non-zero exit status.'''
    return exitcode not in (0, None)


def ended_early(exitcode, stderr):
    '''True if the job failed, or Slurm says in ``stderr`` (the path of
    the job's standard error) that it ended the job or a step.'''
    return failed(exitcode) or bool(scheduler_problems(_read_lines(stderr)))


def exit_problems(exitcode, stderr=None, jobid=None):
    '''What the scheduler said when it ended the job early (from
    ``stderr``, the path of the job's standard error, when given) and, for
    a node failure, which nodes of job ``jobid`` are down; then ``exit
    status N`` if the job failed; ``[]`` for a job that ended well.

    With a failed exit status, the message ends with the first line of
    ``stderr`` that says something (Open MPI frames its messages with lines
    of dashes).
    '''
    lines = _read_lines(stderr) if stderr else []
    problems = scheduler_problems(lines)
    if any('NODE FAILURE' in problem or 'Node failure' in problem
           for problem in problems):
        problems += slurm_nodes.down_nodes(jobid)

    if not failed(exitcode):
        return problems

    error = _first_error(lines)
    return problems + [f'exit status {exitcode}' +
                       (f' ({error})' if error else '')]


def scheduler_problems(lines):
    '''``Slurm: <line>`` for each distinct line of ``lines`` in which Slurm
    says it ended the job or a step, in order.'''
    found = []
    for line in lines:
        match = _SLURM_ENDED.search(line)
        if match and f'Slurm: {match[0]}' not in found:
            found.append(f'Slurm: {match[0]}')

    return found


def _read_lines(path):
    try:
        with open(path) as fp:
            return fp.read().splitlines()
    except FileNotFoundError:
        return []


def _first_error(lines):
    return next((line.strip() for line in lines
                 if line.strip() and line.strip('-* ')), None)
