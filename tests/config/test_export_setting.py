'''The site's export setting, read by ReFrame when it sets its logging up:
a mistake stops ReFrame before anything runs, naming the file and key;
a site directory layered with -C is read as well as one named by
HPC_ACCEPTANCE_SITE_DIR.'''

from hpc_acceptance.core import site

SITE_CONFIG = '''
from hpc_acceptance.core import site
site_configuration = site.layer(__file__)
'''


def malformed_site(root):
    root.mkdir()
    (root / 'export.yaml').write_text('url: monitor.example.org:8428\n')
    (root / 'config.py').write_text(SITE_CONFIG)
    return root


def test_a_malformed_setting_stops_reframe_naming_file_and_key(
        run_reframe, tmp_path):
    root = malformed_site(tmp_path / 'site')
    done = run_reframe('-c', 'checks/memory', '-l',
                       env={site.VARIABLE: str(root)})
    assert done.returncode == 1
    assert (f"{root}/export.yaml: url: 'monitor.example.org:8428': an "
            f"http:// or https:// URL with a host is needed") in done.stdout


def test_a_layered_site_s_setting_is_read_too(run_reframe, tmp_path):
    root = malformed_site(tmp_path / 'site')
    done = run_reframe('-C', str(root / 'config.py'), '-c', 'checks/memory',
                       '-l')
    assert done.returncode == 1
    assert f'{root}/export.yaml: url: ' in done.stdout
