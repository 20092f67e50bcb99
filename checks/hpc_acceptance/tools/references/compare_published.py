'''Compare a run on this system with the figures the seed papers publish.

    hpc-acceptance compare-published [--report FILE | --sessions Q]

For every passed check variant of the run that a published system has a
figure for (same check, same variant parameters, same unit), prints the
published value, ours and the ratio ours / published, with the source of
the published figure. Figures in units the check does not report are not
compared. By default the newest run of each variant stored in the last
7 days is used.
'''

import sys

from hpc_acceptance.core.references import ReferenceFileError
from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.references import published
from hpc_acceptance.tools.results.runs import (ResultsError, figures_of,
                                               identity_of, report_testcases,
                                               stored_testcases, variant_of)

#: One line for ``hpc-acceptance --help``.
description = "this system's figures next to the seed papers'"


def latest_runs(testcases):
    '''``{(check, params, identity): case}``, the newest passed run of each
    variant and identity: runs with other inputs (NPB class, sizes, ranks)
    are other figures, each compared on its own.'''
    latest = {}
    for case in testcases:
        if case.get('fixture') or case.get('result') != 'pass':
            continue

        check, params = variant_of(case['display_name'])
        key = (check, tuple(sorted(params.items())), identity_of(case))
        when = case.get('job_completion_time_unix') or 0
        if key not in latest or when >= (
                latest[key].get('job_completion_time_unix') or 0):
            latest[key] = case

    return latest


def _published_entry(entry, attributes):
    level = entry
    keys = []
    for subkey in entry.get('$index', []):
        value = attributes.get(subkey)
        if value is None or value not in level:
            return None, None

        keys.append(str(value))
        level = level[value]

    return keys, level


def compare(testcases, systems):
    '''Rows ``(system, check variant, variable, published, ours, unit,
    ratio, source)`` for every comparable figure.'''
    rows = []
    for (check, params, _), case in sorted(latest_runs(testcases).items()):
        figures = figures_of(case)
        for name, pub in sorted(systems.items()):
            entry = pub['figures'].get(check)
            if entry is None:
                continue

            # the variant's parameters, else what the run recorded
            # (num_tasks, npb_class, ...)
            keys, refs = _published_entry(entry, {**case, **dict(params)})
            if refs is None:
                continue

            for variable, (value, _, _, unit) in sorted(refs.items()):
                ours = figures.get(variable)
                if ours is None or ours[1] != unit:
                    continue

                source = pub['sources']['.'.join([check] + keys +
                                                 [variable])]
                rows.append((name, case['display_name'], variable, value,
                             ours[0], unit, ours[0] / value, source))

    return rows


def setup_parser(parser):
    '''The options of ``hpc-acceptance compare-published``.'''
    source = parser.add_mutually_exclusive_group()
    source.add_argument('--report', help='a ReFrame JSON run report')
    arguments.add_sessions(source, 'now-7d:now')


def command(args):
    '''``hpc-acceptance compare-published``: the comparable figures as a
    table, then their sources.'''
    try:
        given = command_settings.read()
        testcases = (report_testcases(args.report) if args.report
                     else stored_testcases(args.sessions, given.db))
        systems = published.load_all()
    except (command_settings.BadSetting, ResultsError,
            ReferenceFileError) as err:
        print(f'compare_published: {err}', file=sys.stderr)
        return 1

    rows = compare(testcases, systems)
    if not rows:
        print('compare_published: no figure of this run is comparable with '
              'a published one', file=sys.stderr)
        return 1

    print(f'{"published system":<22} {"check":<44} {"figure":<18} '
          f'{"published":>10} {"this run":>10} {"unit":<8} {"ratio":>7}')
    for name, check, variable, value, ours, unit, ratio, _ in rows:
        print(f'{name:<22} {check:<44} {variable:<18} {value:>10.4g} '
              f'{ours:>10.4g} {unit:<8} {ratio:>7.2f}')

    print('\nSources:')
    for name, check, variable, *_, source in rows:
        print(f'  {name} {check} {variable}: {source}')

    return 0
