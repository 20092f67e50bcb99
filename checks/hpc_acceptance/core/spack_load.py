'''``spack load`` worked out once per run, not once per job.

Every job of a check whose binary comes from Spack used to start with
``eval "$(spack -e <env> load --sh <spec>)"``: a Spack process of 1.5 s or
more per job (Python's start-up, the environment, the database), which a
nightly of a few dozen jobs paid a minute for, and a fleet run on a shared
file system pays once per node and check, all nodes at once.

:func:`load_commands` asks Spack once per environment and spec, in the
ReFrame process, and gives the job script what ``spack load`` would have
done there, written relative to the job's own environment: a variable
Spack prepends to or appends to stays the job's own value with Spack's
part added (``PATH=<spack's>:"$PATH"``), so that what the job's
programming environment set (modules, variables) is kept. To tell Spack's
part from the inherited one, Spack is asked twice: once to learn which
variables it sets, once with each of them (but ``PATH``, which Spack needs
to start) set to a marker, so that the marker shows where the job's own
value goes. Where the output is anything else
(a ``PATH`` Spack did more than prepend to, a marker twice, a value that
does not parse), ``None`` is returned and the job loads with Spack itself,
as before.
'''

import functools
import os
import shlex
import subprocess

#: Prefix of the value a variable is given in Spack's second run.
MARKER = '/hpc-acceptance-job-value-of-'


@functools.lru_cache(maxsize=None)
def load_commands(env, spec):
    '''Shell commands with the effect of ``spack -e env load --sh spec``
    in the job's environment, or ``None`` (see the module documentation).
    Spack is asked once per run for each ``env`` and ``spec``.'''
    first = _spack_load(env, spec, os.environ)
    if first is None:
        return None

    marked = dict(os.environ)
    marked.update({name: MARKER + name for name in first if name != 'PATH'})
    second = _spack_load(env, spec, marked)
    if second is None or set(second) != set(first):
        return None

    commands = [f'# spack -e {env} load --sh {spec}, worked out when the '
                f'check was set up']
    inherited_path = os.environ.get('PATH', '')
    for name, value in sorted(second.items()):
        command = job_command(name, value, inherited_path)
        if command is None:
            return None

        commands.append(command)

    return tuple(commands)


def _spack_load(env, spec, environ):
    '''``{name: value or None (unset)}`` of Spack's ``load --sh``, or
    ``None`` if Spack failed or printed something else.'''
    try:
        done = subprocess.run(
            ['spack', '-e', env, 'load', '--sh', *shlex.split(spec)],
            capture_output=True, text=True, env=environ
        )
    except OSError:
        return None

    if done.returncode != 0:
        return None

    changes = {}
    for line in done.stdout.splitlines():
        if not line.strip():
            continue

        words = shlex.split(line.rstrip().rstrip(';'))
        if len(words) != 2 or words[0] not in ('export', 'unset'):
            return None

        if words[0] == 'unset':
            changes[words[1]] = None
            continue

        name, sep, value = words[1].partition('=')
        if not sep or not name.isidentifier():
            return None

        changes[name] = value

    return changes


def job_command(name, value, inherited_path):
    '''The job's command for Spack's ``value`` of ``name`` (``None``:
    unset), or ``None`` if it cannot be written relative to the job's own
    value.'''
    if value is None:
        return f'unset {name}'

    if name == 'PATH':
        suffix = os.pathsep + inherited_path
        if not inherited_path or not value.endswith(suffix):
            return None

        return f'export PATH={shlex.quote(value[:-len(suffix)])}:"$PATH"'

    parts = value.split(MARKER + name)
    if len(parts) == 1:
        return f'export {name}={shlex.quote(value)}'

    # The job's value twice, or alone (Spack prints only what it changed)
    if len(parts) != 2 or value == MARKER + name:
        return None

    before, after = parts
    if before and not before.endswith(os.pathsep):
        return None

    if after and not after.startswith(os.pathsep):
        return None

    # ${name:+...}: no empty element (the current directory, in a search
    # path) where the job has no value of its own.
    if before:
        own = f'"${{{name}:+{os.pathsep}${name}}}"'
        return f'export {name}={shlex.quote(before[:-1])}{own}' + (
            shlex.quote(after) if after else '')

    own = f'"${{{name}:+${name}{os.pathsep}}}"'
    return f'export {name}={own}{shlex.quote(after[1:])}'
