'''What a job's exit status says.

Some schedulers report none: ReFrame's ``squeue`` backend (Slurm without an
accounting database) and others leave ``job.exitcode`` at ``None``. The
checks then judge the run by its output alone, which they check in full
anyway (benchmarks such as NPB exit 0 after a failed verification).
'''


def failed(exitcode):
    '''True if the job reported a non-zero exit status.'''
    return exitcode not in (0, None)


def exit_problems(exitcode, stderr=None):
    '''``['exit status N']`` if the job failed, else ``[]``.

    With ``stderr``, the path of the job's standard error, the message ends
    with the first line there that says something (Open MPI frames its
    messages with lines of dashes).
    '''
    if not failed(exitcode):
        return []

    error = _first_error(stderr) if stderr else None
    return [f'exit status {exitcode}' + (f' ({error})' if error else '')]


def _first_error(stderr):
    try:
        with open(stderr) as fp:
            lines = fp.read().splitlines()
    except FileNotFoundError:
        return None

    return next((line.strip() for line in lines
                 if line.strip() and line.strip('-* ')), None)
