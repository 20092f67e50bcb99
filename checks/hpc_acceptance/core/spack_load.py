'''``spack load`` worked out once per run, not once per job.

Every job of a check whose binary comes from Spack used to start with
``eval "$(spack -e <env> load --sh <spec>)"``: a Spack process of 1.5 s or
more per job (Python's start-up, the environment, the database), which a
nightly of a few dozen jobs paid a minute for, and a fleet run on a shared
file system pays once per node and check, all nodes at once.

:func:`load_commands` asks Spack once per environment and spec, in the
ReFrame process, and gives the job script what ``spack load`` would do in
the job, written relative to the job's own environment: a variable Spack
prepends to or appends to stays the job's own value with Spack's part
added (``PATH=<spack's>"${PATH:+:$PATH}"``), so that what the job's
programming environment set (modules, variables) is kept; a variable Spack
sets or unsets is set or unset whatever the job had.

``spack load --sh`` itself cannot tell this: it prints only what differs
from the calling process, so a variable it sets to the value the ReFrame
process already has, or unsets where that process has none, is missing
from its output, and a job whose modules set it kept their value. Spack is
therefore asked through its own Python
(:mod:`hpc_acceptance.core.spack_load_every_variable`): its ``load``
command, printing every variable the load touches, each computed from a
marker, so that the marker shows where the job's own value goes. Where
that cannot be had (Spack fails, a Spack whose ``load`` works otherwise, a
modification other than set, unset, prepend and append) or the output is
anything else (a marker twice, a value that does not parse), ``None`` is
returned and the job loads with Spack itself.
'''

import functools
import os
import shlex
import subprocess

#: Prefix of the value each variable the load touches has when Spack works
#: out its new value: where it is in that value, the job's own goes.
MARKER = '/hpc-acceptance-job-value-of-'

#: Spack's ``load`` printing every variable it touches, run by Spack's
#: Python.
EVERY_VARIABLE_SCRIPT = os.path.join(os.path.dirname(__file__),
                                     'spack_load_every_variable.py')


@functools.lru_cache(maxsize=None)
def load_commands(env, spec):
    '''Shell commands with the effect of ``spack -e env load --sh spec``
    in the job's environment, or ``None`` (see the module documentation).
    Spack is asked once per run for each ``env`` and ``spec``.'''
    changes = _every_variable(env, spec)
    if changes is None:
        return None

    commands = [f'# spack -e {env} load --sh {spec}, worked out when the '
                f'check was set up']
    for name, value in sorted(changes.items()):
        command = job_command(name, value)
        if command is None:
            return None

        commands.append(command)

    return tuple(commands)


def _every_variable(env, spec):
    '''``{name: value or None (unset)}`` of every variable ``spack load``
    touches, each computed from :data:`MARKER` and its name, or ``None``
    if Spack failed or printed something else.'''
    try:
        done = subprocess.run(
            ['spack', '-e', env, 'python', EVERY_VARIABLE_SCRIPT, MARKER,
             *shlex.split(spec)],
            capture_output=True, text=True
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


def job_command(name, value):
    '''The job's command for Spack's ``value`` of ``name`` (``None``:
    unset), or ``None`` if it cannot be written relative to the job's own
    value.'''
    if value is None:
        return f'unset {name}'

    parts = value.split(MARKER + name)
    if len(parts) == 1:
        return f'export {name}={shlex.quote(value)}'

    # The job's value twice, or alone (the load left it as it was, which
    # none of the modifications written for the job does)
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
