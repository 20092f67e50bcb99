'''The machine the tests run on, read from /proc and /sys by the tests
themselves, so that what they expect follows the host (Intel or AMD, with
or without AVX-512, SMT, cpufreq, NUMA) and is not taken from the code
under test.'''

import os
from pathlib import Path

SYS_CPU = Path('/sys/devices/system/cpu')

#: ISA variant -> the /proc/cpuinfo flags a CPU needs to run its code (the
#: x86-64 psABI levels v2, v3, v4; Sandy Bridge for AVX).
ISA_FLAGS = {
    'sse4.2': {'sse4_2', 'popcnt', 'ssse3'},
    'avx': {'sse4_2', 'popcnt', 'avx'},
    'avx2': {'avx', 'avx2', 'bmi1', 'bmi2', 'fma', 'f16c', 'movbe'},
    'avx512': {'avx2', 'avx512f', 'avx512bw', 'avx512cd', 'avx512dq',
               'avx512vl'},
}


def cpu_flags():
    '''The feature flags of the first processor in /proc/cpuinfo.'''
    with open('/proc/cpuinfo') as fp:
        for line in fp:
            if line.startswith('flags'):
                return set(line.split(':', 1)[1].split())

    return set()


def runs_isa(isa):
    '''Whether this CPU can run code built for ISA variant ``isa``.'''
    return ISA_FLAGS[isa] <= cpu_flags()


def native_isa():
    '''What ``-march=native`` code says it was built for here: the widest
    vector extension the CPU has (the kernels' ``# built for:`` line).'''
    flags = cpu_flags()
    for isa, flag in (('avx512', 'avx512f'), ('avx2', 'avx2'),
                      ('avx', 'avx'), ('sse4.2', 'sse4_2')):
        if flag in flags:
            return isa

    return 'x86-64'


def cache_levels():
    '''The data cache levels of CPU 0, e.g. ``[1, 2, 3]``.'''
    levels = set()
    for index in (SYS_CPU / 'cpu0' / 'cache').glob('index*'):
        if (index / 'type').read_text().strip() != 'Instruction':
            levels.add(int((index / 'level').read_text()))

    return sorted(levels)


def threads_per_core():
    '''Hardware threads of CPU 0's core (1 without SMT).'''
    siblings = SYS_CPU / 'cpu0' / 'topology' / 'thread_siblings_list'
    try:
        text = siblings.read_text().strip()
    except OSError:
        return 1

    count = 0
    for part in text.split(','):
        first, _, last = part.partition('-')
        count += int(last or first) - int(first) + 1

    return count


def numa_nodes():
    '''Online NUMA nodes (1 where the kernel reports none).'''
    nodes = Path('/sys/devices/system/node')
    return max(1, len(list(nodes.glob('node[0-9]*'))))


def logical_cpus():
    return os.cpu_count()


def turbo():
    '''``(state, detail)`` as a job on this node reports Turbo: ``on``,
    ``off`` or ``unknown``, and the sysfs file it was read from.'''
    no_turbo = SYS_CPU / 'intel_pstate' / 'no_turbo'
    boost = SYS_CPU / 'cpufreq' / 'boost'
    if no_turbo.exists():
        value = no_turbo.read_text().strip()
        return ('on' if value == '0' else 'off',
                f'intel_pstate/no_turbo={value}')

    if boost.exists():
        value = boost.read_text().strip()
        return 'on' if value == '1' else 'off', f'cpufreq/boost={value}'

    if (SYS_CPU / 'cpu0' / 'cpufreq').is_dir():
        return 'unknown', 'the cpufreq driver has no turbo switch'

    return 'unknown', f'no cpufreq driver ({SYS_CPU}/cpu0/cpufreq is missing)'


def sockets():
    '''Processor packages with an online CPU.'''
    packages = {path.read_text().strip() for path in
                SYS_CPU.glob('cpu[0-9]*/topology/physical_package_id')}
    return max(1, len(packages))


def physical_cores():
    '''Cores, counting each core's hardware threads once.'''
    return logical_cpus() // threads_per_core()
