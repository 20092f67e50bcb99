'''On the embedded default system, ReFrame lists only the NPB process counts
this node holds, and every one of them.'''

import os
import re


def _listed(run_reframe, check):
    done = run_reframe('-c', 'checks/', '--mode', 'nightly', '-n', check,
                       '-l')
    assert done.returncode == 0, done.stdout[-3000:]
    counts = re.findall(r'%num_procs=(\d+)', done.stdout)
    return sorted(int(n) for n in counts)


def test_npb_counts_stop_at_this_nodes_hardware_threads(run_reframe):
    cpus = os.cpu_count()
    powers = [n for n in (2 ** k for k in range(9)) if n <= cpus]
    assert _listed(run_reframe, 'NpbCgCheck') == powers
    squares = [n * n for n in range(1, 17) if n * n <= cpus]
    assert _listed(run_reframe, 'NpbBtCheck') == squares
