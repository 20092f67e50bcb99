'''The nightly-run recipes in ci/: systemd units, cron line, GitLab CI.'''

import os
import re
import shutil
import subprocess

import jsonschema
import pytest
import yaml
from conftest import PROJECT_DIR

CI = PROJECT_DIR / 'ci'
INSTALL_DIR = '/opt/hpc-acceptance'
#: The site directory every recipe names (ci/named-system.sh).
SITE_DIR_VARIABLE = 'HPC_ACCEPTANCE_SITE_DIR'
SITE_DIR = '/etc/hpc-acceptance'
SITE_DIR_ENTRY = f'{SITE_DIR_VARIABLE}={SITE_DIR}'
UNITS = ['hpc-acceptance-nightly.service', 'hpc-acceptance-nightly.timer']

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
    # every exit status of ci/acceptance.sh is named, the signals' too
    codes = re.search(r'ci/nightly.sh exits (.*?): the unit', service,
                      re.DOTALL)[1]
    assert re.findall(r'\b(\d+)(?:/\d+)? \(', codes) == [
        '1', '2', '3', '4', '5', '130']
    assert '130/143' in codes


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
    assert fields[5] == 'root'
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
