'''What ``hpc-acceptance export`` sends, sent, and said: one line with how
many values went, how many the store had taken before and how many wait.'''

import sys

from hpc_acceptance.core.export import store


def _wait_note(pid):
    print(f'export: waiting for another sender (pid {pid}) to finish',
          file=sys.stderr)


def send(export, waiting, what, samples):
    done = store.deliver(export, waiting, samples, _wait_note)
    print(f'export: {len(samples)} value(s) {what}: {done.sent} sent to '
          f'{export.url}, {done.already} sent before'
          + (f', {done.held} waiting in {waiting.path}' if done.held
             else ''))
    if done.held:
        print(f'export: the store did not take them: {done.reason}',
              file=sys.stderr)

    return 1 if waiting.waiting().samples else 0
