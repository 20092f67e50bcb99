'''How the Turbo variants set Turbo on a partition, verify it, and leave the
node as they found it.

A partition says how in ``extras.turbo_control``:

- ``'slurm'``: Slurm's ``--cpu-freq`` (``High`` for on, ``HighM1`` for
  off). Slurm sets the clock of the CPUs of each ``srun`` step and puts it
  back when the step ends; it moves no Turbo switch (``intel_pstate``'s
  ``no_turbo``, cpufreq's ``boost``), so the switch says nothing. The state
  is verified by the clock instead: the core clock measured before and after
  the benchmark, in a one-task ``srun`` step (the batch script itself runs
  at the node's own clock unless ``LaunchParameters=batch_step_set_cpu_freq``),
  against the nominal clock. Turbo is off when no measurement exceeds the
  nominal clock by more than :data:`MARGIN`, on when one does.
- ``{'on': [commands], 'off': [commands]}``: shell commands run in the job,
  verified by the switch. The job first records the state it found, and
  when it ends, however it ends (a failed benchmark, Slurm's time limit or
  ``scancel``: an ``EXIT`` trap), it runs the other state's commands to put
  that state back.

The nominal clock is the partition's ``extras.nominal_clock_ghz`` where it
declares one (the site's statement about its nodes), else what the node's
cpufreq driver states (``node_state.sh``: ``base_frequency``, or
acpi-cpufreq's highest frequency).
'''

import os
import shlex

from reframe.core.exceptions import ReframeError

from hpc_acceptance.core import node_state

#: How far above the nominal clock a measured clock must be to count as
#: Turbo: beyond the probe's own error, and below any Turbo range (server
#: CPUs boost their single-core clock by 20 % or more).
MARGIN = 0.05

#: Slurm options of the step the clock probe runs in, under --cpu-freq.
SLURM_STEP = 'srun --ntasks=1 --nodes=1 --ntasks-per-node=1'

#: The probe's output before the Turbo commands ran, and after the job put
#: the node back (files in the stage directory).
BEFORE = 'turbo_before.txt'
RESTORED = 'turbo_restored.txt'

_STATES = ('on', 'off')


def control_of(partition):
    '''The partition's ``extras.turbo_control``: ``'slurm'``, ``{'on':
    [...], 'off': [...]}`` or ``None``.

    :raises ReframeError: for any other value, naming the partition and
        the key.
    '''
    control = partition.extras.get('turbo_control')
    if control is None or control == 'slurm':
        return control

    if (isinstance(control, dict) and set(control) == set(_STATES) and
            all(isinstance(cmds, list) and cmds and
                all(isinstance(c, str) for c in cmds)
                for cmds in control.values())):
        return control

    raise ReframeError(
        f'{partition.fullname}: extras.turbo_control needs commands for both '
        f"'on' and 'off' (the other state's commands put the node back "
        f"after the job), as {{'on': [commands], 'off': [commands]}}, or "
        f"'slurm'; "
        f'found {control!r}'
    )


def setup_skip(asked, control, partition, state=None):
    '''Why Turbo ``asked`` can be neither set nor confirmed on
    ``partition`` with the control ``control`` (:func:`control_of`), or
    ``None``. ``state`` is the node's Turbo state
    (:class:`~hpc_acceptance.core.node_state.State`) on a partition with
    the local scheduler, whose node is this host, and ``None`` elsewhere.'''
    if state is None:
        if control is None:
            return (f'turbo={asked}: {partition} declares no turbo control '
                    f'(extras.turbo_control): the state can be neither set '
                    f'nor confirmed')
        return None

    if state.value == 'unknown':
        return (f'turbo={asked}: {state.detail}: the state can be neither '
                f'set nor confirmed')

    if control is None and state.value != asked:
        return (f'turbo={asked}: turbo is {state.value} on {partition} '
                f'({state.detail}) and the partition declares no way to '
                f'change it (extras.turbo_control)')

    return None


def command_lines(control, asked, probe):
    '''Job-script lines that switch Turbo ``asked`` with the partition's
    commands, where the node's state can be read, and put the state found
    back when the job ends. ``probe`` is the path of ``node_state.sh``.'''
    back = 'off' if asked == 'on' else 'on'
    restore = '; '.join(control[back] + [f'sh {probe} > {RESTORED}'])
    return [
        f'sh {probe} > {BEFORE}',
        f"turbo_before=$(awk '$1 == \"turbo\" {{print $2}}' {BEFORE})",
        f'if [ "$turbo_before" = {back} ]; then '
        f'trap {shlex.quote(restore)} EXIT; fi',
        f'if [ "$turbo_before" = on ] || [ "$turbo_before" = off ]; then '
        f'{"; ".join(control[asked])}; fi',
    ]


