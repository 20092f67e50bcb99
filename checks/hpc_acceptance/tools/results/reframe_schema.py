'''Whether a run report is one ReFrame restores: its run report schema
(``reframe/schemas/runreport.json``), which ReFrame checks a report
against before it restores a session or stores it again.

ReFrame checks with ``jsonschema``, which walks the report in Python at
about a millisecond a test case; a fleet night of 10,000 nodes holds
70,000. The same schema compiled by ``fastjsonschema`` accepts the same
reports a dozen times faster (``ci/bench/README.md``, "Collecting and
storing"). Where it refuses one, ReFrame's own check says why, in
ReFrame's words, and it alone decides: a report it accepts is accepted.
'''

import functools
import json
import os

import fastjsonschema
import reframe as rfm
from reframe.core.exceptions import ReframeError
from reframe.frontend import reporting

#: ReFrame's run report schema, in its installation.
SCHEMA = os.path.join(rfm.INSTALL_PREFIX, 'reframe', 'schemas',
                      'runreport.json')


@functools.lru_cache(maxsize=1)
def _validate():
    '''The schema's compiled check, compiled once a process (0.02 s).'''
    with open(SCHEMA) as fp:
        return fastjsonschema.compile(json.load(fp))


def check(report, path):
    '''Check the parsed run report ``report``, read from ``path``, as
    ReFrame does before it restores a session.

    :raises ReframeError: ReFrame's own, naming the file and the part at
        fault.
    '''
    try:
        _validate()(report)
    except fastjsonschema.JsonSchemaException:
        # ReFrame's check decides, and says why in its words
        reporting.restore_session(path)
    except RecursionError:
        raise ReframeError(f'failed to validate report {path!r}: nested '
                           f'too deeply') from None
