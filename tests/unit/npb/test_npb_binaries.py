'''Where NPB binaries come from (hpc_acceptance.npb.binaries).'''

import os

from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.npb.binaries import locate

CLUSTER = {'spack_env': 'spack-envs/c'}
ENV_DIR = os.path.join(PROJECT_DIR, 'spack-envs', 'c')


def which_from(found):
    return lambda name: found.get(name)


def executable(path):
    path.write_text('#!/bin/sh\n')
    path.chmod(0o755)
    return path


def find(npb_dir='', extras=None, environ=None, which=None, prefixes=(),
         dry_run=False):
    return locate('cg', 'C', npb_dir=npb_dir, partition_name='c:p',
                  partition_extras=extras or {}, dry_run=dry_run,
                  environ=environ or {}, which=which or which_from({}),
                  spack_prefixes=lambda env: prefixes)


def test_directory_from_the_variable(tmp_path):
    exe = executable(tmp_path / 'cg.C.x')
    found = find(npb_dir=str(tmp_path))
    assert (found.source, found.executable) == ('npb_dir', str(exe))
    assert found.describe() == f'npb_dir:{exe}'


def test_directory_from_the_environment_variable(tmp_path):
    executable(tmp_path / 'cg.C.x')
    found = find(environ={'NPB_BIN_DIR': str(tmp_path)})
    assert found.executable == str(tmp_path / 'cg.C.x')


def test_a_given_directory_without_the_binary_is_not_bypassed(tmp_path):
    # the site said where its build is: Spack and PATH are not consulted
    executable(tmp_path / 'cg.A.x')
    found = find(environ={'NPB_BIN_DIR': str(tmp_path)}, extras=CLUSTER,
                 which=which_from({'spack': '/bin/spack',
                                   'cg.C.x': '/usr/bin/cg.C.x'}))
    assert not found.found
    assert found.reason.startswith(
        f'cg.C.x not found: no executable {tmp_path}/cg.C.x (directory from '
        f'environment variable NPB_BIN_DIR). To provide it: build NPB 3.4 '
        f'(NPB3.4-MPI: make cg CLASS=C)')


def test_a_file_that_cannot_run_is_not_taken(tmp_path):
    (tmp_path / 'cg.C.x').write_text('not a program')
    assert not find(npb_dir=str(tmp_path)).found


def test_spack_environment_with_the_binary(tmp_path):
    (tmp_path / 'bin').mkdir()
    executable(tmp_path / 'bin' / 'cg.C.x')
    found = find(extras=CLUSTER, which=which_from({'spack': '/bin/spack'}),
                 prefixes=('/elsewhere', str(tmp_path)))
    assert found.source == 'spack'
    assert found.describe() == (f'spack:{ENV_DIR} (npb implementation=mpi '
                                f'names=cg classes=C)')
    assert found.prerun_cmds == [
        f'eval "$(spack -e {ENV_DIR} load --sh npb implementation=mpi '
        f'names=cg classes=C)"']
    assert (found.spack_env, found.spack_spec) == (
        ENV_DIR, 'npb implementation=mpi names=cg classes=C')


def test_installed_npb_without_the_binary_is_a_failure(tmp_path):
    # a benchmark that failed to compile: make suite exits 0 all the same
    found = find(extras=CLUSTER, which=which_from({'spack': '/bin/spack'}),
                 prefixes=(str(tmp_path),))
    assert not found.found
    assert found.failure == (
        f"cg.C.x missing: npb is installed in the Spack environment "
        f"{ENV_DIR} of partition 'c:p', but {tmp_path}/bin has no cg.C.x: "
        f"a benchmark that failed to compile (NPB's make suite exits 0 all "
        f"the same); see the build log "
        f"{tmp_path}/.spack/spack-build-out.txt.gz")


def test_spack_environment_without_npb_loads_it_to_fail_with_spack():
    # not installed at all: the check's require_installed fails it with
    # Spack's install errors
    found = find(extras=CLUSTER, which=which_from({'spack': '/bin/spack'}))
    assert (found.source, found.failure) == ('spack', '')
    assert found.spack_spec == 'npb implementation=mpi names=cg classes=C'


def test_dry_run_takes_the_configured_spack_environment():
    # no spack here: the generated script shows what the cluster would load
    found = find(extras=CLUSTER, dry_run=True)
    assert found.source == 'spack'


def test_path_when_no_spack_environment_is_configured():
    found = find(which=which_from({'cg.C.x': '/opt/npb/bin/cg.C.x'}))
    assert (found.source, found.executable) == ('path', '/opt/npb/bin/cg.C.x')


def test_nothing_found_names_every_place_and_what_to_do():
    found = find()
    assert not found.found
    assert found.reason.startswith(
        "cg.C.x not found: partition 'c:p' names no Spack environment "
        "(extras.spack_env); 'cg.C.x' is not on PATH and no module is "
        "mapped to it (extras.modules).")
    assert 'set -S npb_dir=DIR or NPB_BIN_DIR=DIR' in found.reason
