'''Which BLAS a benchmark binary runs with.

HPL and DGEMM spend their time in BLAS, and the library decides the
figure: Debian's hpcc links ``libblas.so.3``, which the alternatives system
points at the reference (netlib) BLAS or at OpenBLAS, BLIS, ATLAS — several
times apart. The check lists the binary's shared libraries on the node it
runs on (:func:`listing_command`), and :func:`identify` names the BLAS.
'''

import os
import shlex
from dataclasses import dataclass

LISTING_FILE = 'libraries.txt'

# Path fragments (lower case) that identify an implementation, most
# specific first: Debian installs every alternative as libblas.so.3 in a
# directory named after the implementation.
_KINDS = (
    ('mkl', 'mkl'),
    ('openblas', 'openblas'),
    ('blis', 'blis'),
    ('atlas', 'atlas'),
    ('flexiblas', 'flexiblas'),
    ('libsci', 'libsci'),
    ('armpl', 'armpl'),
    ('essl', 'essl'),
    ('nvpl', 'nvpl'),
    ('netlib', 'reference'),
    ('/blas/libblas.so', 'reference'),
)

_BLAS_NAMES = ('blas', 'mkl', 'libsci', 'armpl', 'essl')


@dataclass(frozen=True)
class BlasLibrary:
    #: ``reference``, ``openblas``, ``mkl``, ``blis``, ... or ``unknown``
    kind: str
    #: The library file after following symbolic links, or ``''``
    path: str = ''

    def describe(self):
        '''``kind:path`` for the perflog.'''
        return f'{self.kind}:{self.path}' if self.path else self.kind


def listing_command(executable, output=LISTING_FILE):
    '''Shell command writing ``soname resolved-path`` for every shared
    library of ``executable`` (a path, or a name on ``PATH``) to
    ``output``.'''
    exe = shlex.quote(executable)
    out = shlex.quote(output)
    return (f'ldd "$(command -v {exe})" 2>&1 | '
            f'while read -r name arrow path rest; do '
            f'if [ "$arrow" = "=>" ] && [ -e "$path" ]; then '
            f'echo "$name $(readlink -f "$path")"; fi; done > {out}')


def parse_listing(text):
    '''``[(soname, resolved path)]`` from :func:`listing_command`'s file.'''
    libraries = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 2:
            libraries.append((fields[0], fields[1]))

    return libraries


def classify(path):
    '''The implementation a BLAS library file belongs to.'''
    lowered = path.lower()
    for fragment, kind in _KINDS:
        if fragment in lowered:
            return kind

    return 'unknown'


def identify(libraries):
    '''The :class:`BlasLibrary` among ``[(soname, path)]``; ``kind`` is
    ``none`` when no BLAS is linked dynamically (a static BLAS, or a
    listing of a different program).'''
    candidates = [(name, path) for name, path in libraries
                  if any(key in name.lower() or key in
                         os.path.basename(path).lower()
                         for key in _BLAS_NAMES)]
    if not candidates:
        return BlasLibrary('none')

    # MKL links several libraries; any one names the implementation.
    for name, path in candidates:
        kind = classify(path)
        if kind == 'unknown':
            kind = classify(name)

        if kind != 'unknown':
            return BlasLibrary(kind, path)

    return BlasLibrary('unknown', candidates[0][1])
