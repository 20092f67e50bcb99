'''The Spack that ``ci/setup-spack.sh`` prepared for the embedded default.

Setup records it in ``<Spack directory>/setup.json`` (the directory is
``.spack/`` of the checkout or ``HPC_ACCEPTANCE_SPACK_DIR``): where Spack
is (``spack_bin``, ``env_vars``), the environment it installed, where it
came from (``source``, ``origin``, ``prepared``) and, when this run's setup
could not use it, why (``problem``, ``problem_since``). The record is kept
across runs; the ``local`` partition uses the environment exactly when
:func:`unusable_because` finds nothing against it.

Standard library only: ``ci/acceptance.sh`` asks before ReFrame starts.
'''

import json
import os

from hpc_acceptance.core.paths import PROJECT_DIR

#: The record's file name in the Spack directory.
RECORD = 'setup.json'


def spack_dir():
    '''The Spack directory of ``ci/setup-spack.sh``.'''
    return os.environ.get('HPC_ACCEPTANCE_SPACK_DIR',
                          str(PROJECT_DIR / '.spack'))


def read(directory=None):
    '''The record in ``directory`` (default :func:`spack_dir`), or
    ``None`` where setup prepared no Spack.

    :raises ValueError: the record is not JSON (naming the file).
    '''
    path = os.path.join(directory or spack_dir(), RECORD)
    try:
        with open(path) as fp:
            return json.load(fp)
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as err:
        raise ValueError(f'{path}: not a setup record: {err}') from None


def unusable_because(record):
    '''Why this run uses no Spack environment although ``record`` names
    one; ``None`` when it uses it (or when there is no record).'''
    if record is None:
        return None

    if os.environ.get('HPC_ACCEPTANCE_SPACK') == 'off':
        return 'HPC_ACCEPTANCE_SPACK=off'

    return record.get('problem')
