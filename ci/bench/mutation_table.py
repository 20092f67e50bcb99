'''The table of ci/bench/mutation.sh: per run (with and without the
property tests), the mutants of the decision modules, killed, survived,
timed out, not covered by any test, the score and the time; then the
surviving mutants of the last run, by module.

Usage: python ci/bench/mutation_table.py STATE_DIR RUN...
(reads STATE_DIR/RUN/mutants/mutmut-cicd-stats.json, results.txt and
seconds, as mutation.sh leaves them).
'''

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

_RESULT = re.compile(r'^\s*(?P<name>\S+__mutmut_\d+): (?P<status>.+)$')


def stats(folder):
    '''mutmut's own counts of a run.'''
    return json.loads((folder / 'mutants' /
                       'mutmut-cicd-stats.json').read_text())


def survivors(folder):
    '''``{module: [mutant]}`` of the mutants that survived a run.'''
    found = defaultdict(list)
    for line in (folder / 'results.txt').read_text().splitlines():
        match = _RESULT.match(line)
        if match and match['status'].strip() == 'survived':
            name = match['name']
            found[name.split('.x')[0]].append(name)

    return found


def main(argv):
    if len(argv) < 2:
        print(__doc__.split('\n\n')[-1], file=sys.stderr)
        return 2

    state = Path(argv[0])
    print('| run | mutants | killed | survived | timeout | no test | '
          'score | minutes |')
    print('|---|---|---|---|---|---|---|---|')
    for run in argv[1:]:
        counts = stats(state / run)
        minutes = int((state / run / 'seconds').read_text()) / 60
        total = counts['total']
        killed = counts['killed']
        print(f'| {run} the property tests | {total} | {killed} | '
              f'{counts["survived"]} | {counts["timeout"]} | '
              f'{counts["no_tests"]} | {100 * killed / max(total, 1):.1f} % '
              f'| {minutes:.0f} |')

    last = argv[-1]
    print(f'\nSurvivors of "{last}":')
    for module, names in sorted(survivors(state / last).items()):
        print(f'- {module}: {len(names)}')
        print(''.join(f'  - {name}\n' for name in sorted(names)), end='')

    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
