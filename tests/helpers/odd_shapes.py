'''Odd shapes of a node made from the real machines' snapshots
(tests/helpers/sysfs_tree.py), for
tests/unit/tools/topology/test_topology_odd_shapes.py:

- offline CPUs, sparse CPU numbering, a NUMA node without CPUs and sparse
  node numbering (the 4-socket Xeon with Hyper-Threading: a core and a
  thread offline, CPUs 8-15 renumbered 64-71, node 2 with memory only);
- caches missing from sysfs: the ARM's L3 for a quarter of its CPUs (a
  node without any cache information: tests/unit/core/test_topology.py).

Hybrid CPUs, sub-NUMA clusters and dies are real machines' snapshots now
(tests/fixtures/data/sysfs/README.md).
'''

from helpers import sysfs_tree

XEON_HT = '16em64t-4s2c2t'
ARM = '128arm-2pa2n8cluster4co'


def offline_sparse(root):
    # core {5,13} and the second thread of core {3,11} offline
    sysfs_tree.offline(root, [5, 13, 11])
    sysfs_tree.renumber(root, {cpu: cpu + 56 for cpu in range(8, 16)})
    online = {0, 1, 2, 3, 4, 6, 7, 64, 65, 66, 68, 70, 71}
    sysfs_tree.set_numa_nodes(root, {0: online, 2: set()})


def l3_missing_on_a_quarter(root):
    sysfs_tree.drop_cache(root, 3, cpus=set(range(96, 128)))


#: ``{shape: (snapshot it is made from, change)}``
SHAPES = {
    'offline-sparse': (XEON_HT, offline_sparse),
    'l3-missing': (ARM, l3_missing_on_a_quarter),
}


def made(tmp_path_factory):
    '''``{shape: root}`` of every shape, made below ``tmp_path_factory``.'''
    roots = {}
    for shape, (fixture, change) in SHAPES.items():
        root = sysfs_tree.extract(fixture, tmp_path_factory.mktemp(shape))
        change(root)
        roots[shape] = root
    return roots
