'''What the checks would do on a node, decided by the checks themselves.

ReFrame is configured with the project's configuration
(``config/settings.py``, and a site directory's) in which one partition —
the embedded default ``local:default`` unless another is named — has the
node's processor description (and, for the embedded default, the node's
memory, which that partition measures on the node it runs on). ReFrame
then loads the checks and generates their test cases for that partition,
exactly as ``reframe --mode nightly`` or ``--mode post-upgrade`` would,
with the mode's ``-S`` settings; and every test case runs its own setup
hooks, the code that sizes and places it and skips it on a real node, on
that partition. What the hooks set (threads, places, ranks, launcher
options, array and problem sizes, program options) and why they skipped
is the replay's answer: there is no second implementation of any decision.

Hooks that do not decide from the node's topology are not run, because
they depend on the node's software or on files of a run (:data:`NOT_RUN`);
the replay says so instead of guessing: where each binary comes from, the
reference entries, whether the compiler can build an ISA variant.
'''

import copy
import shlex
from dataclasses import dataclass, field
from typing import Optional

import reframe.core.config as config
import reframe.core.runtime as runtime
import reframe.utility as util
from reframe.core.exceptions import ReframeError, SkipTestError
from reframe.core.fields import make_convertible
from reframe.frontend.executors import generate_testcases
from reframe.frontend.loader import RegressionCheckLoader

from hpc_acceptance.core import node_state
from hpc_acceptance.core.check import AcceptanceCheck
from hpc_acceptance.core.paths import PROJECT_DIR

CONFIG = PROJECT_DIR / 'config' / 'settings.py'

#: The partition replayed unless another is named: the embedded default,
#: as ``ci/acceptance.sh`` runs on the node itself.
EMBEDDED_DEFAULT = 'local:default'

#: The modes replayed, in order.
MODES = ('nightly', 'post-upgrade')

#: Setup hooks the replay does not run, and why.
NOT_RUN = {
    'resolve_dependency': 'where the binary comes from is the node\'s '
                          'software (Spack, modules, PATH, in-tree builds)',
    'locate_binary': 'where the NPB binary comes from is the node\'s '
                     'software',
    'list_libraries': 'the BLAS hpcc loads is the node\'s software',
    'use_system_references': 'reference entries are the system\'s, not '
                             'the node\'s shape',
    'record_core_clock': 'reads the run\'s own files',
    'set_perf_variables': 'reads the run\'s own output (the peaks it '
                          'compares with are replayed apart)',
}


class ReplayError(RuntimeError):
    '''The replay cannot be set up; the message says why.'''


@dataclass(frozen=True)
class Node:
    '''A node to replay.'''
    #: ReFrame's processor description
    info: dict
    #: bytes of memory, or ``None`` where unknown
    memory_bytes: Optional[int]
    #: the node-state probe's output on the node (Turbo, SMT, nominal
    #: clock, topology), which the hooks of a local partition read
    probed: str
    #: ``this host`` or the snapshot's path
    source: str
    #: dies per package, where sysfs lists them
    dies: Optional[int] = None


@dataclass
class Decision:
    '''One test case of one mode, as its setup hooks left it.'''
    name: str
    check: str
    mode: str
    #: why it skipped (its recorded ``skip_reason``), or ``None``
    skip: Optional[str] = None
    #: why its setup failed, or ``None``
    failure: Optional[str] = None
    #: what the hooks decided, by name
    decided: dict = field(default_factory=dict)

    @property
    def runs(self):
        return self.skip is None and self.failure is None


def _system_configuration(partition_name, node):
    '''The project's configuration with ``partition_name``'s system holding
    that one partition, described as ``node``.'''
    system_name, _, part_name = partition_name.partition(':')
    module = util.import_module_from_file(str(CONFIG))
    site = copy.deepcopy(module.site_configuration)
    systems = [s for s in site['systems'] if s['name'] == system_name]
    if not systems:
        raise ReplayError(
            f'{partition_name}: no system {system_name!r} in the '
            f'configuration (systems: '
            f'{", ".join(s["name"] for s in site["systems"])})')

    system = systems[0]
    partitions = [p for p in system['partitions'] if p['name'] == part_name]
    if not partitions:
        raise ReplayError(
            f'{partition_name}: {system_name} has no partition {part_name!r} '
            f'({", ".join(p["name"] for p in system["partitions"])})')

    partition = partitions[0]
    partition['processor'] = node.info
    if partition_name == EMBEDDED_DEFAULT:
        # it measures the memory of the node it runs on
        extras = partition.setdefault('extras', {})
        extras.pop('memory_bytes', None)
        if node.memory_bytes:
            extras['memory_bytes'] = node.memory_bytes

    system['partitions'] = [partition]
    site['systems'] = [system]
    return site, system_name


