'''ci/setup-spack.sh with a site's own Spack on PATH (the real Spack of the
offline kit, tests/helpers/spack_site.py): what it registers goes into the
environment's scope setup-externals, and the user's ~/.spack and the
site's configuration are as they were, also after a second night.
'''

import re
import subprocess

from helpers.spack_ci import MISSING_KIT
from helpers.spack_site import PROBE_REPO
import pytest

pytestmark = pytest.mark.skipif(MISSING_KIT is not None,
                                reason=MISSING_KIT or '')


def spack(site_spack, *args):
    return subprocess.run(['spack', '-e', str(site_spack['env']), *args],
                          env=site_spack['environ'], text=True,
                          capture_output=True, check=True).stdout


def openblas_is_installed():
    '''Whether Debian's OpenBLAS is there (setup registers it, when so).'''
    done = subprocess.run(['dpkg-query', '-W', '-f=${Status}',
                           'libopenblas-dev'], capture_output=True, text=True)
    return done.stdout == 'install ok installed'


def test_the_setup_installs_with_the_site_spack_twice(site_spack):
    for done, seconds in site_spack['runs']:
        print(f'setup with the site Spack: {seconds:.0f} s')
        assert done.returncode == 0, done.stdout[-3000:]
        assert re.search(r'^setup: spack: using \S+/spack \(path\)$',
                         done.stdout, re.M), done.stdout
        assert 'some packages failed' not in done.stdout, done.stdout

    # nothing changed for the second night: not concretized again
    assert 'concretizing' not in site_spack['runs'][1][0].stdout


def test_the_users_and_the_sites_configuration_are_left_alone(site_spack):
    before, after = site_spack['before'], site_spack['after']
    # ~/.spack/packages.yaml (indented by 4 spaces) among them
    assert 'packages.yaml' in before['user']
    assert after['user'] == before['user']
    assert after['site'] == before['site']
    # the environment's own files, as the checkout has them
    assert after['environment'] == before['environment']


def test_what_setup_registers_is_in_the_environments_scope(site_spack):
    scope_file = f"{site_spack['env']}/setup-externals/packages.yaml"
    blame = spack(site_spack, 'config', 'blame', 'packages')
    expected = {'gcc', 'openmpi', 'gmake'} | (
        {'openblas'} if openblas_is_installed() else set())
    sources = {}
    for source, name in re.findall(r'^(\S+):\d+\s+- spec: ([\w-]+)@',
                                   blame, re.M):
        sources.setdefault(name, set()).add(source)

    assert {name: sources.get(name) for name in expected} == {
        name: {scope_file} for name in expected}, blame
    # ... and the environment was built with them: load-probe's MPI is
    # the registered Open MPI
    found = spack(site_spack, 'find', '--format',
                  '{name} {namespace} {external}', 'load-probe', 'openmpi')
    assert sorted(found.split('\n')[:2]) == [
        f'load-probe {PROBE_REPO.name} False', 'openmpi builtin True'], found
