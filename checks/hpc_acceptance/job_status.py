'''What a job's exit status says.

Some schedulers report none: ReFrame's ``squeue`` backend (Slurm without an
accounting database) and others leave ``job.exitcode`` at ``None``. The
checks then judge the run by its output alone, which they check in full
anyway (benchmarks such as NPB exit 0 after a failed verification).
'''


def failed(exitcode):
    '''True if the job reported a non-zero exit status.'''
    return exitcode not in (0, None)
