'''The Spack environments in spack-envs/, one per configured system.

Checked without Spack: each ``spack.yaml`` has the structure Spack expects,
the shared settings and the project's package repository are where the
environments say, and every spec a check of the system loads (found by a
dry run of the real checks with a stand-in ``spack`` on PATH) is provided by
exactly one root of the environment, as ``spack load`` needs.

With the offline Spack kit and HPC_ACCEPTANCE_CONCRETIZE_TESTS=1, each
environment is also concretized for real by the tests' Spack.
'''

import ast
import importlib.util
import itertools
import os
import platform
import re
import shutil
import subprocess

from conftest import DATA_DIR, PROJECT_DIR
from helpers.spack_ci import SETUP_EXTERNALS
import pytest
import yaml

from hpc_acceptance.core import isa
from hpc_acceptance.stream import sizing as stream_sizing

ENVS_DIR = PROJECT_DIR / 'spack-envs'
COMMON = ENVS_DIR / 'common.yaml'
REPO = ENVS_DIR / 'repo' / 'spack_repo' / 'hpc_acceptance'
KERNELS_PACKAGE = REPO / 'packages' / 'hpc_acceptance_kernels' / 'package.py'
SPACK_DATA = DATA_DIR / 'spack'

#: Top-level keys of an environment's ``spack:`` section that these files
#: may use (a subset of Spack's environment schema).
ENV_KEYS = {'include', 'specs', 'definitions', 'develop', 'packages',
            'concretizer', 'config', 'repos', 'mirrors', 'view'}
#: Sections of the shared include (Spack configuration sections).
COMMON_KEYS = {'repos', 'config', 'definitions', 'concretizer', 'packages'}
#: The only ``when:`` of a definition here, and what it means.
X86_ONLY = "arch.satisfies('target=x86_64:')"


def load_yaml(path):
    with open(path) as fp:
        return yaml.safe_load(fp)


