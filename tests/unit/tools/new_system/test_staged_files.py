'''Files written all together or not at all (hpc_acceptance.tools
.staged_files), as new-system writes a site's files.'''

import pytest

from hpc_acceptance.tools.new_system.staged_files import (StagedFiles,
                                                          StagedFilesError)


def staged(root):
    files = StagedFiles(root)
    files.add('systems/x.py', 'system = {}\n')
    files.add('spack-envs/x/spack.yaml', 'spack: {}\n')
    return files


def test_everything_is_written_below_the_root(tmp_path):
    files = staged(tmp_path / 'site')
    assert files.commit() == [str(tmp_path / 'site' / 'systems' / 'x.py'),
                              str(tmp_path / 'site' / 'spack-envs' / 'x' /
                                  'spack.yaml')]
    assert (tmp_path / 'site' / 'systems' / 'x.py').read_text() == \
        'system = {}\n'
    # unchanged files are not written again
    assert staged(tmp_path / 'site').commit() == []


def test_existing_files_are_refused_unless_forced(tmp_path):
    staged(tmp_path).commit()
    files = staged(tmp_path)
    with pytest.raises(StagedFilesError,
                       match=r'x\.py, .*spack\.yaml already exist: pass '
                             r'--force to replace'):
        files.refuse_to_replace(None, force=False)

    files.refuse_to_replace(None, force=True)
    files.add('systems/x.py', 'system = {"name": "x"}\n')
    diff = files.diff()
    assert f'--- {tmp_path}/systems/x.py' in diff
    assert '-system = {}\n+system = {"name": "x"}' in diff


def test_a_dry_run_shows_every_file_with_its_path(tmp_path):
    shown = staged(tmp_path).show()
    assert shown == (f'==> {tmp_path}/systems/x.py\nsystem = {{}}\n'
                     f'==> {tmp_path}/spack-envs/x/spack.yaml\nspack: {{}}\n')
    assert not (tmp_path / 'systems').exists()


def test_a_file_that_cannot_be_written_leaves_everything_as_it_was(
        tmp_path):
    (tmp_path / 'systems').mkdir()
    (tmp_path / 'systems' / 'x.py').write_text('old\n')
    files = staged(tmp_path)
    # a file where the environment's directory would be
    (tmp_path / 'spack-envs').write_text('in the way')
    with pytest.raises(OSError):
        files.commit()

    assert (tmp_path / 'systems' / 'x.py').read_text() == 'old\n'
    assert sorted(p.name for p in tmp_path.rglob('*')) == [
        'spack-envs', 'systems', 'x.py']


def test_directories_made_for_a_failed_write_are_removed(tmp_path):
    files = StagedFiles(tmp_path / 'site')
    files.add('topology/x-a/processor.json', '{}')
    files.add('topology/x-b', 'a file')
    files.add('topology/x-b/processor.json', '{}')
    with pytest.raises(OSError):
        files.commit()

    assert not (tmp_path / 'site').exists()
