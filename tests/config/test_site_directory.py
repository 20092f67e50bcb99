'''A site's own directory (hpc_acceptance.core.site), through the reframe
CLI: its system, references and topology come from outside the checkout,
layered over config/settings.py (-C config/settings.py -C <site>/config.py)
or named by HPC_ACCEPTANCE_SITE_DIR.'''

from hpc_acceptance.core import site
from conftest import ONE_TIMED_RUN

#: A site system: the embedded default's node under another name, picked
#: only by --system.
SYSTEM_FILE = '''
import copy
from hpc_acceptance.core import system_files
from hpc_acceptance.core.paths import PROJECT_DIR
_local = system_files.load(PROJECT_DIR / 'config' / 'systems' / 'local.py')
system = dict(copy.deepcopy(_local.system), name='tinysite',
              hostnames=['^$'])
environments = [dict(copy.deepcopy(_local.environments[0]),
                     target_systems=['tinysite'])]
'''

#: An entry for a partition the system does not have.
REFERENCES = '''
MemoryLatencyCheck:
  $index: [$partition]
  tinysite:compute:
    latency_l1: [1.2, -0.5, 0.5, ns]
'''


#: The site's layer over config/settings.py.
SITE_CONFIG = '''
from hpc_acceptance.core import site
site_configuration = site.layer(__file__)
'''


def make_site(root):
    (root / 'systems').mkdir(parents=True)
    (root / 'systems' / 'tinysite.py').write_text(SYSTEM_FILE)
    (root / 'reference').mkdir()
    (root / 'reference' / 'tinysite.yaml').write_text(REFERENCES)
    (root / 'config.py').write_text(SITE_CONFIG)
    return root


def test_a_layered_site_brings_its_system_and_its_references(run_reframe,
                                                             tmp_path):
    root = make_site(tmp_path / 'site')
    done = run_reframe('-C', str(root / 'config.py'),
                       '--system', 'tinysite', '-c', 'checks/memory',
                       '-n', 'MemoryLatencyCheck', '--exclude-tag=variant',
                       *ONE_TIMED_RUN, '-r')
    # the site's file, checked against the site's system: its partition
    # key matches none, and the check fails before its benchmark runs
    assert done.returncode == 1, done.stdout[-3000:]
    assert (f'{root}/reference/tinysite.yaml: '
            f'MemoryLatencyCheck.tinysite:compute: matches no partition of '
            f'the system (partitions: tinysite:default)') in done.stdout
    assert 'Job type: local (id=None)' in done.stdout


def test_the_variable_names_the_site_for_every_command(run_reframe,
                                                       tmp_path):
    root = make_site(tmp_path / 'site')
    (root / 'reference' / 'tinysite.yaml').unlink()
    done = run_reframe('--system', 'tinysite', '-c', 'checks/memory', '-l',
                       env={site.VARIABLE: str(root)})
    assert done.returncode == 0, done.stdout[-3000:]
    assert "selected system:   'tinysite'" in done.stdout
    assert 'MemoryLatencyCheck' in done.stdout


def test_a_missing_site_directory_is_named(run_reframe, tmp_path):
    done = run_reframe('-c', 'checks/memory', '-l',
                       env={site.VARIABLE: str(tmp_path / 'nowhere')})
    assert done.returncode == 1
    assert f'{site.VARIABLE}={tmp_path}/nowhere: no such directory' in \
        done.stdout
