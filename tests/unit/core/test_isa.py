'''ISA variants: CPU support and compiler flags from archspec (isa).'''

import pytest

from hpc_acceptance.core import isa

GCC12 = {'name': 'gcc', 'version': '12.2.0'}


@pytest.mark.parametrize('variant', ['native', 'sse4.2', 'avx', 'avx2',
                                     'avx512'])
def test_an_avx512_cpu_runs_every_variant(variant):
    isa.cpu_supports({'arch': 'icelake'}, variant)


def test_a_cpu_without_avx512_is_refused_with_what_it_lacks():
    with pytest.raises(isa.UnsupportedIsa,
                       match=r'the CPU \(haswell\) cannot run avx512 code: '
                             r"archspec's haswell lacks avx512bw, avx512cd"):
        isa.cpu_supports({'arch': 'haswell'}, 'avx512')

    isa.cpu_supports({'arch': 'haswell'}, 'avx2')


# a QEMU guest's flags (hwloc's fakecpuid1f snapshot): SSE3 as "pni",
# LAHF and CMPXCHG16B, none of SSSE3, SSE4 or POPCNT; archspec: x86_64
GUEST_FLAGS = ('fpu de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov '
               'pse36 clflush mmx fxsr sse sse2 ht syscall nx lm rep_good '
               'nopl xtopology cpuid tsc_known_freq pni cx16 x2apic '
               'hypervisor lahf_lm cpuid_fault pti').split()


def test_what_a_cpu_lacks_is_named_from_its_own_flags():
    with pytest.raises(isa.UnsupportedIsa) as refused:
        isa.cpu_supports({'arch': 'x86_64'}, 'sse4.2', GUEST_FLAGS)
    assert str(refused.value) == (
        'the CPU (x86_64) cannot run sse4.2 code: its flags in /proc/cpuinfo '
        'lack popcnt, sse4_1, sse4_2, ssse3')
    # archspec's generic x86_64 lists none of them
    with pytest.raises(isa.UnsupportedIsa, match='lacks cx16, lahf_lm, '
                                                 'popcnt, sse3'):
        isa.cpu_supports({'arch': 'x86_64'}, 'sse4.2')


def test_a_cpu_described_as_older_than_its_flags_stays_older():
    flags = GUEST_FLAGS + ['ssse3', 'sse4_1', 'sse4_2', 'popcnt']
    isa.cpu_supports({'arch': 'nehalem'}, 'sse4.2', flags)
    with pytest.raises(isa.UnsupportedIsa,
                       match="archspec's x86_64 lacks cx16, lahf_lm"):
        isa.cpu_supports({'arch': 'x86_64'}, 'sse4.2', flags)


def test_an_undescribed_processor_cannot_run_variants():
    with pytest.raises(isa.UnsupportedIsa, match='set processor.arch'):
        isa.cpu_supports({}, 'avx2')

    isa.cpu_supports({}, 'native')


@pytest.mark.parametrize('variant, flags', [
    ('native', '-march=native'),
    ('sse4.2', '-march=x86-64-v2 -mtune=generic'),
    ('avx', '-march=sandybridge -mtune=sandybridge'),
    ('avx2', '-march=x86-64-v3 -mtune=generic'),
    ('avx512', '-march=x86-64-v4 -mtune=generic'),
])
def test_flags_come_from_archspec_for_the_compiler(variant, flags):
    assert isa.build_flags(variant, GCC12) == flags


def test_an_old_compiler_cannot_build_avx512():
    with pytest.raises(isa.UnsupportedIsa,
                       match='gcc 4.8.5 cannot build for avx512'):
        isa.build_flags('avx512', {'name': 'gcc', 'version': '4.8.5'})


def test_variants_need_a_declared_compiler():
    with pytest.raises(isa.UnsupportedIsa, match='extras.compiler'):
        isa.build_flags('avx2', None)

    with pytest.raises(isa.UnsupportedIsa,
                       match="archspec knows no flags of compiler 'mycc'"):
        isa.build_flags('avx2', {'name': 'mycc', 'version': '1.0'})


def test_spack_targets():
    assert isa.spack_target('avx2') == 'x86_64_v3'
    assert isa.spack_target('native') is None


@pytest.mark.parametrize('arch', ['x86_64_v3', 'x86_64_v4', 'bulldozer'])
def test_a_cpu_named_by_its_level_runs_avx(arch):
    # archspec names a CPU it does not know by its level, which lists no
    # AES: AVX code does not need it
    isa.cpu_supports({'arch': arch}, 'avx')


def test_an_arm_cpu_runs_no_x86_variant_and_says_so():
    with pytest.raises(isa.UnsupportedIsa,
                       match=r'the CPU \(neoverse_n1\) is aarch64: avx2 is an '
                             r'x86_64 instruction set'):
        isa.cpu_supports({'arch': 'neoverse_n1'}, 'avx2')


def test_a_generic_x86_64_cpu_lacks_no_baseline_feature():
    with pytest.raises(isa.UnsupportedIsa) as refused:
        isa.cpu_supports({'arch': 'x86_64'}, 'sse4.2')
    assert 'sse4_2' in str(refused.value)
    assert 'sse2' not in str(refused.value)
