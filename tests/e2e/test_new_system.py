'''`hpc-acceptance new-system`: a cluster brought in from nothing.

The four-node Slurm cluster of network namespaces
(tests/helpers/slurm_cluster.py) is asked by ``hpc-acceptance new-system
testfleet --scheduler slurm``, with the tests' Spack from the offline kit
(tests/helpers/spack_ci.py) to find the compiler and MPI. It writes the system,
its Spack environment and its topology into a temporary site directory, never
into the checkout; the nightly memory, STREAM and inter-node network checks
then run on the new system and pass, three nights and ``propose-references
--write`` give the site a reference file, and the next night passes against it.
The same Spack installs the kernels and STREAM from the environment written.
'''

import contextlib
import os
import re
import shlex
import subprocess
import time

import pytest
import yaml
from reframe.utility import import_module_from_file
from reframe.utility.cpuinfo import cpuinfo

from conftest import (CLUSTER_NODES, ONE_TIMED_RUN, PROJECT_DIR,
                      run_new_system)
from helpers import doc_blocks, machine_lock, slurm_cluster
from helpers.acceptance_run import environment
from helpers.report_cases import case_of, results
from hpc_acceptance.stream import sizing
from hpc_acceptance.tools.references import unreferenced

NAME = 'testfleet'

#: One memory, one STREAM and one inter-node network check of the nightly
#: set, each as short as it goes; one job at a time, as the four nodes
#: share this machine's cores.
NIGHTLY = ['--system', NAME, '--mode', 'nightly', '--exec-policy=serial',
           '-n', 'MemoryDaxpyCheck.*%threads=single',
           '-n', 'StreamCheck.*%threads=single',
           '-n', 'NetworkSinglePairCheck.*pingpong.*one_per_node',
           *ONE_TIMED_RUN, '-S', 'StreamCheck.ntimes=3',
           '-S', 'NetworkSinglePairCheck.repeats=1']

#: The widest band: the four nodes share this machine's two cores and its
#: caches with each other and with other guests (test_reference_bring_up.py
#: says more); the test is about the procedure, not this machine's noise.
FLOOR = '1.0'


def adding_a_system(root):
    '''The commands of README.md's "Add your system", in order, for the
    system NAME and the site directory ``root``.'''
    return doc_blocks.commands(
        doc_blocks.block('README.md', 'Add your system').text,
        {'<name>': NAME, '<site>': str(root)})


def with_spack(record, env):
    return {**os.environ, **env, **record['env_vars'],
            'PATH': f"{record['spack_bin']}:{os.environ['PATH']}"}


@pytest.fixture(scope='module')
def brought_up(cluster, spack_ci, tmp_path_factory):
    '''The site directory new-system wrote for the cluster.'''
    base = tmp_path_factory.mktemp('new-system')
    root = base / 'site'
    # README.md's "Add your system", its first command as written
    [program, subcommand, *words] = adding_a_system(root)[0]
    assert (os.path.basename(program), subcommand) == ('hpc-acceptance',
                                                       'new-system')
    started = time.monotonic()
    done = run_new_system(*words, tmp_path=base,
                          env=with_spack(spack_ci['record'], cluster))
    print(f'new-system on the test cluster: '
          f'{time.monotonic() - started:.0f} s')
    assert done.returncode == 0, done.stdout[-4000:]
    return {'root': root, 'output': done.stdout}


