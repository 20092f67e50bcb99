'''`hpc-acceptance new-system --scheduler local`: this host brought in the
way a cluster is (what config/systems/local.py is by hand), and the
command's answers to input it cannot use. The cluster itself:
test_new_system.py.
'''

import os
import re
import shutil
import socket
import subprocess

import pytest

from conftest import DATA_DIR, PROJECT_DIR, run_new_system
from hpc_acceptance.core import system_files
from hpc_acceptance.tools.new_system import toolchain


def printed_files(output):
    '''``{path: text}`` of the files ``--dry-run`` printed.'''
    parts = re.split(r'^==> (\S+)\n', output, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


def test_this_host_the_way_the_embedded_default_is(spack_ci, tmp_path):
    record = spack_ci['record']
    site_dir = tmp_path / 'site'
    # Spack's concretize is test_new_system.py's: minutes of both cores
    done = run_new_system('here', '--scheduler', 'local', '--dry-run',
                          '--no-concretize', '--site-dir', str(site_dir),
                          tmp_path=tmp_path,
                          env={**os.environ, **record['env_vars'],
                               'PATH': f"{record['spack_bin']}:"
                                       f"{os.environ['PATH']}"})
    assert done.returncode == 0, done.stdout[-4000:]
    assert not site_dir.exists()
    assert ('--no-concretize: the environment is not concretized here; '
            'spack install concretizes it') in done.stdout
    files = printed_files(done.stdout)
    assert set(files) == {str(site_dir / rel) for rel in (
        'systems/here.py', 'spack-envs/here/spack.yaml',
        'topology/here-default/processor.json', 'config.py')}

    written = tmp_path / 'written' / 'systems' / 'here.py'
    written.parent.mkdir(parents=True)
    written.write_text(files[str(site_dir / 'systems' / 'here.py')])
    generated = system_files.load(written)
    local = system_files.load(PROJECT_DIR / 'config' / 'systems' /
                              'local.py')
    [part], [by_hand] = (generated.system['partitions'],
                         local.system['partitions'])
    for key in ('scheduler', 'launcher', 'max_jobs', 'env_vars',
                'features'):
        assert part[key] == by_hand[key], key

    assert part['extras']['memory_bytes'] == \
        by_hand['extras']['memory_bytes']
    [env], [env_by_hand] = generated.environments, local.environments
    for key in ('cc', 'cxx', 'ftn', 'features', 'extras'):
        assert env[key] == env_by_hand[key], key

    # the topology ReFrame detects here, in the file ReFrame reads
    topology = files[str(site_dir / 'topology' / 'here-default' /
                         'processor.json')]
    assert f'"arch": "{by_hand["processor"]["arch"]}"' in topology
    assert f'"num_cpus": {by_hand["processor"]["num_cpus"]}' in topology


def test_without_spack_or_modules_it_says_what_to_pass(tmp_path):
    path = os.pathsep.join(d for d in os.environ['PATH'].split(os.pathsep)
                           if not os.path.exists(os.path.join(d, 'spack')))
    done = run_new_system('here', '--scheduler', 'local', '--site-dir',
                          str(tmp_path / 'site'), tmp_path=tmp_path,
                          env=dict(os.environ, PATH=path))
    assert done.returncode == 1
    assert ('no Spack on PATH and no --module: new-system reads the compiler '
            'and MPI from Spack') in done.stdout
    assert 'Put spack on PATH, or pass --module' in done.stdout
    assert 'nothing written' in done.stdout
    assert not (tmp_path / 'site').exists()


@pytest.mark.skipif(bool(os.environ.get('LMOD_CMD') or
                         shutil.which('modulecmd')),
                    reason='a modules system is installed here')
def test_modules_without_a_modules_system_are_refused(tmp_path):
    done = run_new_system('here', '--scheduler', 'local', '--module',
                          'gcc/12', '--site-dir', str(tmp_path / 'site'),
                          tmp_path=tmp_path, env=dict(os.environ))
    assert done.returncode == 1
    assert ('--module needs a modules system, and ReFrame finds none here '
            '(lmod: could not find a sane Lmod installation') in done.stdout


def unused_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_a_scheduler_that_does_not_answer_is_named(tmp_path):
    # a controller that is not running, on a port no test cluster of this
    # machine listens on
    conf = tmp_path / 'slurm.conf'
    conf.write_text((DATA_DIR / 'slurm' / 'slurm.conf.in').read_text()
                    .replace('@ROOT@', str(tmp_path))
                    .replace('@CONTROLLER@', 'localhost')
                    .replace('@NODES@', f'NodeName=n1 CPUs=1\n'
                                        f'SlurmctldPort={unused_port()}'))
    if not shutil.which('scontrol'):
        pytest.skip('Slurm is not installed (ci/setup.sh installs '
                    'slurm-wlm)')

    done = run_new_system('here', '--module', 'gcc/12', '--site-dir',
                          str(tmp_path / 'site'), tmp_path=tmp_path,
                          env=dict(os.environ, SLURM_CONF=str(conf)))
    assert done.returncode == 1
    assert ('Slurm does not answer: scontrol -o show partition failed: '
            'slurm_load_partitions error: Unable to contact slurm '
            'controller') in done.stdout
    assert 'Without Slurm use --scheduler local' in done.stdout


def test_the_module_probe_reads_this_hosts_compiler_and_mpi():
    # the probe new-system runs with the modules loaded, here with none:
    # Debian's Open MPI and the GNU compiler behind it
    done = subprocess.run(['bash', '-c', toolchain.MODULE_PROBE],
                          capture_output=True, text=True)
    tools = toolchain.toolchain_of_probe(
        toolchain.parse_probe(done.stdout), ('gcc/x', 'openmpi/y'), 'lmod')
    gcc = subprocess.run(['gcc', '-dumpfullversion'], capture_output=True,
                         text=True).stdout.strip()
    assert (tools.compiler, tools.compiler_version) == ('gcc', gcc)
    assert tools.mpi == 'openmpi'
    [external] = tools.externals['openmpi']['externals']
    assert external == {'spec': f'openmpi@{tools.mpi_version}',
                        'modules': ['gcc/x', 'openmpi/y']}
    assert tools.archspec_compiler == {'name': 'gcc', 'version': gcc}
