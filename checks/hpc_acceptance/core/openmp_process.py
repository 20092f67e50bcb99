'''Running a check as one process whose threads OpenMP places.

The thread count, the places and the binding go into OpenMP's environment;
the process starts without an MPI launcher, which would bind it to one core.
The places are an explicit list of CPU sets, one per thread, decided from
the processor description (:func:`hpc_acceptance.core.node_shape.places`),
not OpenMP's abstract ``cores`` or ``threads``, whose order is the OpenMP
runtime's: with as many threads as places, thread *i* runs on place *i*
whatever the binding, so the checks know where each thread is.
'''

import shlex

import reframe as rfm
from reframe.core.backends import getlauncher
from reframe.core.builtins import run_before


def omp_places(places):
    '''``OMP_PLACES`` with one place per CPU set: ``{0,72},{1,73},...``.'''
    return ','.join('{' + ','.join(str(cpu) for cpu in sorted(place)) + '}'
                    for place in places)


class OpenMPProcess(rfm.RegressionTestPlugin):
    def place_threads_with(self, places, binding):
        '''Run one thread on each of ``places`` (CPU sets) bound
        ``binding`` (``OMP_PROC_BIND``); call it from a setup hook.'''
        self.num_cpus_per_task = len(places)
        self.env_vars['OMP_NUM_THREADS'] = str(len(places))
        # Quoted: the shell would brace-expand {0,72},{1,73}.
        self.env_vars['OMP_PLACES'] = shlex.quote(omp_places(places))
        self.env_vars['OMP_PROC_BIND'] = binding

    @run_before('run')
    def run_as_one_process(self):
        self.job.launcher = getlauncher('local')()
