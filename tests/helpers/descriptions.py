'''Processor descriptions shaped exactly as ReFrame's detection writes
them (``reframe.utility.cpuinfo``: sorted hexadecimal masks, one cache
entry per level, size and sharing), for the tests of what the checks
decide from them.'''


def mask(cpus):
    return hex(sum(1 << cpu for cpu in cpus))


def described(cores, sockets, nodes=None, caches=(), num_cpus=None,
              vendor='GenuineIntel', arch='x86_64_v3'):
    '''A description: ``cores``, ``sockets`` and ``nodes`` (default: one
    per socket) lists of CPU sets, ``caches`` (level, size, [CPU sets]),
    ``num_cpus`` the CPU directories ReFrame counts (default: those of
    the cores), the processor's ``vendor`` and archspec name ``arch``.'''
    cpus = num_cpus or sum(len(core) for core in cores)
    return {
        'vendor': vendor,
        'arch': arch,
        'num_cpus': cpus,
        'num_cpus_per_core': cpus // len(cores),
        'num_sockets': len(sockets),
        'topology': {
            'cores': sorted(mask(c) for c in cores),
            'sockets': sorted(mask(s) for s in sockets),
            'numa_nodes': sorted(mask(n) for n in (nodes or sockets)),
            'caches': [{'type': f'L{level}', 'size': size, 'linesize': 64,
                        'num_cpus': len(sets[0]),
                        'cpusets': sorted(mask(s) for s in sets)}
                       for level, size, sets in caches],
        },
    }
