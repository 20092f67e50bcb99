'''The figures a kernel prints about its repetitions beside the best one.

A kernel's figure is its best repetition's; a core or a link shared with
other work slows some repetitions and not others, which the best one
hides. So the in-tree programs also print the figure at their median
repetition (``bandwidth.l1.median``) and the ratio of the best
repetition's time to the median one's (``best_to_median.l1``, 1: all
alike), which the fleet comparison reads to name a contended node
(:mod:`hpc_acceptance.tools.fleet.contention`).
'''

import os

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import run_before

from hpc_acceptance.core import figures


class RepetitionFigures(rfm.RegressionTestPlugin):
    '''Makes the repetition figures the program printed performance
    variables a reference need not bound
    (:func:`hpc_acceptance.core.references.unbounded`); a program that
    prints none (McCalpin's STREAM) adds none.'''

    @run_before('performance')
    def set_repetition_variables(self):
        self.perf_variables.update({
            variable: sn.make_performance_function(
                figures.figure_value(self.stdout, name), unit)
            for variable, (name, unit) in figures.repetition_figures(
                os.path.join(self.stagedir, self.stdout.evaluate())).items()})
