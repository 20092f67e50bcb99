'''Locations inside the checkout that checks need at run time.

The package is installed in editable mode (``pip install -e .``), so it sits
in ``checks/hpc_acceptance`` of the checkout it belongs to.
'''

from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[3]

#: C sources of the in-tree kernels, one folder per benchmark family.
SRC_DIR = PROJECT_DIR / 'src'

#: Per-system reference files (``<system>.yaml``).
REFERENCE_DIR = PROJECT_DIR / 'reference'

if not (SRC_DIR.is_dir() and (PROJECT_DIR / 'checks').is_dir()):
    raise ImportError(
        f'hpc_acceptance is not running from a checkout ({PROJECT_DIR} has '
        f'no src/ and checks/): install it with "pip install -e <checkout>"'
    )
