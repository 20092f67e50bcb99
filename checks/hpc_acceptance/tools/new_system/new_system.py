'''``hpc-acceptance new-system NAME``: a site's cluster in one command.

Asks the machine, not the user: Slurm (``scontrol show partition|node``,
``srun --mpi=list``, ``sacct``) and one short job on a node of each
partition (its processor topology by ReFrame's own
``--detect-host-topology``, its Turbo and SMT state by ``node_state.sh``,
its memory), or this host with ``--scheduler local``; the compiler and MPI
from Spack (``spack compiler find``, ``spack external find``) or from the
modules given with ``--module``. Writes into the site directory
(:mod:`hpc_acceptance.core.site`) the system file, its Spack environment
and the partitions' topologies, each value with a comment saying where it
was read; checks them first (ReFrame lists the nightly set for the new
system; Spack, when there, concretizes the environment); and prints the
next commands.

It refuses to replace existing files unless ``--force`` (after showing the
diff), prints the files instead of writing them with ``--dry-run``, and
writes either every file or none.
'''

import os
import shutil
import socket
import sys
import tempfile
import time

from hpc_acceptance.core import site
from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.stream import sizing
from hpc_acceptance.tools.common import command_settings, identifiers
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.new_system import node_probe
from hpc_acceptance.tools.new_system import partition_entries
from hpc_acceptance.tools.new_system import slurm_facts
from hpc_acceptance.tools.new_system import spack_env_file
from hpc_acceptance.tools.new_system import system_writer
from hpc_acceptance.tools.new_system import toolchain
from hpc_acceptance.tools.new_system import written_checks
from hpc_acceptance.tools.new_system.request import Request
from hpc_acceptance.tools.new_system.staged_files import (StagedFiles,
                                                          StagedFilesError)
from hpc_acceptance.tools.new_system.system_writer import Value

#: One line for ``hpc-acceptance --help``.
description = ('bring a cluster in: ask it, write and check its system, '
               'Spack environment and topologies')

#: The failures new-system reports as one line.
FAILURES = (slurm_facts.SlurmError, node_probe.ProbeError,
            toolchain.ToolchainError, written_checks.WrittenCheckError,
            StagedFilesError, site.SiteError)


def work_dir(prefix=None):
    '''Where the probe jobs write and the files are checked: below
    ReFrame's ``prefix`` (``RFM_PREFIX``; ``None``: the checkout's
    ``var/``), which the compute nodes share as they share the checks'
    stage directories.'''
    return os.path.join(prefix or PROJECT_DIR / 'var', 'new-system')


def say(message):
    print(f'new-system: {message}', flush=True)


class NotBroughtIn(Exception):
    '''The system could not be brought in; nothing was written. The
    message says why, and where the probes' output was kept.'''


def find_toolchain(request, workdir):
    if request.module:
        say(f'loading {" ".join(request.module)} for the compiler and MPI')
        return toolchain.from_modules(request.module)

    say('asking Spack for the compiler and MPI (spack compiler find, '
        'spack external find)')
    return toolchain.from_spack(workdir)


def require_a_toolchain_source(request):
    if not request.module and not shutil.which('spack'):
        raise toolchain.ToolchainError(
            'no Spack on PATH and no --module: new-system reads the '
            'compiler and MPI from Spack (spack compiler find, spack '
            'external find) or from the modules you name. Put spack on '
            'PATH, or pass --module for the compiler and the MPI (e.g. '
            '--module gcc/12.2.0 --module openmpi/4.1.6)')


def local_partition(workdir, tools):
    '''This host as the partition ``default``.'''
    say('probing this host (reframe --detect-host-topology, '
        'node_state.sh)')
    node = node_probe.probe_here(workdir)
    return [(partition_entries.local_entry(node, tools), node)]


def chosen_partitions(request):
    '''The Slurm partitions to bring in: asked first, so that an unknown
    one is told before anything takes long.'''
    say('asking Slurm for its partitions (scontrol show partition)')
    available = slurm_facts.partitions()
    chosen = slurm_facts.select(available, request.partition)
    left = slurm_facts.left_out(available, chosen)
    if left:
        say(f'left out: {left}; add each with --partition (repeatable)')
    for partition in chosen:
        if not identifiers.NAME.fullmatch(partition.name):
            raise slurm_facts.SlurmError(
                f'partition {partition.name!r} cannot be a ReFrame '
                f'partition of the same name (letters, digits, "-" and '
                f'"_", starting with a letter or "_"): bring it in by hand')

    return chosen


