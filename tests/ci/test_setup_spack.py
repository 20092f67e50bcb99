'''ci/setup-spack.sh never loses a Spack unpacked from the offline kit:
a later setup without HPC_ACCEPTANCE_SPACK_KIT (ci/acceptance.sh and the
bench scripts run ci/setup.sh so) must not clone over it.'''

import os
import subprocess

from conftest import PROJECT_DIR


def setup_spack(spack_dir, **env):
    '''ci/setup-spack.sh on ``spack_dir`` with no Spack on PATH and no
    kit named: the finished process, output merged.'''
    run_env = {k: v for k, v in os.environ.items()
               if k not in ('HPC_ACCEPTANCE_SPACK_KIT', 'SPACK_ROOT')}
    run_env.update(PATH='/usr/bin:/bin',
                   HPC_ACCEPTANCE_SPACK_DIR=str(spack_dir), **env)
    return subprocess.run([str(PROJECT_DIR / 'ci' / 'setup-spack.sh')],
                          env=run_env, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120)


def unpacked_spack(spack_dir):
    '''What a kit leaves: Spack and its packages, with an install tree,
    and no .git.'''
    installed = spack_dir / 'spack' / 'opt' / 'spack' / 'stream' / 'bin'
    installed.mkdir(parents=True)
    (installed / 'stream_c.exe').write_text('built before')
    (spack_dir / 'spack-packages' / 'repos').mkdir(parents=True)
    return installed / 'stream_c.exe'


def test_a_spack_from_a_kit_is_not_cloned_over(tmp_path):
    binary = unpacked_spack(tmp_path)
    done = setup_spack(tmp_path)
    assert done.returncode == 0, done.stdout
    assert 'is not a git clone (unpacked from an offline kit?)' in done.stdout
    assert binary.read_text() == 'built before'
    assert (tmp_path / 'spack-packages' / 'repos').is_dir()
    assert not (tmp_path / 'spack' / '.git').exists()
    assert not (tmp_path / 'setup.json').exists()


def test_the_kit_of_the_last_setup_is_used_again(tmp_path):
    binary = unpacked_spack(tmp_path)
    moved = tmp_path / 'kit-moved-away'
    (tmp_path / 'kit.path').write_text(f'{moved}\n')
    done = setup_spack(tmp_path)
    assert done.returncode == 0, done.stdout
    assert f'using the offline kit of the last setup, {moved}' in done.stdout
    assert f'HPC_ACCEPTANCE_SPACK_KIT={moved} lacks spack.tar.gz' in \
        done.stdout
    assert binary.read_text() == 'built before'
