'''Running a check as one process whose threads OpenMP places.

The thread count, the places and the binding go into OpenMP's environment;
the process starts without an MPI launcher, which would bind it to one core.
'''

import reframe as rfm
from reframe.core.backends import getlauncher
from reframe.core.builtins import run_before


class OpenMPProcess(rfm.RegressionTestPlugin):
    def place_threads_with(self, count, places, binding):
        '''Run ``count`` threads on ``places`` (an ``OMP_PLACES`` value,
        quoted for the shell where needed) bound ``binding``
        (``OMP_PROC_BIND``); call it from a setup hook.'''
        self.num_cpus_per_task = count
        self.env_vars['OMP_NUM_THREADS'] = str(count)
        self.env_vars['OMP_PLACES'] = places
        self.env_vars['OMP_PROC_BIND'] = binding

    @run_before('run')
    def run_as_one_process(self):
        self.job.launcher = getlauncher('local')()