def test_the_files_say_what_the_cluster_is(brought_up, cluster):
    root = brought_up['root']
    assert 'new-system: Spack concretizes the environment' in \
        brought_up['output']
    assert sorted(str(p.relative_to(root)) for p in root.rglob('*')
                  if p.is_file()) == [
        'config.py', f'spack-envs/{NAME}/spack.yaml', f'systems/{NAME}.py',
        f'topology/{NAME}-compute/processor.json']
    assert not [path for path in (
        PROJECT_DIR / 'config' / 'systems' / f'{NAME}.py',
        PROJECT_DIR / 'spack-envs' / NAME,
        PROJECT_DIR / 'reference' / f'{NAME}.yaml') if path.exists()]

    [compute] = import_module_from_file(
        str(root / 'systems' / f'{NAME}.py')).system['partitions']
    text = (root / 'systems' / f'{NAME}.py').read_text()
    real_memory = re.search(r'RealMemory=(\d+)', subprocess.run(
        ['scontrol', '-o', 'show', 'node', 'n1'],
        env={**os.environ, **cluster},
        capture_output=True, text=True).stdout)[1]
    # no accounting database here, PMIx is Slurm's default
    assert (compute['scheduler'], compute['launcher']) == ('squeue', 'srun')
    assert 'sacct: "Slurm accounting storage is disabled"' in text
    assert 'srun --mpi=list: ' in text and 'MpiDefault=pmix' in text
    assert compute['extras']['max_nodes'] == CLUSTER_NODES
    assert compute['extras']['memory_bytes'] == int(real_memory) * 2**20
    assert f'RealMemory={real_memory} MiB of n' in text

    # ReFrame's own description of a node, where ReFrame looks for it
    here = cpuinfo()
    processor = yaml.safe_load(
        (root / 'topology' / f'{NAME}-compute' / 'processor.json')
        .read_text())
    assert {k: processor[k] for k in ('arch', 'num_cpus', 'num_sockets')} \
        == {k: here[k] for k in ('arch', 'num_cpus', 'num_sockets')}

    env = yaml.safe_load((root / 'spack-envs' / NAME / 'spack.yaml')
                         .read_text())['spack']
    definitions = {k: v for d in env['definitions'] for k, v in d.items()}
    assert definitions['node_target'] == [f'target={here["arch"]}']
    [stream] = [s for s in definitions['per_isa'] if s.startswith('stream')]
    elements = int(re.search(r'stream_array_size=(\d+)', stream)[1])
    llc = sizing.last_level_cache_bytes(
        here, sizing.layout_cores(here, 'all_cores'))
    assert elements == sizing.min_array_elements(llc)
    gcc = subprocess.run(['gcc', '-dumpfullversion'], capture_output=True,
                         text=True).stdout.strip()
    assert env['packages']['gcc']['externals'][0]['spec'].startswith(
        f'gcc@{gcc}')
    assert env['packages']['mpi'] == {'require': ['openmpi']}
    assert env['develop']['hpc-acceptance-kernels']['path'] == str(
        PROJECT_DIR / 'src')


def test_the_docs_bring_the_system_up_and_it_passes_against_them(
        brought_up, cluster, spack_ci, cores_alone, tmp_path):
    '''README.md's "Add your system" after new-system, command by command
    as written: the Spack install, the bring-up nights (three, the one
    check of each family narrowed as NIGHTLY says), the noise floors from
    them, the references, and a night judged by them. The test only adds
    words after the doc's: the selection, its Spack's install options,
    three runs where the doc says five, the widest floor.'''
    record = spack_ci['record']
    env = dict(environment(tmp_path), **cluster)
    narrowed = [word for word in NIGHTLY if word not in (
        '--system', NAME, '--mode', 'nightly')]

    def install(words):
        return [f"{record['spack_bin']}/spack", *words[1:],
                *record['install_opts'], 'hpc-acceptance-kernels', 'stream']

    session = doc_blocks.Session(env, adapt={
        'spack': install,
        'acceptance.sh': lambda words: [*words, *narrowed],
        'hpc-acceptance propose-references': lambda words: [
            *words, '--min-runs', '3',
            *([] if '--calibrate-noise' in words else ['--floor', FLOOR])]})
    for words in adding_a_system(brought_up['root'])[1:]:
        if '--calibrate-noise' in words:
            # the four nodes share this machine's two cores with each other
            # and other guests, one timed run per figure: the floors are
            # written, or refused as not quiet, as the command says
            with contextlib.suppress(doc_blocks.DocBlockError):
                session.run(words)
            calibrated = session.done[-1][1]
            wrote = (calibrated.returncode == 0 and
                     'wrote ' in calibrated.stdout)
            refused = (calibrated.returncode == 1 and
                       'these runs were not quiet' in calibrated.stdout)
            assert wrote or refused, calibrated.stdout[-3000:]
            continue
        if os.path.basename(words[0]) == 'spack':
            session.env = with_spack(record, session.env)
            # Spack's concretize reads no figure: the other worker's tests
            # run beside it (the CI subset's lock taken inside, so that
            # the cores are taken back holding nothing else)
            started = time.monotonic()
            with cores_alone.shared(), machine_lock.held('spack-ci'):
                session.run(words)
            print(f'{shlex.join(words)}: {time.monotonic() - started:.0f} s')
            continue
        bring_up = unreferenced.VARIABLE in session.env
        for _ in range(3 if words[0] == 'ci/acceptance.sh' and bring_up
                       else 1):
            done = session.run(words)
        if words[0] == 'ci/acceptance.sh' and bring_up:
            assert unreferenced.NOT_JUDGED in done.stdout, done.stdout[-3000:]
            found = results(tmp_path / 'report.json')
            assert {case['result'] for case in found.values()} == {'pass'}
            # each rank's own report of where it ran: two nodes
            pair = case_of(found, 'NetworkSinglePairCheck')
            assert len(set(re.findall(r'r\d+=([^:\s]+):',
                                      pair['rank_cpus']))) == 2, \
                pair['rank_cpus']
            assert {case['system'] for case in found.values()} == {NAME}

    references = brought_up['root'] / 'reference' / f'{NAME}.yaml'
    assert {'MemoryDaxpyCheck', 'StreamCheck', 'NetworkSinglePairCheck'} <= \
        set(yaml.safe_load(references.read_text()))
    # the last command, the night judged by them
    assert session.done[-1][0][0] == 'ci/acceptance.sh'
    assert unreferenced.NOT_JUDGED not in session.done[-1][1].stdout
    found = results(tmp_path / 'report.json')
    assert {case['reference_file'] for case in found.values()} == {
        str(references)}
    assert {case['result'] for case in found.values()} == {'pass'}


