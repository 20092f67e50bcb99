'''``hpc-acceptance nodes`` (hpc_acceptance.tools.fleet.nodes) on this
host's own partition: ReFrame's local scheduler, whose one node is the
host, asked as a fleet run asks Slurm's.'''

import json
import socket

from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import node_map
from hpc_acceptance.tools.results.runs import CONFIG

#: ReFrame's embedded system of any host: one partition, one node.
LOCAL = 'local:default'


def test_the_node_map_is_shown_and_kept(tmp_path, capsys):
    kept = tmp_path / 'nodes.json'
    assert cli.main(['nodes', '--state', 'all', '--system', 'local',
                     '--json', str(kept)]) == 0
    written = json.loads(kept.read_text())
    assert written == {LOCAL: {'state': 'all',
                               'covered': [socket.gethostname()],
                               'left_out': []}}
    assert node_map.read_node_map(str(kept)) == written
    out = capsys.readouterr().out
    assert out == f'{LOCAL}: 1 of 1 node(s) in state all\n'


def test_no_node_in_the_state_fails_saying_so(tmp_path, capsys):
    kept = tmp_path / 'nodes.json'
    assert cli.main(['nodes', '--state', 'MAINT', '--system', 'local',
                     '--json', str(kept)]) == 1
    out, err = capsys.readouterr()
    # the state as ReFrame takes it; the message says it as it was given
    assert out.splitlines() == [
        f'{LOCAL}: 0 of 1 node(s) in state maint, left out:',
        f'  {socket.gethostname()} (state unknown)']
    assert err == ('nodes: no node is MAINT: a fleet run would run '
                   'nothing\n')
    # kept all the same: the run's summary lists what it left out
    assert json.loads(kept.read_text())[LOCAL]['covered'] == []


def test_a_run_is_listed_from_its_own_reframe_arguments():
    listed = node_map.listing_of_run('all', [
        '-C', str(CONFIG), '--system', 'local', '-c', 'checks/', '-r',
        '--exec-policy=serial', '-J', 'reservation=maint'])
    assert listed.problem is None and listed.covered == 1
    assert listed.lines == [f'{LOCAL}: 1 of 1 node(s) in state all']