def slurm_partitions(request, chosen, workdir, tools):
    '''Each chosen Slurm partition, read from Slurm and its probe job.'''
    backend = slurm_facts.accounting()
    launcher = slurm_facts.launcher_for(
        tools.mpi, slurm_facts.mpi_plugins(),
        slurm_facts.config_value('MpiDefault'))
    found = []
    for partition in chosen:
        nodes = slurm_facts.nodes(partition)
        say(f'probing a node of partition {partition.name} (one job: '
            f'reframe --detect-host-topology, node_state.sh; at most '
            f'{request.probe_timeout:.0f} s)')
        node = node_probe.probe_partition(str(workdir), partition.name,
                                          request.probe_timeout)
        found.append((partition_entries.slurm_entry(
            partition, nodes, node, tools, backend, launcher), node))

    return found


def render_files(request, partitions, tools, command):
    files = StagedFiles(request.site_dir)
    modules = Value(list(tools.modules), f'--module ({tools.modules_system})')
    files.add(f'systems/{request.name}.py', system_writer.render(
        name=request.name, command=command, hostname=socket.gethostname(),
        modules_system=Value(tools.modules_system,
                             'the modules of --module load with it'
                             if tools.modules else
                             'no --module: the environment loads nothing'),
        partitions=[entry for entry, _ in partitions],
        environment=(tools.environment_name, {
            'cc': Value(tools.wrappers[0],
                        f'{tools.mpi} {tools.mpi_version}\'s wrappers, '
                        f'{tools.source}'),
            'cxx': Value(tools.wrappers[1]),
            'ftn': Value(tools.wrappers[2]),
            'modules': modules,
            'compiler': Value(tools.archspec_compiler,
                              f'{tools.compiler} {tools.compiler_version}, '
                              f'the compiler behind the wrappers: archspec '
                              f'picks the ISA variants\' flags for it'),
        })))
    processors = {node.host: node.processor for _, node in partitions}
    stream = spack_env_file.stream_array_size(processors)
    for entry, _ in partitions:
        problem = sizing.memory_problem(stream[0], entry.memory_bytes.value)
        if problem:
            say(f'warning: partition {entry.name}: {problem}')

    files.add(f'spack-envs/{request.name}/spack.yaml', spack_env_file.render(
        name=request.name, command=command,
        targets=[(node.processor.get('arch'),
                  f'reframe --detect-host-topology, {node.where}')
                 for _, node in partitions],
        stream=stream, toolchain=tools))
    for entry, node in partitions:
        with open(node.topology_file) as fp:
            files.add(f'topology/{request.name}-{entry.name}/processor.json',
                      fp.read())

    if not os.path.exists(os.path.join(request.site_dir, 'config.py')):
        files.add('config.py', system_writer.SITE_CONFIG)

    return files


def check_files(files, request, workdir):
    staging = os.path.join(workdir, 'site')
    files.write_to(staging)
    say('checking: reframe --mode nightly -l for the new system')
    listed = written_checks.nightly_checks(staging, request.name)
    say(f'reframe lists {sum(listed.values())} nightly test cases: '
        f'{", ".join(f"{name} ({n})" for name, n in sorted(listed.items()))}')
    env_dir = os.path.join(staging, 'spack-envs', request.name)
    if not request.concretize:
        say('--no-concretize: the environment is not concretized here; '
            'spack install concretizes it')
    elif shutil.which('spack'):
        say('checking: spack concretize of the new environment (minutes)')
        written_checks.concretize(env_dir)
        say('Spack concretizes the environment')
    else:
        say('no spack on PATH: the environment is not concretized here')


def next_steps(request):
    site_dir, name = request.site_dir, request.name
    return f'''
Review the files: each value says where it was read. Then:

  export {site.VARIABLE}={site_dir}
  # install the environment, on a node of the cluster
  spack -e {site_dir}/spack-envs/{name} install
  # the bring-up nights pass unjudged (no reference file yet): 5 quiet
  # nights or more, then the system's own noise floors, then its
  # references
  export HPC_ACCEPTANCE_UNREFERENCED_OK={name}
  ci/acceptance.sh --system {name}
  .venv/bin/hpc-acceptance propose-references --calibrate-noise \\
      --system {name} --write
  .venv/bin/hpc-acceptance propose-references --system {name} --write
  unset HPC_ACCEPTANCE_UNREFERENCED_OK
  # every night from now on, judged; the fleet run: every node
  ci/acceptance.sh --system {name}
  ci/acceptance.sh --fleet --system {name}

(or plain ReFrame: reframe -C config/settings.py -C {site_dir}/config.py
 --system {name} -c checks/ -r --mode nightly)
'''


