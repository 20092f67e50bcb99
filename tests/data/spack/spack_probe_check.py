'''A check wired to the Spack environment the way every acceptance check is
(hpc_acceptance.spack): loaded only by
tests/e2e/test_spack_environment_runs.py.

It runs ``mem_latency --help`` from wherever the dependency resolution found
it; its two variants share one SpackEnvironmentBuild fixture.
'''

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.backends import getlauncher
from reframe.core.builtins import parameter, run_before, sanity_function

from hpc_acceptance.base import AcceptanceCheck
from hpc_acceptance.dependency import Requirement


@rfm.simple_test
class SpackProbeCheck(rfm.RunOnlyRegressionTest, AcceptanceCheck):
    #: Two checks, one environment: the fixture must run once.
    probe = parameter(['first', 'second'])

    valid_systems = ['+compute']
    valid_prog_environs = ['+mpi']
    requirement = Requirement(executable='mem_latency',
                              spack_spec='hpc-acceptance-kernels')
    executable_opts = ['--help']
    num_tasks = 1

    @run_before('run')
    def run_as_one_process(self):
        self.job.launcher = getlauncher('local')()

    @sanity_function
    def usage_printed(self):
        return sn.assert_found(r'^usage: mem_latency', self.stdout)