def nominal_clock(extras, probed):
    '''``(GHz, where from)`` of the nominal clock, or ``(None, why
    not)``; ``probed`` is the node's :class:`node_state.Nominal`.

    :raises ReframeError: for a declared value that is not a positive
        number of GHz.
    '''
    declared = extras.get('nominal_clock_ghz')
    if declared is not None:
        if (isinstance(declared, bool) or
                not isinstance(declared, (int, float)) or declared <= 0):
            raise ReframeError(f'extras.nominal_clock_ghz must be the '
                               f'nodes\' base clock in GHz, not {declared!r}')

        return float(declared), 'extras.nominal_clock_ghz'

    if probed.ghz:
        return probed.ghz, probed.detail

    return None, (f'the node gives none ({probed.detail}) and the partition '
                  f'declares none')


def verdict(asked, extras, probed, clocks, stagedir):
    '''``(skip reason or None, problems)`` of the job in ``stagedir`` that
    asked for Turbo ``asked`` on a partition with ``extras``: ``probed`` is
    the output of ``node_state.sh`` in the job, ``clocks`` the core clocks
    (GHz) measured before and after the benchmark.'''
    if extras.get('turbo_control') == 'slurm':
        if len(clocks) < 2:
            return None, []  # the clock probe's own problems say why

        nominal, source = nominal_clock(extras,
                                        node_state.nominal_clock(probed))
        if nominal is None:
            return _unconfirmed(asked, clocks, source), []

        return None, _clock_problems(asked, clocks, nominal, source)

    state = node_state.parse(probed)['turbo']
    # On a remote partition this is the first look at the node.
    if state.value == 'unknown':
        return (f'turbo={asked}: the node reports {state.detail}: the state '
                f'could be neither set nor confirmed'), []

    found = [] if state.value == asked else [
        f'asked for turbo {asked}, the node reports {state.value} '
        f'({state.detail}): the partition\'s turbo control did not take '
        f'effect']
    return None, found + restore_problems(stagedir, asked)


def _clock_problems(asked, clocks, nominal, source):
    '''What says that a node whose core measured ``clocks`` (GHz) did not
    run with Turbo ``asked``, against the ``nominal`` clock read from
    ``source``.'''
    peak = max(clocks)
    turbo = peak > nominal * (1 + MARGIN)
    if asked == 'off' and turbo:
        return [f'asked for turbo off, the core ran at {peak:.2f} GHz, above '
                f'the nominal {nominal:.2f} GHz ({source}): Slurm\'s '
                f'--cpu-freq did not cap the clock']

    if asked == 'on' and not turbo:
        return [f'asked for turbo on, the core ran at {peak:.2f} GHz, not '
                f'above the nominal {nominal:.2f} GHz ({source}) by '
                f'{MARGIN:.0%}: no Turbo range was reached (Slurm\'s '
                f'--cpu-freq=High, or a power cap)']

    return []


def _unconfirmed(asked, clocks, why):
    '''The skip reason of a Slurm-set state that nothing can confirm.'''
    return (f'turbo={asked}: Slurm set the clock (--cpu-freq), which no '
            f'Turbo switch shows, and the clock measured ({max(clocks):.2f} '
            f'GHz) has no nominal clock to be compared with: {why}: set '
            f'extras.nominal_clock_ghz to the nodes\' base clock')


def restore_problems(stagedir, asked):
    '''Whether the job in ``stagedir`` put the node back in the Turbo
    state it found, when it had to.'''
    before = _turbo(os.path.join(stagedir, BEFORE))
    if before not in _STATES or before == asked:
        return []

    after = _turbo(os.path.join(stagedir, RESTORED))
    if after is None:
        return [f'the node was not put back: Turbo was {before} before the '
                f'job, and its extras.turbo_control[{before!r}] commands did '
                f'not run at its end']

    if after != before:
        return [f'the node was not put back: Turbo was {before} before the '
                f'job, {after} after its extras.turbo_control[{before!r}] '
                f'commands ran at its end']

    return []


def _turbo(path):
    '''The Turbo state in the probe's output ``path``, or ``None``.'''
    try:
        with open(path) as fp:
            return node_state.parse(fp.read(), path)['turbo'].value
    except (OSError, node_state.NodeStateError):
        return None
