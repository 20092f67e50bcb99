'''The properties through the commands themselves, a few examples each:
no measurement stored with ``hpc-acceptance db import`` (ReFrame's own
storage) and read back by ``hpc-acceptance suspects`` from the results
database, and by ``hpc-acceptance verdict`` from the report; any file
handed to the four commands, whose output a process shows (no traceback,
one line, the documented status). The other property tests call the
functions these commands run, for speed.'''

import json
import os
import subprocess
import time

from hypothesis import given
from hypothesis import strategies as st

from conftest import HPC_ACCEPTANCE
from helpers import generated_runs as gen
from helpers.hypothesis_profiles import examples
from test_property_any_file import DOCUMENTED, FILES, UNREADABLE, render
from test_property_no_measurement import broken


def _command(tmp_path, *args):
    env = dict(os.environ, RFM_SQLITE_DB_FILE=str(tmp_path / 'results.db'))
    done = subprocess.run([str(HPC_ACCEPTANCE), *args], capture_output=True,
                          text=True, env=env)
    return done.returncode, done.stdout, done.stderr


@examples(3)
@given(gen.fleets(nodes=st.integers(4, 8), troubles=False, degraded=False),
       gen.INDEX, gen.INDEX, gen.INDEX,
       st.sampled_from((float('nan'), float('inf'), None, 'n/a', -1.0)))
def test_cli_no_measurement_stored_and_read_back_is_named(
        tmp_path_factory, made, node, check, figure, kind):
    tmp_path = tmp_path_factory.mktemp('stored')
    # within the 30 days the commands read
    report = gen.report(made, start=float(int(time.time() - 3600)))
    node, check = gen.pick(made.nodes, node), gen.pick(made.checks, check)
    figure = gen.pick([f for f, _, _ in made.checks[check]], figure)
    path = tmp_path / 'fleet.json'
    path.write_text(json.dumps(broken(report, node, check, figure, kind)))
    assert _command(tmp_path, 'db', 'import', '--db',
                    str(tmp_path / 'results.db'), str(path))[0] == 0
    status, out, err = _command(tmp_path, 'suspects')
    assert status == 1, err
    assert any(line.startswith(f'  {node}: ') and 'no measurement' in line
               for line in out.splitlines()), out
    status, out, err = _command(tmp_path, 'verdict', str(path), '0')
    assert status == 1 and 'no measurement' in err, err


@examples(4)
@given(FILES)
def test_cli_any_file_is_judged_or_refused_in_one_line(tmp_path_factory,
                                                       handed_over):
    tmp_path = tmp_path_factory.mktemp('handed-over')
    path = tmp_path / 'handed-over.json'
    path.write_bytes(render(*handed_over))
    for name, args in (
            ('verdict', ['verdict', str(path), '0']),
            ('suspects', ['suspects', '--run-report', str(path)]),
            ('db import', ['db', 'import', '--db',
                           str(tmp_path / 'results.db'), str(path)])):
        status, out, err = _command(tmp_path, *args)
        assert 'Traceback' not in out + err, (name, err)
        assert status in DOCUMENTED[name], (name, status, err)
        if status == UNREADABLE:
            (line,) = [line for line in err.splitlines() if line.strip()]
            assert str(path) in line
            assert not (tmp_path / 'results.db').exists()
