'''Files a node's job wrote, opened only where they are files
(hpc_acceptance.tools.common.regular_file): a pipe, a device or a folder
is refused at once, naming what it is; a file, or a link to one, is
read.'''

import os

import pytest

from hpc_acceptance.tools.common.regular_file import NotRegular, open_regular


def test_a_file_and_a_link_to_one_are_read(tmp_path):
    (tmp_path / 'report.json').write_text('{}')
    os.symlink(tmp_path / 'report.json', tmp_path / 'link.json')
    for name in ('report.json', 'link.json'):
        with open_regular(tmp_path / name) as fp:
            assert fp.read() == '{}'
    with open_regular(tmp_path / 'report.json', 'rb') as fp:
        assert fp.read() == b'{}'


@pytest.mark.parametrize('make, kind', [
    (lambda path: os.mkfifo(path), 'a named pipe'),
    (lambda path: os.symlink('/dev/zero', path), 'a character device'),
    (lambda path: os.mkdir(path), 'a folder'),
])
def test_what_is_no_file_is_refused_without_waiting(tmp_path, make, kind):
    path = tmp_path / 'report.json'
    make(path)
    with pytest.raises(NotRegular, match=f'^not a regular file '
                                         f'\\({kind}\\): not read$'):
        open_regular(path)
    # an OSError: where a missing file is handled, so is this
    assert issubclass(NotRegular, OSError)


def test_a_missing_file_is_the_usual_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / 'none.json')
