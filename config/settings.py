'''ReFrame configuration of the acceptance suite: the file to pass with -C.

    reframe -C config/settings.py -c checks/ -r --mode nightly

Systems are read from ``config/systems/*.py``: each file defines
``system`` (one entry of ReFrame's ``systems``) and ``environments``.
``local.py``, the embedded default that matches any host, is tried last, so
a site's own file wins on its hosts. ``--system NAME`` picks one explicitly.
A site directory (``HPC_ACCEPTANCE_SITE_DIR``, see
:mod:`hpc_acceptance.core.site`) adds its systems before these, or is
layered over this file: ``-C config/settings.py -C <site>/config.py``.

Run-time state goes under ``var/`` of the checkout unless overridden:

=====================  =============================  ======================
what                   default                        override
=====================  =============================  ======================
stage and output dirs  ``var/stage``, ``var/output``  ``RFM_PREFIX``
perflogs               ``var/perflogs``               ``RFM_PERFLOG_DIR``
JSON run reports       ``var/reports``                ``RFM_REPORT_FILE``
JUnit report (latest)  ``var/reports/junit.xml``      ``RFM_REPORT_JUNIT``
results database       ``var/results.db``             ``RFM_SQLITE_DB_FILE``
reference files        ``reference/``                 ``RFM_REFERENCE_PREFIX``
=====================  =============================  ======================

(ReFrame 4.10.4's schema rejects ``general.reference_prefix`` in a
configuration file; the checks fall back to ``reference/`` themselves.)
'''

import os
from pathlib import Path

from reframe.core.exceptions import ConfigError

from hpc_acceptance.core import references, reframe_warnings, site, \
    system_files
from hpc_acceptance.core.export import handler as export_handler
from hpc_acceptance.npb import classes as npb_classes

# ReFrame's deprecation warnings read every frame's source file: 80 % of its
# CPU before the first check runs, paid by each node of a fleet night
# (hpc_acceptance/core/reframe_warnings.py)
reframe_warnings.install()

CONFIG_DIR = Path(__file__).resolve().parent
PROJECT_DIR = CONFIG_DIR.parent
VAR_DIR = PROJECT_DIR / 'var'

# ReFrame opens its debug log before it creates any directory.
VAR_DIR.mkdir(exist_ok=True)

#: The checkout's system files, one system each.
SYSTEMS_DIR = CONFIG_DIR / 'systems'

# The embedded default matches every host name, so it must come last.
_DEFAULT_SYSTEM_FILE = 'local.py'


def _system_files():
    files = sorted(p for p in SYSTEMS_DIR.glob('*.py')
                   if p.name != _DEFAULT_SYSTEM_FILE)
    return files + [SYSTEMS_DIR / _DEFAULT_SYSTEM_FILE]


def _max_jobs():
    '''``HPC_ACCEPTANCE_MAX_JOBS`` (``ci/acceptance.sh --max-jobs``): the
    most jobs ReFrame keeps submitted per scheduler partition, or
    ``None``. A fleet run makes a test per node and check; unbounded, 500
    nodes x 20 checks would flood the queue and hit Slurm's MaxSubmit.'''
    text = os.environ.get('HPC_ACCEPTANCE_MAX_JOBS', '')
    if not text:
        return None

    if not text.isdigit() or int(text) < 1:
        raise ConfigError(f'HPC_ACCEPTANCE_MAX_JOBS={text!r}: must be a '
                          f'whole number of jobs, 1 or more')

    return int(text)


_MAX_JOBS = _max_jobs()
_modules = [system_files.load(path) for path in _system_files()]
for _module in _modules:
    _module.system.setdefault('prefix', str(VAR_DIR))
    for _partition in _module.system['partitions']:
        # a local partition is one node: it runs one benchmark at a time
        if _MAX_JOBS and _partition['scheduler'] != 'local':
            _partition['max_jobs'] = _MAX_JOBS

# A site directory named by HPC_ACCEPTANCE_SITE_DIR: its systems come
# first, so that they win on their hosts (config/README.md, "Adding a site's
# system").
_SITE_DIR = site.named()
_site = site.configuration(_SITE_DIR) if _SITE_DIR else {}