def test_the_environment_installs_the_kernels_and_stream(brought_up,
                                                         spack_ci):
    record = spack_ci['record']
    env_dir = str(brought_up['root'] / 'spack-envs' / NAME)
    with machine_lock.held('spack-ci'):
        done = subprocess.run(
            [f"{record['spack_bin']}/spack", '-e', env_dir, 'install',
             *record['install_opts'], 'hpc-acceptance-kernels', 'stream'],
            env=with_spack(record, {}), text=True, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=1800)

    assert done.returncode == 0, done.stdout[-3000:]
    installed = subprocess.run(
        [f"{record['spack_bin']}/spack", '-e', env_dir, 'find', '--format',
         '{name} {arch.target}'], env=with_spack(record, {}), text=True,
        capture_output=True, check=True).stdout.split('\n')
    targets = {line.split()[1] for line in installed
               if line.startswith('stream ')}
    # the nodes' own microarchitecture and every ISA variant's
    assert cpuinfo()['arch'] in targets and 'x86_64_v3' in targets
    assert {line.split()[1] for line in installed
            if line.startswith('hpc-acceptance-kernels ')} == targets


def test_it_refuses_to_replace_the_files(brought_up, cluster, tmp_path):
    done = run_new_system(NAME, '--site-dir', str(brought_up['root']),
                          env={**os.environ, **cluster}, tmp_path=tmp_path)
    assert done.returncode == 1
    assert (f'{brought_up["root"]}/systems/{NAME}.py, '
            f'{brought_up["root"]}/spack-envs/{NAME}/spack.yaml already '
            f'exist: pass --force') in done.stdout


def test_an_unknown_partition_is_named(cluster, tmp_path):
    done = run_new_system(NAME, '--partition', 'gpu', '--site-dir',
                          str(tmp_path / 'site'), tmp_path=tmp_path,
                          env={**os.environ, **cluster})
    assert done.returncode == 1
    assert ('no partition gpu in Slurm (scontrol show partition: compute '
            '(default)): pass --partition with one of these') in done.stdout


def test_a_probe_that_reaches_no_node_in_time_is_cancelled(
        cluster, spack_ci, tmp_path):
    env = {**os.environ, **cluster}
    nodes = ','.join(slurm_cluster.node_names(CLUSTER_NODES))
    subprocess.run(['scontrol', 'update', f'nodename={nodes}', 'state=drain',
                    'reason=drained by the test'], env=env, check=True)
    try:
        done = run_new_system(NAME, '--probe-timeout', '10', '--site-dir',
                              str(tmp_path / 'site'),
                              env=with_spack(spack_ci['record'], cluster),
                              tmp_path=tmp_path)
        queued = subprocess.run(['squeue', '-h'], env=env,
                                capture_output=True, text=True).stdout
    finally:
        subprocess.run(['scontrol', 'update', f'nodename={nodes}',
                        'state=resume'], env=env, check=True)

    assert done.returncode == 1
    assert re.search(r'the probe job \d+ did not finish on a node of '
                     r'partition compute within 10 s \(Slurm says: '
                     r'PENDING, ', done.stdout), done.stdout
    assert 'nothing written' in done.stdout
    assert not (tmp_path / 'site').exists()
    assert not queued.strip()
