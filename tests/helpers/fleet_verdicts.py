'''What the fleet tools say of a run, gathered for the property tests: the
verdict (``hpc-acceptance verdict``'s judgement), the suspects and their
drain lines (``hpc-acceptance suspects``), the nodes named.'''

import os
from dataclasses import dataclass
from typing import List, Tuple

from hpc_acceptance.tools.common import shell_line
from hpc_acceptance.tools.fleet import history
from hpc_acceptance.tools.fleet.model import FleetError
from hpc_acceptance.tools.fleet.suspect_drains import drain_commands
from hpc_acceptance.tools.fleet.suspect_report import text_lines
from hpc_acceptance.tools.outcome import acceptance_verdict
from hpc_acceptance.tools.results.runs import final_testcases

#: The day the drain reasons carry.
DAY = '2026-11-24'


@dataclass
class Outcome:
    status: int
    message: str
    fleets: list
    #: ``hpc-acceptance suspects``'s text
    lines: List[str]
    #: its ``--format slurm`` lines, before any cap
    drains: List[str]
    #: ``[(partition, node)]`` of the suspects
    suspects: List[Tuple[str, str]]

    @property
    def named(self):
        '''The nodes the run names: its suspects, and the slower nodes of
        a figure that is not uniform (the run fails naming them).'''
        return ({node for _, node in self.suspects} |
                {node for f in self.fleets for s in f.not_uniform
                 for node in s.split[0]})

    @property
    def drained(self):
        '''The nodes with a drain line.'''
        return {line.split()[2][len('NodeName='):] for line in self.drains}


def outcome(report):
    '''The :class:`Outcome` of a parsed JSON run report, read as the
    verdict reads it, against the results database the test session's
    environment names (the property tests' own, empty:
    ``empty_results_database`` in tests/conftest.py).'''
    db_path = os.environ['RFM_SQLITE_DB_FILE']
    cases = final_testcases(report)
    try:
        fleets, note = history.compare_nodes(
            cases, report.get('session_info') or {}, db_path)
    except FleetError:
        fleets, note = None, None

    status, message = acceptance_verdict.judge(report, fleets, note,
                                               db_path=db_path)
    fleets = fleets or []
    return Outcome(
        status, message, fleets, text_lines(fleets),
        [shell_line.quoted(c) for c in drain_commands(fleets, DAY)],
        [(s.partition, s.node) for f in fleets for s in f.suspects])