def _mode_variables(site_config, mode):
    '''``{(check or None, variable): value}`` of the mode's ``-S``.'''
    options = site_config.get(f'modes/@{mode}/options') or []
    settings = {}
    for flag, value in zip(options, options[1:]):
        if flag != '-S':
            continue
        name, _, text = value.partition('=')
        check, _, variable = name.rpartition('.')
        settings[(check or None, variable)] = text

    return settings


def load_cases(node, partition_name=EMBEDDED_DEFAULT):
    '''ReFrame's test cases for ``partition_name`` described as ``node``,
    and the modes' ``-S`` settings: ``(cases, {mode: settings})``.'''
    site, system_name = _system_configuration(partition_name, node)
    site_config = config.load_config()
    site_config.update_config(site, '<hpc-acceptance topology>')
    site_config.select_subconfig(system_name)
    runtime.init_runtime(site_config)
    search = site_config.get('general/0/check_search_path') or [
        str(PROJECT_DIR / 'checks')]
    checks = RegressionCheckLoader(search, recurse=True).load_all()
    cases = [case for case in generate_testcases(checks)
             if isinstance(case.check, AcceptanceCheck)]
    return cases, {mode: _mode_variables(site_config, mode)
                   for mode in MODES}


def in_mode(check, mode):
    '''Whether ``--mode mode`` selects ``check``.'''
    if mode == 'nightly':
        return 'nightly' in check.tags and 'variant' not in check.tags

    return True


def decide(case, mode, settings, node):
    '''Run ``case``'s setup hooks as ``--mode mode`` sets it up on the
    node; the :class:`Decision`.'''
    check = copy.deepcopy(case.check)
    for (name, variable), value in settings.items():
        if name in (None, type(check).__name__) and hasattr(check, variable):
            setattr(check, variable, make_convertible(value))

    check._current_partition = case.partition
    check._current_environ = case.environ
    decision = Decision(check.display_name, type(check).__name__, mode)
    # A local partition's hooks probe the node they run on: here, the node
    # replayed, whose probe ran once.
    probe_text_here = node_state.probe_text_here
    node_state.probe_text_here = lambda env=None: node.probed
    try:
        for hook in type(check).pipeline_hooks().get('post_setup', []):
            if hook.__name__ not in NOT_RUN:
                hook(check)
        decision.decided = decided(check)
        decision.decided.update(peaks(check))
    except SkipTestError as err:
        decision.skip = check.skip_reason or str(err)
    except ReframeError as err:
        decision.failure = str(err)
    except Exception as err:
        # the check would crash at setup on the node: say so, with what
        decision.failure = f'{type(err).__name__}: {err}'
    finally:
        node_state.probe_text_here = probe_text_here

    return decision


def peaks(check):
    '''The peaks the check compares its figures with, as its own methods
    compute them from the partition's ``extras``; none where it declares
    none.'''
    found = {}
    if hasattr(check, 'peak_gflops'):
        found['peak_gflops'] = check.peak_gflops()

    declared = check.current_partition.extras.get(
        'peak_memory_bandwidth_gbs')
    if hasattr(check, 'peak_mbs'):
        found['peak_mbs'] = check.peak_mbs(declared) if declared else None

    return found


def _unquoted(text):
    try:
        return ' '.join(shlex.split(text))
    except ValueError:
        return text


#: Variables of a check that its setup decided, recorded where set.
_DECIDED = ('threads_per_core', 'num_tasks', 'num_tasks_per_node',
            'num_cpus_per_task', 'launcher_options', 'array_elements',
            'min_elements', 'problem_size', 'block_size', 'process_grid',
            'blocks_per_process', 'memory_fraction', 'npb_class',
            'expected_cpus', 'core_choice', 'levels_not_measured',
            'distance_classes', 'memory_kinds', 'allowed_view')


def decided(check):
    '''What ``check``'s setup hooks set: sizes, threads, places, ranks.'''
    found = {}
    for name in _DECIDED:
        value = getattr(check, name, None)
        if value not in (None, '', [], 0):
            found[name] = value

    omp = {name: _unquoted(check.env_vars[name])
           for name in ('OMP_NUM_THREADS', 'OMP_PLACES', 'OMP_PROC_BIND')
           if name in check.env_vars}
    if omp:
        found['openmp'] = omp

    if check.executable_opts:
        found['program_options'] = list(check.executable_opts)

    if check.extra_resources:
        found['resources'] = dict(check.extra_resources)

    return found