# A malformed reference file stops ReFrame here, before anything runs, with
# the file, line and key at fault: bad YAML or shape, or a tolerance of the
# wrong sign. Each check checks its system's file against the partitions
# when it is set up, whichever configuration files define them.
try:
    references.check_files(references.search_dirs(
        os.environ.get('RFM_REFERENCE_PREFIX'), _SITE_DIR))
except references.ReferenceFileError as err:
    raise ConfigError(f'unusable reference file: {err}') from None

# The stored sessions a post-upgrade run is compared with: the median of the
# nightly runs of the last 30 days (sessions are tagged by the modes below).
_BASELINE = 'now-30d:now?suite_mode=="nightly"/median:/+result'

# A run without the ISA variants builds the in-tree programs for the native
# ISA alone: the other four builds were two thirds of a nightly's build time
# and ran nothing (ci/bench/README.md, "Suite cost").
_NATIVE_BUILDS_ONLY = ['-S', 'MemoryKernelsBuild.isas=native',
                       '-S', 'StreamInTreeBuild.isas=native']

# The acceptance set: one run of every check tagged nightly in the default
# variant (native ISA, Turbo and SMT as configured), results stored and
# reported as JSON and JUnit. A check that fails is run once more, and only
# a second failure fails the night: a figure outside its band once is
# noise far more often than a regression (reference/README.md, "Noise
# model").
_NIGHTLY = ['--tag=nightly', '--exclude-tag=variant', '--max-retries=1',
            '--session-extras=suite_mode=nightly', '--performance-report',
            *_NATIVE_BUILDS_ONLY]

# Every node of the partitions (ci/acceptance.sh --fleet): the nightly's
# single-node checks once on each idle node, through ReFrame's --distribute
# (--distribute=STATE after --mode for other node states), so that
# hpc-acceptance suspects can compare the nodes with each other. Checks that
# need several nodes (tag multinode) are left out: they run once, in a
# nightly with --tag=multinode.
_FLEET = _NIGHTLY + ['--distribute=idle', '--exclude-tag=multinode',
                     '--session-extras=fleet=yes']

# After firmware/kernel/compiler/MPI/BIOS changes: every check and variant
# (hpc-acceptance post-upgrade compares them with the --before runs), and
# HPL over ~80 % of the nodes' memory as a full acceptance run should
# (nightly: about a minute).
_POST_UPGRADE_SET = ['--session-extras=suite_mode=post-upgrade',
                     f'--performance-report={_BASELINE}']
_POST_UPGRADE = _POST_UPGRADE_SET + [
    '-S', 'HpccCheck.memory_fraction=0.8',
    '-S', 'HpccMultiNodeCheck.memory_fraction=0.8']

# The embedded default sizes HPL to 5 % of its memory in post-upgrade runs:
# on the 2-core, 24 GiB machine it is built for, 80 % (N near 50 000) is
# about half an hour of HPL alone, where 5 % (N near 12 700) is a minute of
# the whole HPCC; a node of a site's partition keeps 80 %.
_POST_UPGRADE_LOCAL = _POST_UPGRADE_SET + [
    '-S', 'HpccCheck.memory_fraction=0.05']

# The embedded default runs NPB at class W: seconds per benchmark on a small
# machine, where class C takes hours. (-S per check class: a bare
# npb_class=W warns for every check without that variable.)
_NPB_CLASS_W = [option for bench in npb_classes.BENCHMARKS
                for option in ('-S',
                               f'{npb_classes.check_name(bench)}.npb_class=W')]

