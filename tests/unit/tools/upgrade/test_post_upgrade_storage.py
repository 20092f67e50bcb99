'''A post-upgrade run's results must reach the results database, as an
acceptance run's must (hpc_acceptance.tools.upgrade.runs_before_after.
not_stored, through ``hpc-acceptance db check --run``).'''

import shutil
import subprocess

from conftest import DATA_DIR, HPC_ACCEPTANCE
from hpc_acceptance.tools.upgrade import runs_before_after

REAL = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'


def _run(tmp_path):
    report = tmp_path / 'post-upgrade-20261125T000000Z.json'
    shutil.copy(REAL, report)
    report.with_suffix('.log').write_text('[ReFrame Setup]\n')
    return [(str(report), 0)]


def test_a_run_the_database_does_not_hold_is_named(tmp_path, capsys):
    runs = _run(tmp_path)
    assert runs_before_after.not_stored(
        runs, str(tmp_path / 'results.db')) == [runs[0][0]]
    assert 'only in' in capsys.readouterr().err


def test_a_stored_run_is_not(tmp_path):
    database = tmp_path / 'results.db'
    runs = _run(tmp_path)
    subprocess.run([str(HPC_ACCEPTANCE), 'db', 'import', '--db',
                    str(database), runs[0][0]], check=True,
                   capture_output=True)
    assert runs_before_after.not_stored(runs, str(database)) == []
