'''The nightly-run recipes in ci/: systemd units, cron line, GitLab CI.'''

import os
import re
import shutil
import subprocess

import jsonschema
import pytest
import yaml
from conftest import PROJECT_DIR
from helpers import systemd_unit

CI = PROJECT_DIR / 'ci'
INSTALL_DIR = '/opt/hpc-acceptance'
#: The site directory every recipe names (ci/named-system.sh).
SITE_DIR_VARIABLE = 'HPC_ACCEPTANCE_SITE_DIR'
SITE_DIR = '/etc/hpc-acceptance'
SITE_DIR_ENTRY = f'{SITE_DIR_VARIABLE}={SITE_DIR}'
UNITS = ['hpc-acceptance-nightly.service', 'hpc-acceptance-nightly.timer']
#: The unprivileged account the recipes run the night as.
ACCOUNT = 'hpc-acceptance'
#: The exposure systemd-analyze security may give the service at most.
EXPOSURE_LIMIT = 3.0

# The GitLab CI keywords the pipeline uses, with GitLab's types and value
# sets (docs.gitlab.com/ee/ci/yaml); an unknown or misspelt key is an error.
_STRINGS = {'type': 'array', 'items': {'type': 'string'}, 'minItems': 1}
_JOB = {
    'type': 'object',
    'required': ['stage', 'script'],
    'additionalProperties': False,
    'properties': {
        'stage': {'type': 'string'},
        'tags': _STRINGS,
        'rules': {'type': 'array', 'items': {
            'type': 'object', 'additionalProperties': False,
            'properties': {'if': {'type': 'string'},
                           'when': {'enum': ['on_success', 'manual',
                                             'always', 'never']}}}},
        'timeout': {'type': 'string', 'pattern': r'^\d+\s*[hm]'},
        'before_script': _STRINGS,
        'script': _STRINGS,
        'after_script': _STRINGS,
        'artifacts': {
            'type': 'object', 'additionalProperties': False,
            'required': ['paths'],
            'properties': {
                'when': {'enum': ['on_success', 'on_failure', 'always']},
                'expire_in': {'type': 'string'},
                'paths': _STRINGS,
                'reports': {'type': 'object', 'additionalProperties': False,
                            'properties': {'junit': {'type': 'string'}}},
            },
        },
    },
}
_PIPELINE = {
    'type': 'object',
    'required': ['stages'],
    'properties': {
        'stages': _STRINGS,
        'variables': {'type': 'object',
                      'additionalProperties': {'type': 'string'}},
    },
    'additionalProperties': _JOB,
}


