'''HPCC as Spack's builtin recipe builds it, installable at the development
commit that ``spack-envs/common.yaml`` pins.

The builtin ``install`` copies ``README.html`` and ``README.txt``, which
that commit does not have (``OSError: No such file or directory:
'README.html'``). This package keeps everything else of the builtin recipe
(versions, variants, dependencies, build) and installs only the
documentation files the source has. The project repository comes first in
``repos:``, so ``hpcc`` resolves here.
'''

import os

from spack_repo.builtin.packages.hpcc.package import Hpcc as BuiltinHpcc

from spack.package import install, join_path, mkdirp

#: Documentation the builtin recipe installs, when the source has it.
DOCUMENTS = ('README.html', 'README.txt', 'README.md')


class Hpcc(BuiltinHpcc):
    '''HPC Challenge: HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT and
    communication bandwidth and latency.'''

    def install(self, spec, prefix):
        mkdirp(prefix.bin)
        install('hpcc', prefix.bin)
        mkdirp(prefix.share.hpcc)
        install('_hpccinf.txt', join_path(prefix.share.hpcc, 'hpccinf.txt'))
        mkdirp(prefix.doc.hpcc)
        for name in DOCUMENTS:
            if os.path.isfile(name):
                install(name, prefix.doc.hpcc)