def bring_in(request):
    '''The new system's files, read from the cluster (or this host),
    staged and checked, not yet written.

    :raises NotBroughtIn: one of :data:`FAILURES`, with where the probes'
        output was kept.
    '''
    files = StagedFiles(request.site_dir)
    below = work_dir(request.reframe_prefix)
    os.makedirs(below, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix=f'{request.name}-', dir=below)
    try:
        if not request.dry_run:
            files.refuse_to_replace([f'systems/{request.name}.py',
                                     f'spack-envs/{request.name}/spack.yaml'],
                                    request.force)

        chosen = (chosen_partitions(request)
                  if request.scheduler == 'slurm' else None)
        require_a_toolchain_source(request)
        tools = find_toolchain(request, workdir)
        say(f'compiler {tools.compiler} {tools.compiler_version}, MPI '
            f'{tools.mpi} {tools.mpi_version}: {tools.source}')
        partitions = (slurm_partitions(request, chosen, workdir, tools)
                      if chosen else local_partition(workdir, tools))
        files = render_files(request, partitions, tools,
                             request.command_line())
        if not request.dry_run:
            files.refuse_to_replace(None, request.force)

        check_files(files, request, workdir)
    except FAILURES as err:
        kept = (f'; what the probes wrote is in {workdir}'
                if os.listdir(workdir) else '')
        if not kept:
            os.rmdir(workdir)

        raise NotBroughtIn(f'{err}\n(nothing written{kept})') from None

    shutil.rmtree(workdir, ignore_errors=True)
    return files


def setup_parser(parser):
    '''The options of ``hpc-acceptance new-system``.'''
    parser.add_argument('name', help='the new system\'s name')
    parser.add_argument('--scheduler', choices=('slurm', 'local'),
                        default='slurm',
                        help='Slurm partitions, or this host alone '
                             '(default: %(default)s)')
    parser.add_argument('--partition', action='append', default=[],
                        help='a Slurm partition to bring in (repeatable; '
                             'default: Slurm\'s default partition)')
    parser.add_argument('--module', action='append', default=[],
                        help='a module of the site\'s compiler or MPI '
                             '(repeatable); without it, Spack finds them')
    parser.add_argument('--site-dir',
                        help=f'the site directory to write into (default: '
                             f'${site.VARIABLE})')
    parser.add_argument('--probe-timeout', type=float, default=600,
                        help='seconds the probe job of a partition may take '
                             'from submission to its end (default: '
                             '%(default)s)')
    parser.add_argument('--dry-run', action='store_true',
                        help='print the files instead of writing them')
    parser.add_argument('--force', action='store_true',
                        help='replace existing files, after showing the '
                             'diff')
    parser.add_argument('--no-concretize', dest='concretize',
                        action='store_false',
                        help='do not check that Spack concretizes the '
                             'written environment (minutes); spack install '
                             'does it')


def command(args):
    '''``hpc-acceptance new-system``: the files brought in, written (or
    shown with ``--dry-run``), then the next commands.'''
    try:
        given = command_settings.read()
    except command_settings.BadSetting as err:
        print(f'new-system: {err}', file=sys.stderr)
        return 2

    request = Request(args.name, args.site_dir or given.site_dir,
                      args.scheduler,
                      args.partition, args.module, args.probe_timeout,
                      args.dry_run, args.force, args.concretize,
                      given.reframe_dirs.prefix)
    problem = request.problem()
    if problem:
        raise UsageError(problem)

    request.site_dir = os.path.realpath(request.site_dir)
    started = time.monotonic()
    try:
        files = bring_in(request)
    except NotBroughtIn as err:
        print(f'new-system: {err}', file=sys.stderr)
        return 1

    if request.dry_run:
        print(files.diff() if files.existing() else files.show(), end='')
        say(f'--dry-run: nothing written ({time.monotonic() - started:.0f} '
            f's)')
        return 0

    if files.existing() and request.force:
        print(files.diff(), end='')

    for path in files.commit():
        say(f'wrote {path}')

    say(f'done in {time.monotonic() - started:.0f} s')
    print(next_steps(request))
    return 0