def test_systemd_units_verify(tmp_path):
    analyze = shutil.which('systemd-analyze')
    if analyze is None:
        pytest.skip('systemd-analyze is not installed (Debian: systemd)')

    # the units name the install directory; verify them for this checkout
    for unit in UNITS:
        text = (CI / 'systemd' / unit).read_text()
        (tmp_path / unit).write_text(text.replace(INSTALL_DIR,
                                                  str(PROJECT_DIR)))

    done = subprocess.run([analyze, 'verify',
                           *(str(tmp_path / u) for u in UNITS)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ''


def test_the_timer_fires_nightly_and_starts_the_service():
    timer = (CI / 'systemd' / UNITS[1]).read_text()
    assert f'Unit={UNITS[0]}\n' in timer
    calendar = re.search(r'^OnCalendar=(.+)$', timer, re.MULTILINE)[1]
    assert re.fullmatch(r'\*-\*-\* \d\d:\d\d:\d\d', calendar)
    service = (CI / 'systemd' / UNITS[0]).read_text()
    assert f'ExecStart={INSTALL_DIR}/ci/nightly.sh\n' in service
    # the site names its system; left empty, the run refuses
    assert 'Environment=HPC_ACCEPTANCE_SYSTEM=\n' in service
    # the one place the site's settings live, for every system
    assert f'Environment={SITE_DIR_ENTRY}\n' in service
    # what each exit status means is the one table's, which it names
    assert 'ci/README.md, "Exit status"' in service
    assert not re.search(r'exits 1 \(', service)


def test_the_service_runs_as_the_night_s_account_with_var_its_only_place(
        ):
    settings = systemd_unit.service_settings(
        (CI / 'systemd' / UNITS[0]).read_text())
    assert settings['User'] == [ACCOUNT] and settings['Group'] == [ACCOUNT]
    assert settings['ProtectSystem'] == ['strict']
    assert settings['ReadWritePaths'] == [f'{INSTALL_DIR}/var']
    assert settings['UMask'] == ['0027']
    assert settings['NoNewPrivileges'] == ['yes']
    assert settings['CapabilityBoundingSet'] == ['']
    assert settings['PrivateTmp'] == ['yes']


def test_the_service_s_exposure_is_low(tmp_path):
    analyze = shutil.which('systemd-analyze')
    if analyze is None:
        pytest.skip('systemd-analyze is not installed (Debian: systemd)')

    # as shipped: the analysis reads the file alone, no systemd running
    unit = tmp_path / UNITS[0]
    shutil.copy(CI / 'systemd' / UNITS[0], unit)
    done = subprocess.run([analyze, 'security', '--offline=true',
                           f'--threshold={int(EXPOSURE_LIMIT * 10)}',
                           '--no-pager', str(unit)],
                          capture_output=True, text=True)
    level = re.search(rf'Overall exposure level for {UNITS[0]}: '
                      rf'(\d+\.\d+) (\w+)', done.stdout)
    assert level, done.stdout[-2000:] + done.stderr
    assert float(level[1]) <= EXPOSURE_LIMIT, done.stdout
    assert done.returncode == 0, done.stdout[-2000:]
    # the figure the unit's comment gives
    assert f'rates it {level[1]} ({level[2]})' in unit.read_text()


def _cron_field(field, low, high):
    if field == '*':
        return True

    return all(part.isdigit() and low <= int(part) <= high
               for part in field.split(','))


def test_the_cron_line_is_a_valid_cron_d_entry():
    lines = [line for line in
             (CI / 'cron' / 'hpc-acceptance').read_text().splitlines()
             if line.strip() and not line.startswith('#')]
    entries = [line for line in lines if not re.match(r'^\w+=', line)]
    assert 'HPC_ACCEPTANCE_SYSTEM=""' in lines
    assert f'{SITE_DIR_VARIABLE}="{SITE_DIR}"' in lines
    assert len(entries) == 1
    fields = entries[0].split(None, 6)
    ranges = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
    assert all(_cron_field(f, *r) for f, r in zip(fields, ranges)), fields
    # the night's account, never root
    assert fields[5] == ACCOUNT
    # the nightly makes var/ and its log itself: no redirect into a folder
    # a fresh checkout lacks (tests/e2e/test_recipes_run.py runs it)
    assert fields[6] == (f'cd {INSTALL_DIR} && ci/nightly.sh --log '
                         f'var/nightly.log')


def test_the_gitlab_pipeline_matches_the_schema_and_the_project():
    pipeline = yaml.safe_load(
        (CI / 'gitlab' / 'acceptance.gitlab-ci.yml').read_text())
    jsonschema.validate(pipeline, _PIPELINE)
    jobs = {k: v for k, v in pipeline.items()
            if k not in _PIPELINE['properties']}
    assert len(jobs) == 1
    (job,) = jobs.values()
    assert job['stage'] in pipeline['stages']
    assert any('ci/nightly.sh' in line for line in job['script'])
    assert pipeline['variables']['HPC_ACCEPTANCE_SYSTEM'] == ''
    assert pipeline['variables'][SITE_DIR_VARIABLE] == SITE_DIR
    # the runner's clean keeps the setup's expensive parts
    assert pipeline['variables']['GIT_STRATEGY'] == 'fetch'
    assert set(pipeline['variables']['GIT_CLEAN_FLAGS'].split()) >= {
        '/.venv/', '/.spack/'}
    artifacts = job['artifacts']
    assert artifacts['when'] == 'always'
    # where config/settings.py writes them
    assert artifacts['reports']['junit'] == 'var/reports/junit.xml'
    assert {'var/reports/', 'var/results.db'} <= set(artifacts['paths'])


def test_a_misspelt_pipeline_key_is_rejected():
    pipeline = yaml.safe_load(
        (CI / 'gitlab' / 'acceptance.gitlab-ci.yml').read_text())
    pipeline['acceptance']['artefacts'] = pipeline['acceptance'].pop(
        'artifacts')
    with pytest.raises(jsonschema.ValidationError, match='artefacts'):
        jsonschema.validate(pipeline, _PIPELINE)


def nightly(system=None, checkout=PROJECT_DIR, **env):
    env = dict({k: v for k, v in os.environ.items()
                if k not in ('HPC_ACCEPTANCE_SYSTEM',
                             'HPC_ACCEPTANCE_SITE_DIR')}, **env)
    if system is not None:
        env['HPC_ACCEPTANCE_SYSTEM'] = system
    return subprocess.run([str(checkout / 'ci' / 'nightly.sh')], env=env,
                          text=True, capture_output=True, timeout=60)


@pytest.mark.parametrize('system', [None, ''])
def test_a_nightly_without_a_named_system_refuses_before_anything_runs(
        system):
    done = nightly(system)
    assert done.returncode == 2
    assert 'HPC_ACCEPTANCE_SYSTEM is not set' in done.stderr
    # it names the systems there are to choose from
    assert "local" in done.stderr and 'setup:' not in done.stdout


def test_a_nightly_naming_an_unknown_system_refuses_naming_the_known():
    done = nightly('no-such-cluster')
    assert done.returncode == 2
    assert ('HPC_ACCEPTANCE_SYSTEM=no-such-cluster is no system of '
            'config/systems/ (known: ') in done.stderr
    assert ' local' in done.stderr


def test_an_unknown_system_is_refused_on_a_fresh_checkout_before_setup(
        tmp_path):
    # a clone that ci/setup.sh has not run in: no .venv, no ReFrame
    checkout = tmp_path / 'checkout'
    shutil.copytree(PROJECT_DIR, checkout, ignore=shutil.ignore_patterns(
        '.venv', 'var', '.spack', '.git', '__pycache__', 'tests', 'build',
        '*.egg-info'))
    done = nightly('no-such-cluster', checkout)
    assert done.returncode == 2
    assert 'known: example-cluster local' in done.stderr
    assert 'setup:' not in done.stdout + done.stderr
    assert not (checkout / '.venv').exists()


def test_a_site_directorys_system_is_known_to_the_nightly(tmp_path):
    systems = tmp_path / 'site' / 'systems'
    systems.mkdir(parents=True)
    (systems / 'tornado.py').write_text(
        "system = {\n    'name': 'tornado',\n    'partitions': [],\n}\n")
    done = nightly('no-such-cluster', HPC_ACCEPTANCE_SITE_DIR=str(
        tmp_path / 'site'))
    assert done.returncode == 2
    assert f'or {tmp_path}/site/systems/ (known: example-cluster local ' \
        f'tornado)' in done.stderr


def test_a_nightly_as_root_refuses_unless_the_site_insists():
    if os.geteuid() != 0:
        pytest.skip('the night as root: needs root')
    done = nightly('local', HPC_ACCEPTANCE_SITE_DIR='')
    assert done.returncode == 2
    assert 'nightly: runs as root: the night runs as an unprivileged ' \
        'account' in done.stderr
    assert 'HPC_ACCEPTANCE_NIGHT_AS_ROOT=1. Nothing was run.' in done.stderr
    assert 'setup:' not in done.stdout + done.stderr.replace(
        'ci/setup.sh', '')


def test_a_nightly_refuses_code_others_can_change_and_installs_nothing(
        tmp_path):
    # a checkout that ci/setup.sh has not run in, in a folder others can
    # write to, with a check its group can change
    base = tmp_path / 'shared'
    checkout = base / 'checkout'
    shutil.copytree(PROJECT_DIR, checkout, ignore=shutil.ignore_patterns(
        '.venv', 'var', '.spack', '.git', '__pycache__', 'tests', 'build',
        '*.egg-info', 'node_modules'))
    check = checkout / 'checks' / 'stream' / 'stream.py'
    check.chmod(0o664)
    base.chmod(0o777)
    env = dict(HPC_ACCEPTANCE_SITE_DIR='', HPC_ACCEPTANCE_NIGHT_AS_ROOT='1',
               HPC_ACCEPTANCE_SPACK='off')
    done = nightly('local', checkout, **env)
    assert done.returncode == 2, done.stderr
    assert 'nightly: the night runs code that others than ' in done.stderr
    assert f'  {base} (owner ' in done.stderr and 'mode 0777)' in \
        done.stderr
    assert f'  {check} (owner ' in done.stderr and 'mode 0664)' in \
        done.stderr
    assert 'Nothing was run.' in done.stderr
    assert 'setup:' not in done.stdout

    # made the administrator's: the night verifies the setup, and installs
    # nothing where there is none
    base.chmod(0o755)
    check.chmod(0o644)
    done = nightly('local', checkout, **env)
    assert done.returncode == 6, done.stdout + done.stderr
    assert ".venv/ is missing or not of pyproject.toml's pins, and this " \
        "setup installs nothing (--verify: the night's)" in done.stderr
    assert not (checkout / '.venv').exists()
    assert not (checkout / '.spack').exists()
