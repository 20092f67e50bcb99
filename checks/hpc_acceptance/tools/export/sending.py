'''What ``hpc-acceptance export`` sends, sent, and said: one line with how
many values went, how many the store had taken before and how many wait.'''

import sys
from typing import NamedTuple

from hpc_acceptance.core.export import store


def _wait_note(pid):
    print(f'export: waiting for another sender (pid {pid}) to finish',
          file=sys.stderr)


class SendResult(NamedTuple):
    '''What a send did: the exit status (1 while something waits), the
    line that says it, and why the store did not take some (``None``
    where it took all).'''
    status: int
    line: str
    trouble: str = None


def send(export, waiting, what, samples):
    '''Send ``samples`` (``what`` says which) to the store of
    ``export``, keeping in the spool ``waiting`` what it does not take.'''
    done = store.deliver(export, waiting, samples, _wait_note)
    line = (f'export: {len(samples)} value(s) {what}: {done.sent} sent to '
            f'{export.url}, {done.already} sent before'
            + (f', {done.held} waiting in {waiting.path}' if done.held
               else ''))
    trouble = (f'export: the store did not take them: {done.reason}'
               if done.held else None)
    return SendResult(1 if waiting.waiting().samples else 0, line, trouble)


def show(sent):
    '''Print what ``sent`` did.'''
    print(sent.line)
    if sent.trouble:
        print(sent.trouble, file=sys.stderr)
