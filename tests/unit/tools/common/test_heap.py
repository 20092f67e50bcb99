'''The C heap of a command that reads a fleet night keeps what it frees
(hpc_acceptance.tools.common.heap): a node's blocks freed are the next
node's, not pages the kernel zeroes again at their first touch. Each case
runs in a Python of its own: the setting lasts as long as its process.'''

import subprocess
import sys

#: Blocks of 4 MB in all freed and made again, as a node's report is read
#: after another's; the page faults of a round, after a first to warm up.
ROUNDS = '''
import resource, sys
from hpc_acceptance.tools.common import heap
if sys.argv[1] == 'kept':
    assert heap.keep_freed()
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for warm in (True, False):
    before = faults()
    for _ in range(20):
        held = [bytes(1000) for _ in range(4000)]
        del held
print((faults() - before) / 20)
'''


def _faults_a_round(how):
    done = subprocess.run([sys.executable, '-c', ROUNDS, how], text=True,
                          capture_output=True, check=True)
    return float(done.stdout)


def test_what_is_freed_is_kept_for_the_next_node_not_faulted_in_again():
    kept = _faults_a_round('kept')
    # glibc's own: the freed top of its heap given back, faulted in again
    assert _faults_a_round('plain') > 10 * kept + 50
    assert kept < 5