site_configuration = {
    'systems': _site.get('systems', []) + [m.system for m in _modules],
    'environments': (_site.get('environments', []) +
                     [env for m in _modules for env in m.environments]),
    'modes': [
        {'name': 'nightly', 'options': _NIGHTLY},
        {'name': 'fleet', 'options': _FLEET},
        {'name': 'post-upgrade', 'options': _POST_UPGRADE},
        {'name': 'nightly', 'target_systems': ['local'],
         'options': _NIGHTLY + _NPB_CLASS_W},
        {'name': 'fleet', 'target_systems': ['local'],
         'options': _FLEET + _NPB_CLASS_W},
        {'name': 'post-upgrade', 'target_systems': ['local'],
         'options': _POST_UPGRADE_LOCAL + _NPB_CLASS_W},
    ],
    'storage': [
        {
            'enable': True,
            'sqlite_db_file': str(VAR_DIR / 'results.db'),
            # ReFrame sets this mode on the database it creates (default
            # 644): the results are the site's and its night account's
            # (hpc_acceptance.tools.common.file_modes)
            'sqlite_db_file_mode': '640',
        }
    ],
    'general': [
        {
            'check_search_path': [str(PROJECT_DIR / 'checks')],
            'check_search_recursive': True,
            'report_file': str(VAR_DIR / 'reports' /
                               'run-report-{sessionid}.json'),
            'report_junit': str(VAR_DIR / 'reports' / 'junit.xml'),
            'topology_prefix': str(VAR_DIR / 'topology'),
        },
        # On the embedded default a finished benchmark is seen by a
        # waitpid, not a scheduler query: look five times a second all
        # along. ReFrame's default slows to once every 10 s while a job
        # runs, and every benchmark of a night then ended up to seconds
        # before ReFrame noticed. A look costs ReFrame about 3 ms of CPU
        # (the debug record of the running test): 1.5 % of a core beside
        # the benchmark, for 0.1 s a job (ci/bench/README.md, "The suite's
        # own cost").
        {
            'poll_rate_min': 5,
            'target_systems': ['local'],
        },
    ] + _site.get('general', []),
    'logging': [
        {
            # The lowest level a handler below writes. ReFrame's default
            # (none) builds every record its loop makes, only for the
            # handlers to drop most: each record of a test reads all its
            # loggable variables, and ReFrame's deprecated alias 'variables'
            # walks the Python stack, 3-7 ms a record. The debug records
            # (polls, commands) were most of ReFrame's CPU a job, which is
            # serial in a fleet run: 'verbose' leaves them out
            # (ci/bench/README.md, "What a fleet night costs"); set this and
            # the file handler's level to 'debug' to troubleshoot ReFrame.
            'level': 'verbose',
            'handlers': [
                {
                    'type': 'stream',
                    'name': 'stdout',
                    'level': 'info',
                    'format': '%(message)s'
                },
                {
                    'type': 'file',
                    # a fleet night's node runs keep one each
                    # (HPC_ACCEPTANCE_REFRAME_LOG)
                    'name': (os.environ.get('HPC_ACCEPTANCE_REFRAME_LOG') or
                             str(VAR_DIR / 'reframe.log')),
                    'level': 'verbose',
                    'format': '[%(asctime)s] %(levelname)s: '
                              '%(check_info)s: %(message)s',
                    'append': False
                }
            ],
            'handlers_perflog': [
                {
                    'type': 'filelog',
                    'basedir': str(VAR_DIR / 'perflogs'),
                    'prefix': '%(check_system)s/%(check_partition)s',
                    'level': 'info',
                    'format': (
                        '%(check_job_completion_time)s|'
                        'reframe %(version)s|'
                        '%(check_info)s|'
                        'jobid=%(check_jobid)s|'
                        # the node the job ran on, as the job reported it
                        'node=%(check_node)s|'
                        'identity=%(check_identity)s|'
                        'dependency=%(check_dependency_source)s|'
                        'spack=%(check_spack_spec)s|'
                        'reference=%(check_reference_file)s|'
                        # where each MPI rank ran (network checks)
                        'ranks=%(check_rank_cpus)s|'
                        '%(check_perfvalues)s|'
                        '%(check_result)s'
                    ),
                    'format_perfvars': (
                        '%(check_perf_value)s|%(check_perf_unit)s|'
                        '%(check_perf_ref)s|%(check_perf_lower_thres)s|'
                        '%(check_perf_upper_thres)s|'
                    ),
                    'append': True
                },
                # every figure to the site's time-series store, where the
                # site's export.yaml turns it on (config/README.md,
                # "Figures in the site's monitoring")
                export_handler.CONFIG,
            ]
        }
    ],
}
