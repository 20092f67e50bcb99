'''The path of a run's JSON report, from ``RFM_REPORT_FILE``.

ReFrame expands ``{sessionid}`` in its report file's name
(``general/report_file``, ``RFM_REPORT_FILE``; the project's configuration
uses ``run-report-{sessionid}.json``): one more than the largest number of
that name in its folder. ``ci/acceptance.sh`` names the files of a run
after its report (ReFrame's log ``<report>.log``, a fleet run's
``<report>-multinode.json`` and ``<report>-nodes.json``), so a run asks
here for the name first (:func:`new_report`) and hands ReFrame that name.

No run deletes or overwrites an earlier run's report: the results
database's recovery imports the reports kept (``hpc-acceptance db``). A
pattern gets a number no earlier run's file has; a fixed name that holds an
earlier run's files has them renamed first, to the same names with the time
of that run (``report.json`` -> ``report-20261124T020000Z.json``).
'''

import datetime
import os
import re
import sys

from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.tools.common import identifiers
from hpc_acceptance.tools.common.path_inside import path_inside

#: Where the runs' reports go unless ``RFM_REPORT_FILE`` says.
REPORTS_DIR = PROJECT_DIR / 'var' / 'reports'

#: The node list of a fleet run, kept beside its report page.
NODES_NAME = 'nodes.json'

#: The part of a report file name ReFrame replaces with a number.
SESSION_ID = '{sessionid}'

#: The files of a run, named after its report ``<stem>.json``: the report,
#: ReFrame's log, a fleet run's node map and multi-node run, a
#: post-upgrade run's confirmation rerun and verdict.
RUN_FILES = ('.json', '.log', '-nodes.json', '-multinode.json',
             '-multinode.log', '-confirm.json', '-confirm.log',
             '-verdict.json')


class ReportFileError(ValueError):
    '''A report file name that cannot be used; the message says why.'''


def page_dir(session, run_report=None):
    '''The directory of the report page of ``session`` (a UUID): beside
    the run report it was made from, else in :data:`REPORTS_DIR`. A page
    writes and a fleet comparison reads there: the session, read from a
    report, must name a folder of that directory and nothing else (not
    ``/some/dir``, ``../../x`` or a link out of it).

    :raises identifiers.BadIdentifier: if ``session`` is no session UUID.
    :raises OutsideItsDirectory: if the folder resolves outside the
        directory.
    '''
    reports_dir = (os.path.dirname(os.path.abspath(run_report))
                   if run_report else str(REPORTS_DIR))
    return path_inside(reports_dir, os.path.join(
        reports_dir, identifiers.session(session)))


def stem(path):
    '''``path`` without ``.json``: what the run's other files are named
    after.'''
    return path[:-len('.json')] if path.endswith('.json') else path


def run_files(path):
    '''The paths of the files of a run with report ``path``
    (:data:`RUN_FILES`).'''
    return [path] + [stem(path) + suffix for suffix in RUN_FILES
                     if stem(path) + suffix != path]


def _taken(path):
    return any(os.path.exists(name) for name in run_files(path))


def folder(pattern):
    '''The folder of the report file ``pattern``, environment variables
    expanded as ReFrame does.

    :raises ReportFileError: if the folder holds ``{sessionid}`` (ReFrame
        expands it only in the file's name).
    '''
    path = os.path.abspath(os.path.expandvars(pattern))
    where = os.path.dirname(path)
    if SESSION_ID in where:
        raise ReportFileError(f'RFM_REPORT_FILE={pattern}: {SESSION_ID} '
                              f'only in the file name, not in its folder')

    return where


def expand(pattern):
    '''The report path of a new run for ``pattern``, with ``{sessionid}``
    the number after the largest that a file of this pattern has (as
    ReFrame numbers them) and whose files (:func:`run_files`) are all
    free.

    :raises ReportFileError: see :func:`folder`.
    '''
    where = folder(pattern)
    name = os.path.basename(os.path.expandvars(pattern))
    if SESSION_ID not in name:
        return os.path.join(where, name)

    head, _, tail = name.partition(SESSION_ID)
    numbered = re.compile(re.escape(head) + r'(\d+)' + re.escape(tail))
    found = [int(match[1]) for match in map(numbered.fullmatch,
                                            os.listdir(where)) if match]
    number = max(found, default=-1) + 1
    while _taken(os.path.join(where, f'{head}{number}{tail}')):
        number += 1

    return os.path.join(where, f'{head}{number}{tail}')


def keep_earlier(path):
    '''Rename the files of an earlier run with report ``path``
    (:func:`run_files`) to the same names with that run's time (the
    modification time of its report, else of its oldest file) after the
    stem, so that ``path`` is free; ``[(old, new)]``.'''
    earlier = [name for name in run_files(path) if os.path.exists(name)]
    if not earlier:
        return []

    when = (os.path.getmtime(path) if os.path.exists(path) else
            min(map(os.path.getmtime, earlier)))
    stamp = datetime.datetime.fromtimestamp(
        when, datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ')
    kept = unused(f'{stem(path)}-{stamp}' + path[len(stem(path)):])
    renamed = []
    for old in earlier:
        new = stem(kept) + old[len(stem(path)):]
        os.rename(old, new)
        renamed.append((old, new))

    return renamed


def unused(path):
    '''``path``, or with ``-2``, ``-3``... after its stem where a run's
    files already have that name: a report name no earlier run has.'''
    candidate, number = path, 1
    while _taken(candidate):
        number += 1
        candidate = f'{stem(path)}-{number}' + path[len(stem(path)):]

    return candidate


def new_report(pattern):
    '''The report path of a new run for ``pattern`` (:func:`expand`), its
    folder made and an earlier run's files at that name kept
    (:func:`keep_earlier`), each said.

    :raises ReportFileError: if the pattern cannot name a report.
    :raises OSError: if the folder cannot be made or a file renamed.
    '''
    os.makedirs(folder(pattern), exist_ok=True)
    path = expand(pattern)
    for old, new in keep_earlier(path):
        print(f'report file: the earlier run\'s {old} kept as {new}',
              file=sys.stderr)

    return path