def configured_systems():
    '''``{system name: system entry}`` of config/systems/*.py.'''
    systems = {}
    for path in sorted((PROJECT_DIR / 'config' / 'systems').glob('*.py')):
        spec = importlib.util.spec_from_file_location(
            f'test_spack_envs_{path.stem}', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        systems[module.system['name']] = module.system

    return systems


SYSTEMS = configured_systems()


def environment_dirs():
    return sorted(p.parent.name for p in ENVS_DIR.glob('*/spack.yaml'))


# -- a little of Spack's spec syntax: enough for the specs used here --------

_SPEC_TOKEN = re.compile(
    r'\s*(?:@(?P<version>[^\s+~%^]+)'
    r'|(?P<sign>[+~])(?P<flag>[a-z0-9_-]+)'
    r'|(?P<key>[a-z0-9_-]+):?=(?:\'(?P<quoted>[^\']*)\''
    r'|(?P<values>[^\s+~%^\']+)))'
)


def parse_spec(text):
    '''``(name, version, {variant: bool or frozenset})`` of a simple spec;
    ``target=`` is a variant here.'''
    match = re.match(r'\s*(?P<name>[a-z0-9][a-z0-9_-]*)', text)
    if not match:
        raise ValueError(f'no package name in spec {text!r}')

    name, version, variants = match['name'], None, {}
    pos = match.end()
    while text[pos:].strip():
        token = _SPEC_TOKEN.match(text, pos)
        if not token:
            raise ValueError(f'unsupported spec syntax at {text[pos:]!r} '
                             f'in {text!r}')

        if token['version']:
            version = token['version']
        elif token['sign']:
            variants[token['flag']] = token['sign'] == '+'
        else:
            values = token['quoted'] or token['values']
            variants[token['key']] = frozenset(values.split(','))

        pos = token.end()

    return name, version, variants


def satisfies(root, wanted):
    '''Whether the abstract ``root`` spec provides ``wanted`` as Spack
    matches them: same package, every variant of ``wanted`` set alike
    (multi-valued ones a subset), and its version if it names one.'''
    root_name, root_version, root_variants = parse_spec(root)
    name, version, variants = parse_spec(wanted)
    if name != root_name or (version and version != root_version):
        return False

    for key, value in variants.items():
        have = root_variants.get(key)
        if isinstance(value, bool):
            if have is not value:
                return False
        elif not isinstance(have, frozenset) or not value <= have:
            return False

    return True


def definitions(*configs):
    '''Spack's ``definitions`` of the given ``spack:`` sections, in order;
    definitions of one name add up.'''
    defined = {}
    for config in configs:
        for entry in config.get('definitions', []):
            when = entry.get('when')
            if when is not None:
                assert when == X86_ONLY, f'unsupported when: {when}'
                if platform.machine() != 'x86_64':
                    continue

            [(name, items)] = [(k, v) for k, v in entry.items()
                               if k != 'when']
            defined.setdefault(name, []).extend(items)

    return defined


def expand(items, defined):
    out = []
    for item in items:
        if isinstance(item, str) and item.startswith('$'):
            out.extend(defined[item[1:]])
        else:
            out.append(item)

    return out


def root_specs(env_name):
    '''The root specs of an environment, definitions and matrices
    expanded.'''
    env = load_yaml(ENVS_DIR / env_name / 'spack.yaml')['spack']
    defined = definitions(load_yaml(COMMON), env)
    roots = []
    for entry in expand(env['specs'], defined):
        if isinstance(entry, str):
            roots.append(entry)
            continue

        assert set(entry) == {'matrix'}, f'unsupported spec entry {entry}'
        rows = [expand(row, defined) for row in entry['matrix']]
        roots.extend(' '.join(combo) for combo in itertools.product(*rows))

    return roots


# -- the files ---------------------------------------------------------------

def test_every_configured_system_has_an_environment():
    assert sorted(SYSTEMS) == environment_dirs()


def test_partitions_name_their_system_environment():
    named = 0
    for name, system in SYSTEMS.items():
        for part in system['partitions']:
            env = part.get('extras', {}).get('spack_env')
            if env is not None:
                assert env == f'spack-envs/{name}', (name, part['name'])
                named += 1

    assert named, 'no partition names a Spack environment'


@pytest.mark.parametrize('env_name', environment_dirs())
def test_environment_has_the_structure_spack_expects(env_name):
    data = load_yaml(ENVS_DIR / env_name / 'spack.yaml')
    assert list(data) == ['spack']
    env = data['spack']
    assert set(env) <= ENV_KEYS, set(env) - ENV_KEYS
    assert env['include'] == ['../common.yaml', SETUP_EXTERNALS]
    assert env['view'] is False
    for entry in env['specs']:
        assert isinstance(entry, (str, dict)), entry
        if isinstance(entry, dict):
            assert all(isinstance(row, list) for row in entry['matrix'])

    for root in root_specs(env_name):
        parse_spec(root)

    packages = env.get('packages', {})
    for name, settings in packages.items():
        for external in settings.get('externals', []):
            assert set(external) <= {'spec', 'prefix', 'modules',
                                     'extra_attributes'}
            assert parse_spec(external['spec'])[0] == name
            assert parse_spec(external['spec'])[1], \
                f'{name}: an external needs its version'
            assert 'prefix' in external or 'modules' in external


@pytest.mark.parametrize('env_name', environment_dirs())
def test_kernels_are_built_from_this_checkout(env_name):
    env_dir = ENVS_DIR / env_name
    develop = load_yaml(env_dir / 'spack.yaml')['spack']['develop']
    assert develop == {'hpc-acceptance-kernels': {
        'spec': 'hpc-acceptance-kernels@=develop', 'path': '../../src'}}
    assert (env_dir / '../../src').resolve() == PROJECT_DIR / 'src'
    assert any(parse_spec(root)[0] == 'hpc-acceptance-kernels'
               for root in root_specs(env_name))


def test_shared_settings_point_at_the_project_repository():
    common = load_yaml(COMMON)
    assert set(common) <= COMMON_KEYS
    # $env is the environment's directory, one level below spack-envs/
    repo = common['repos']['hpc_acceptance'].replace('$env',
                                                     str(ENVS_DIR / 'x'))
    assert os.path.realpath(repo) == str(REPO)
    assert load_yaml(REPO / 'repo.yaml')['repo']['namespace'] == \
        'hpc_acceptance'
    # The link to a develop build stage is relative to src/: into
    # spack-envs/, where .gitignore leaves it out.
    link = common['config']['develop_stage_link']
    assert (PROJECT_DIR / 'src' / link).parent.resolve() == ENVS_DIR
    assert '/.build-*' in (ENVS_DIR / '.gitignore').read_text().split()


def test_isa_targets_are_the_checks_isa_variants():
    defined = definitions(load_yaml(COMMON))
    if platform.machine() == 'x86_64':
        assert defined['isa_targets'] == [
            f'target={t}' for t in isa.TARGETS.values()]


def test_kernels_package_builds_families_that_install_with_prefix():
    tree = ast.parse(KERNELS_PACKAGE.read_text())
    [families] = [ast.literal_eval(node.value) for node in tree.body
                  if isinstance(node, ast.Assign) and
                  node.targets[0].id == 'FAMILIES']
    assert families
    for family in families:
        makefile = (PROJECT_DIR / 'src' / family / 'Makefile').read_text()
        assert re.search(r'^install:', makefile, re.M), family
        assert '$(PREFIX)/bin' in makefile, family


@pytest.mark.parametrize('system', sorted(SYSTEMS))
def test_stream_arrays_follow_streams_rule_on_the_system(system):
    # McCalpin's array size is compiled in: the STREAM check fails a binary
    # whose arrays are below 4 x the last-level caches in use.
    sizes = {int(min(variants['stream_array_size']))
             for name, _, variants in map(parse_spec, root_specs(system))
             if name == 'stream'}
    [size] = sizes
    for part in SYSTEMS[system]['partitions']:
        if 'compute' not in part.get('features', []):
            continue

        info = part['processor']
        for layout in stream_sizing.LAYOUTS:
            cores = stream_sizing.layout_cores(info, layout)
            llc = stream_sizing.last_level_cache_bytes(info, cores)
            assert size >= stream_sizing.min_array_elements(llc), \
                (part['name'], layout, llc)

        assert not stream_sizing.memory_problem(
            size, part['extras']['memory_bytes'])


# -- what the checks load ----------------------------------------------------

@pytest.fixture
def spack_stand_in(tmp_path):
    '''PATH with a stand-in spack whose environments have every package
    installed, in one prefix that has every NPB binary.'''
    bindir = tmp_path / 'fake-bin'
    bindir.mkdir()
    shutil.copy(SPACK_DATA / 'fake_spack.sh', bindir / 'spack')
    prefix = tmp_path / 'installed'
    (prefix / 'bin').mkdir(parents=True)
    for bench, cls in itertools.product('bt cg ep ft is lu mg sp'.split(),
                                        'SWABCDEF'):
        (prefix / 'bin' / f'{bench}.{cls}.x').touch()

    return {'PATH': f'{bindir}{os.pathsep}{os.environ["PATH"]}',
            'FAKE_SPACK_LOG': str(tmp_path / 'spack-calls.log'),
            'FAKE_SPACK_PREFIX': str(prefix),
            'FAKE_SPACK_FIND': str(prefix)}


def loaded_specs(stage_dir):
    '''``{(environment, spec): [job scripts]}`` of ``spack load`` lines.'''
    loads = {}
    for script in stage_dir.rglob('rfm_job.sh'):
        for env, spec in re.findall(r'spack -e (\S+) load --sh ([^)"]+)\)"',
                                    script.read_text()):
            loads.setdefault((env, spec.strip()), []).append(script)

    return loads


@pytest.mark.parametrize('system', sorted(SYSTEMS))
def test_environment_provides_what_the_checks_load(system, run_reframe,
                                                   tmp_path, spack_stand_in):
    env_dir = str(ENVS_DIR / system)
    # The embedded default names no environment by default: give it its own.
    overlay = (['-C', str(SPACK_DATA / 'local_with_spack_env.py')]
               if system == 'local' else [])
    # Every check and ISA variant; the Turbo and SMT variants load what the
    # default variant loads.
    done = run_reframe(*overlay, '--system', system, '-c', 'checks/',
                       '-E', "turbo == 'as-configured' and "
                             "smt == 'as-configured'",
                       '--dry-run', env=dict(
                           spack_stand_in,
                           HPC_ACCEPTANCE_TEST_SPACK_ENV=env_dir))
    assert done.returncode == 0, done.stdout[-3000:]

    loads = loaded_specs(tmp_path / 'prefix' / 'stage' / system)
    assert {spec.split()[0] for _, spec in loads} >= {
        'hpc-acceptance-kernels'}, 'the memory checks load nothing'
    # A root without target= is built for the node that builds it: the
    # fixture builds on the partition, so that is the partition's arch.
    [arch] = {part['processor']['arch']
              for part in SYSTEMS[system]['partitions']
              if 'compute' in part.get('features', [])}
    roots = [root if 'target' in parse_spec(root)[2] else
             f'{root} target={arch}' for root in root_specs(system)]
    problems = []
    for (env, spec), scripts in sorted(loads.items()):
        if env != env_dir:
            problems.append(f'{spec}: loaded from {env}, not {env_dir}')
            continue

        # two roots that read alike once the native one has the
        # partition's target (a host archspec names x86_64_v4 has its
        # native and its AVX-512 roots the same) are one spec to Spack
        matching = sorted({root for root in roots if satisfies(root, spec)})
        if len(matching) != 1:
            problems.append(
                f'{spec!r} (e.g. {scripts[0].parent.name}) matches '
                f'{len(matching)} roots of spack-envs/{system}/spack.yaml'
                f'{": " + "; ".join(matching) if matching else ""}: '
                f'spack load needs exactly one'
            )

    assert not problems, '\n'.join(problems)


# -- with Spack --------------------------------------------------------------

@pytest.mark.skipif(not os.environ.get('HPC_ACCEPTANCE_CONCRETIZE_TESTS'),
                    reason='about 3 minutes per environment, more than '
                           'CI\'s 45-minute budget leaves: set '
                           'HPC_ACCEPTANCE_CONCRETIZE_TESTS=1')
@pytest.mark.parametrize('env_name', environment_dirs())
def test_spack_concretizes_the_environment(env_name, spack_ci, tmp_path):
    '''With the real Spack of the tests (tests/helpers/spack_ci.py: the offline
    kit's, with this machine's compilers, MPI and BLAS as externals).'''
    # A copy beside a link to src/: the checkout stays clean, and the
    # environment works from another location.
    shutil.copytree(ENVS_DIR, tmp_path / 'spack-envs')
    (tmp_path / 'src').symlink_to(PROJECT_DIR / 'src')
    env_dir = tmp_path / 'spack-envs' / env_name
    record = spack_ci['record']
    done = subprocess.run([f"{record['spack_bin']}/spack", '-e', str(env_dir),
                           'concretize'],
                          env={**os.environ, **record['env_vars']},
                          text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r'Concretized \d+ specs', done.stdout), done.stdout
    lock = (env_dir / 'spack.lock').read_text()
    for root in root_specs(env_name):
        assert parse_spec(root)[0] in lock
