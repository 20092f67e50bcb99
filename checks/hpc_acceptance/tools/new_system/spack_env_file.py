'''The Spack environment ``hpc-acceptance new-system`` writes
(``<site>/spack-envs/<name>/spack.yaml``): the specs every system's
environment has (those of ``spack-envs/example-cluster``), the nodes'
microarchitecture, STREAM's array size by STREAM's rule, and the site's
compiler and MPI as externals; each value beside a comment saying where it
was read.

The environment lives in the site directory, so it names the checkout's
shared settings, package repository and kernel sources by their absolute
paths.
'''

import textwrap

import yaml

from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.stream import sizing
from hpc_acceptance.tools.common import identifiers

#: Static arrays larger than 2 GiB in all need the medium code model.
_SMALL_CODE_MODEL_BYTES = 2**31


def stream_array_size(processors):
    '''``(elements, why)``: the smallest array size that obeys STREAM's
    rule on every node described by ``processors`` (``{where:
    processor}``): four times the last-level caches of all of a node's
    cores, the largest of the thread layouts.'''
    best, why = 0, ''
    for where, info in processors.items():
        cores = sizing.layout_cores(info, 'all_cores')
        llc = sizing.last_level_cache_bytes(info, cores)
        elements = sizing.min_array_elements(llc)
        if elements > best:
            best = elements
            why = (f'4 x the {llc / 2**20:g} MiB of last-level cache of all '
                   f'cores of {where} / 8 bytes')

    return best, why


def stream_spec(elements):
    '''McCalpin's STREAM with ``elements`` per array, compiled in, at -O3
    (the recipe's -O2 leaves GCC's OpenMP kernels scalar).'''
    cflags = ['-O3']
    if 3 * elements * 8 > _SMALL_CODE_MODEL_BYTES:
        cflags.append('-mcmodel=medium')

    return (f'stream+openmp stream_array_size={elements} '
            f'cflags="{" ".join(cflags)}"')


def render(*, name, command, targets, stream, toolchain):
    '''The environment's text.

    :arg targets: ``[(archspec name, why)]`` of the nodes.
    :arg stream: ``(elements, why)`` of :func:`stream_array_size`.
    '''
    elements, stream_why = stream
    target_why = '; '.join(f'{target}: {why}' for target, why in targets)
    # a flow sequence of plain words: an arch that is no archspec name
    # (``x]\n  specs: [...]``) would add keys of its own
    node_targets = ', '.join(f'target={identifiers.arch(t)}'
                             for t in dict.fromkeys(t for t, _ in targets))
    packages = yaml.safe_dump({'packages': toolchain.externals},
                              sort_keys=False, width=1000)
    packages = ''.join(f'  {line}\n' for line in packages.splitlines())
    common = PROJECT_DIR / 'spack-envs' / 'common.yaml'
    repo = (PROJECT_DIR / 'spack-envs' / 'repo' / 'spack_repo' /
            'hpc_acceptance')
    return f'''\
# Spack environment of {name}, written from what the machine said by
#
#   {command}
#
# Review it, then install it on a node of the cluster:
#
#   spack -e <this directory> install
spack:
  include:
  # the acceptance suite's shared settings (its checkout)
  - {common}
  # what ci/setup-spack.sh registers when it installs this environment with
  # a Spack of the site's: that host's compilers and externals, in
  # setup-externals/ beside this file, never in ~/.spack or the site's
  # configuration; Spack commands that change configuration without being
  # told where write there too, not into this file
  - name: setup-externals
    path: setup-externals
    optional: true
    prefer_modify: true

  # its package repository (common.yaml finds it only beside the checkout's
  # own environments)
  repos:
    hpc_acceptance: {repo}

  definitions:
{_comment(f"The compute nodes' microarchitecture, for isa=native builds "
          f"(processor.arch, {target_why}).")}
  - node_target: [{node_targets}]
  # The checks with ISA variants: our kernels and STREAM (HPCC and NPB run
  # the nodes' own build only).
{_comment(f"STREAM's rule: each array at least {elements} elements "
          f"({stream_why}); {3 * elements * 8 / 2**30:.1f} GiB in all.")}
  - per_isa: [hpc-acceptance-kernels, {stream_spec(elements)}]

  specs:
  - matrix:
    - - $per_isa
      - hpcc
      - npb implementation=mpi names=bt,cg,ep,ft,is,lu,mg,sp classes=C
    - [$node_target]
  # Once more for each ISA variant.
  - matrix:
    - [$per_isa]
    - [$isa_targets]

  # Built from the checkout's src/, never downloaded.
  develop:
    hpc-acceptance-kernels:
      spec: hpc-acceptance-kernels@=develop
      path: {PROJECT_DIR / 'src'}

{_comment(f"The site's compiler and MPI, {toolchain.source}: used as "
          f"they are, never rebuilt.")}
{packages}
  # The checks load each package with `spack load`; no view needed.
  view: false
'''


def _comment(text, indent=2):
    return '\n'.join(f'{" " * indent}# {line}'
                     for line in textwrap.wrap(text, 76 - indent))
