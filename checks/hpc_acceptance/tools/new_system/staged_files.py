'''Files written all together or not at all, for ``hpc-acceptance
new-system``: each file the command would write, checked against what is
there before anything is asked of the machine, shown (``--dry-run``) or
diffed (``--force``), and finally written so that an error or a kill
leaves either every file new or every file as it was.
'''

import difflib
import os

from hpc_acceptance.tools.results.atomic_file import write_atomically


class StagedFilesError(RuntimeError):
    '''The files cannot be written as asked; the message says why.'''


class StagedFiles:
    '''Texts to write below ``root``, by path relative to it.'''

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.texts = {}

    def add(self, relpath, text):
        self.texts[relpath] = text

    def path(self, relpath):
        return os.path.join(self.root, relpath)

    def existing(self, relpaths=None):
        '''Those of ``relpaths`` (by default the added ones) that exist.'''
        return [rel for rel in (relpaths or self.texts)
                if os.path.lexists(self.path(rel))]

    def refuse_to_replace(self, relpaths, force):
        ''':class:`StagedFilesError` naming the files of ``relpaths`` that
        exist, unless ``force``.'''
        there = self.existing(relpaths)
        if there and not force:
            raise StagedFilesError(
                f'{", ".join(self.path(rel) for rel in there)} already '
                f'exist{"s" if len(there) == 1 else ""}: pass --force to '
                f'replace (the diff is shown first), or choose another name'
            )

    def write_to(self, directory):
        '''Write every file below ``directory`` (a staging copy).'''
        for rel, text in self.texts.items():
            path = os.path.join(directory, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as fp:
                fp.write(text)

    def _old(self, rel):
        try:
            with open(self.path(rel)) as fp:
                return fp.read()
        except FileNotFoundError:
            return None

    def diff(self):
        '''Unified diff from what is there to what would be written.'''
        out = []
        for rel, text in self.texts.items():
            old = self._old(rel)
            out += difflib.unified_diff(
                (old or '').splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=self.path(rel) if old is not None else '/dev/null',
                tofile=self.path(rel))

        return ''.join(out)

    def show(self):
        '''Every file with its path, as ``--dry-run`` prints them.'''
        return ''.join(f'==> {self.path(rel)}\n{text}'
                       f'{"" if text.endswith(chr(10)) else chr(10)}'
                       for rel, text in self.texts.items())

    def commit(self):
        '''Write every file, each in one step; if one cannot be written,
        put back what was there before and remove what was new.'''
        done, made_dirs = [], []
        try:
            for rel, text in self.texts.items():
                old = self._old(rel)
                if old == text:
                    continue

                path = self.path(rel)
                made_dirs += _make_dirs(os.path.dirname(path))
                # settings the night's account reads
                write_atomically(path, text, shared=True)
                done.append((path, old))
        except BaseException:
            for path, old in reversed(done):
                if old is None:
                    os.unlink(path)
                else:
                    write_atomically(path, old, shared=True)

            for directory in reversed(made_dirs):
                if not os.listdir(directory):
                    os.rmdir(directory)

            raise

        return [path for path, _ in done]


def _make_dirs(directory):
    '''Create ``directory`` and its missing parents; the ones created,
    outermost first.'''
    missing = []
    while not os.path.isdir(directory):
        missing.append(directory)
        directory = os.path.dirname(directory)

    for path in reversed(missing):
        os.mkdir(path)

    return list(reversed(missing))
