'''The table of ci/bench/properties.sh: per property test, the examples
Hypothesis tried (passing, failing, invalid: those a test's own
``assume`` set aside) and the seconds it spent, from pytest's
``--hypothesis-show-statistics`` output.

Usage: python ci/bench/properties_table.py PYTEST_OUTPUT
'''

import re
import sys

_TEST = re.compile(r'^tests/properties/(?P<file>\S+)::(?P<test>\w+):$')
_PHASE = re.compile(r'^\s+- during (?P<phase>\w+) phase \((?P<seconds>[\d.]+) '
                    r'seconds\):')
_COUNTS = re.compile(r'^\s+- (?P<passing>\d+) passing, (?P<failing>\d+) '
                     r'failing, and (?P<invalid>\d+) invalid')


def parse(text):
    '''``{test: {passing, failing, invalid, seconds}}``.'''
    found, test = {}, None
    for line in text.splitlines():
        match = _TEST.match(line)
        if match:
            test = match['test']
            found[test] = dict(passing=0, failing=0, invalid=0, seconds=0.0)
            continue

        if test is None:
            continue

        match = _PHASE.match(line)
        if match:
            found[test]['seconds'] += float(match['seconds'])

        match = _COUNTS.match(line)
        if match:
            for key in ('passing', 'failing', 'invalid'):
                found[test][key] += int(match[key])

    return found


def main(argv):
    if len(argv) != 1:
        print(__doc__.split('\n\n')[-1], file=sys.stderr)
        return 2

    with open(argv[0]) as fp:
        found = parse(fp.read())

    if not found:
        print(f'properties: no Hypothesis statistics in {argv[0]}',
              file=sys.stderr)
        return 2

    print('| test | examples passed | failed | invalid | seconds |')
    print('|---|---|---|---|---|')
    for test, row in found.items():
        print(f'| `{test}` | {row["passing"]} | {row["failing"]} | '
              f'{row["invalid"]} | {row["seconds"]:.0f} |')

    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
