'''Which BLAS hpcc runs with (hpc_acceptance.hpcc.blas).'''

import subprocess

import pytest

from hpc_acceptance.hpcc import blas
from conftest import DATA_DIR


def test_debian_hpcc_with_the_reference_blas():
    text = (DATA_DIR / 'hpcc' /
            'libraries.debian-reference-blas.txt').read_text()
    libraries = blas.parse_listing(text)
    assert ('libmpi.so.40',
            '/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4') in libraries
    found = blas.identify(libraries)
    assert found == blas.BlasLibrary(
        'reference', '/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0')
    assert found.describe() == ('reference:/usr/lib/x86_64-linux-gnu/blas/'
                                'libblas.so.3.11.0')


@pytest.mark.parametrize('soname, path, kind', [
    # Debian's alternatives for libblas.so.3
    ('libblas.so.3',
     '/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3', 'openblas'),
    ('libblas.so.3', '/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3',
     'blis'),
    ('libblas.so.3', '/usr/lib/x86_64-linux-gnu/atlas/libblas.so.3.10.3',
     'atlas'),
    # Spack installs
    ('libopenblas.so.0',
     '/opt/spack/linux-x86_64/openblas-0.3.26-abc/lib/libopenblas.so.0.3',
     'openblas'),
    ('libblas.so.3',
     '/opt/spack/linux-x86_64/netlib-lapack-3.11.0-xyz/lib64/libblas.so.3',
     'reference'),
    ('libmkl_rt.so.2', '/opt/intel/oneapi/mkl/2024.0/lib/libmkl_rt.so.2',
     'mkl'),
    ('libflexiblas.so.3', '/usr/lib64/libflexiblas.so.3.3', 'flexiblas'),
    ('libsci_gnu_82.so.6', '/opt/cray/pe/lib64/libsci_gnu_82.so.6',
     'libsci'),
])
def test_implementation_from_the_resolved_path(soname, path, kind):
    libraries = [('libc.so.6', '/usr/lib/x86_64-linux-gnu/libc.so.6'),
                 (soname, path)]
    assert blas.identify(libraries) == blas.BlasLibrary(kind, path)


def test_unrecognised_and_absent_blas():
    assert blas.identify([('libblas.so.3', '/opt/vendor/libblas.so.3')]) == \
        blas.BlasLibrary('unknown', '/opt/vendor/libblas.so.3')
    # statically linked BLAS: nothing to see in the dynamic libraries
    assert blas.identify([('libc.so.6', '/lib/libc.so.6')]).describe() == \
        'none'


def test_listing_command_lists_a_real_binary(tmp_path):
    out = tmp_path / 'libs.txt'
    subprocess.run(['bash', '-c', blas.listing_command('ls', str(out))],
                   check=True)
    libraries = dict(blas.parse_listing(out.read_text()))
    assert 'libc.so.6' in libraries
    assert libraries['libc.so.6'].startswith('/')
