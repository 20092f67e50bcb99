'''The rules of a node's fingerprint (hpc_acceptance.tools.fleet.fingerprint)
at their edges: what the probe's record gives, memory sizes at the
tolerance and their names, the most common fingerprint of a node, the
order of the groups, the nearest group. Each test pins a decision a mutant
of the module changed while the other tests passed (tests/README.md,
"Mutation testing").
'''

from helpers import fleet_cases
from hpc_acceptance.tools.fleet import fingerprint

GIB = 2 ** 20


def _kb(gib):
    return int(gib * GIB)


def test_the_probe_record_is_read_field_by_field():
    record = fleet_cases.hardware(cpu='AMD EPYC 9654 96-Core Processor',
                                  cores=192, memory_gib=768,
                                  bios='Lenovo 1.4 (build=42)')
    assert fingerprint.of_case(record) == {
        'cpu': 'AMD EPYC 9654 96-Core Processor', 'cpus': '192',
        'cores': '192', 'memory': str(768 * GIB),
        'bios': 'Lenovo 1.4 (build=42)', 'kernel': '6.1.0-26-amd64'}


def test_a_case_the_probe_did_not_record_has_the_unknown_fingerprint():
    found = fingerprint.of_case({})
    assert tuple(found[f] for f in fingerprint.FIELDS) == fingerprint.UNKNOWN


def test_a_node_is_what_most_of_its_cases_recorded():
    cpu = 'Intel(R) Xeon(R) Gold 6430'
    old = fleet_cases.hardware(cpu=cpu, bios='2.1.5')
    new = fleet_cases.hardware(cpu=cpu, bios='2.0.1')
    prints = fingerprint.of_nodes({'n1': [{}, {}, old, new, new],
                                   'n2': [new, {}, old, old]})
    assert prints['n1'][fingerprint.FIELDS.index('bios')] == '2.0.1'
    assert prints['n2'][fingerprint.FIELDS.index('bios')] == '2.1.5'
    assert all(len(p) == len(fingerprint.FIELDS) for p in prints.values())
    assert prints['n1'][fingerprint.FIELDS.index('kernel')] == \
        '6.1.0-26-amd64'


def test_memory_exactly_the_tolerance_apart_is_the_same_memory():
    names = fingerprint.memory_sizes([980, 1000])
    assert names[980] == names[1000]
    names = fingerprint.memory_sizes([979, 1000])
    assert names[979] != names[1000]


def test_a_memory_size_is_named_by_its_clusters_median():
    '''One node at 187.49 GiB, two at 187.51: all three are "188 GiB",
    whatever their order, so that a night's name is the next night's.'''
    sizes = [_kb(187.49), _kb(187.51), _kb(187.51)]
    assert set(fingerprint.memory_sizes(sizes).values()) == {'188 GiB'}
    assert set(fingerprint.memory_sizes(sizes[::-1]).values()) == \
        {'188 GiB'}


def test_memory_sizes_are_named_as_people_read_them():
    names = fingerprint.memory_sizes([_kb(7.5), _kb(8), _kb(62.5),
                                      _kb(2048)])
    assert [names[_kb(g)] for g in (7.5, 8, 62.5, 2048)] == [
        '7.5 GiB', '8 GiB', '62.5 GiB', '2048 GiB']


def test_groups_are_the_largest_first():
    groups = fingerprint.groups({'n1': ('a',), 'n2': ('b',), 'n3': ('b',),
                                 'n4': ('c',), 'n5': ('c',), 'n6': ('c',)})
    assert [g.nodes for g in groups] == [['n4', 'n5', 'n6'], ['n2', 'n3'],
                                         ['n1']]


def test_the_nearest_group_differs_in_fewest_fields_then_is_largest():
    big = fingerprint.Group(('x', '64', '64', '512 GiB', 'b1', 'k1'),
                            ['n1', 'n2', 'n3', 'n4', 'n5'])
    small = fingerprint.Group(('x', '64', '64', '512 GiB', 'b2', 'k1'),
                              ['n6', 'n7', 'n8', 'n9'])
    other = fingerprint.Group(('y', '32', '32', '256 GiB', 'b1', 'k1'),
                              ['m1', 'm2', 'm3', 'm4'])
    lost_dimm = ('x', '64', '64', '448 GiB', 'b2', 'k1')
    assert fingerprint.nearest(lost_dimm, [other, big, small]) == small
    tie = ('x', '64', '64', '448 GiB', 'b3', 'k1')
    assert fingerprint.nearest(tie, [small, other, big]) == big


def test_differences_name_both_sides():
    assert fingerprint.differences(
        ('x', '64', '64', '448 GiB', '', 'k1'),
        ('x', '64', '64', '512 GiB', 'b1', 'k1')) == [
        'memory 448 GiB (others: 512 GiB)', 'bios not recorded (others: b1)']


def test_a_fingerprint_is_described_by_what_was_recorded():
    assert fingerprint.describe(('x', '64', '', '', '', 'k1')) == \
        'cpu x; cpus 64; kernel k1'
    assert fingerprint.describe(fingerprint.UNKNOWN) == \
        'no fingerprint recorded'
