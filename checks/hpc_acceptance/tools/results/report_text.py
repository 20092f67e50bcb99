'''A run report held as the JSON text of its test case records, not as
Python objects: a fleet night of 10,000 nodes, whose parsed records were
three times their text and grew the coordinator's cost with the night
(``ci/bench/README.md``, "A night held as text").

A record (:class:`Record`) is its JSON text without its ``uuid``, and
what the results database's rows and the night's counts read of it. Its
``uuid`` is written in front of that text (:meth:`Record.json`): the
night's report and each part the database stores it as
(:mod:`.session_parts`) are joined from the same text, each record with
the ``uuid`` it has there.
'''

import copy

from hpc_acceptance.tools.results import json_text

#: The ``uuid`` of a record that has none (ReFrame's schema asks for none):
#: its text is written as it was.
NO_UUID = object()


class Record:
    '''A test case record as text (:func:`.json_text.encoded`), its
    ``uuid`` apart, and its fields the database's rows and the counts
    read.'''

    __slots__ = ('body', 'uuid', 'display_name', 'name', 'system',
                 'partition', 'environ', 'completion', 'result')

    def __init__(self, case):
        # written without its uuid, which is taken out and put back (last)
        # rather than the record copied without it: a copy of a record's
        # hundred keys cost more than writing it
        self.uuid = case.pop('uuid', NO_UUID)
        try:
            text = json_text.encoded(case)
        finally:
            if self.uuid is not NO_UUID:
                case['uuid'] = self.uuid
        # the text after its "{", as a str: the database's text is joined
        # of it with no copy decoded; a copy of its own size, where
        # orjson's text holds the buffer it grew to write it
        # (``ci/bench/README.md``, "A night held as text")
        self.body = str(memoryview(text)[1:], 'utf-8')
        self.display_name = case.get('display_name')
        self.name = case.get('name')
        self.system = case.get('system')
        self.partition = case.get('partition')
        self.environ = case.get('environ')
        self.completion = case.get('job_completion_time_unix')
        self.result = case.get('result')

    def placed(self, uuid):
        '''This record under the ``uuid`` ``uuid``, its text shared.'''
        made = copy.copy(self)
        made.uuid = uuid
        return made

    def key(self):
        '''What tells this record's test case from the others, as
        ``..results.runs`` tells a parsed record's: its attempts share
        it.'''
        return self.display_name, self.system, self.partition, self.environ

    def json(self):
        '''The record's JSON text, its ``uuid`` first (:data:`NO_UUID`:
        none).'''
        if self.uuid is NO_UUID:
            return '{' + self.body

        return ''.join(['{"uuid":', _text(self.uuid),
                        ',' if self.body != '}' else '', self.body])


class ReportText:
    '''A run report: ``head``, the report with each run's ``testcases``
    left out, and ``runs``, each run's :class:`Record` list.'''

    def __init__(self, head, runs):
        self.head = head
        self.runs = runs

    @classmethod
    def of(cls, report):
        '''The parsed run report ``report`` as text.'''
        head = dict(report, runs=[
            {key: value for key, value in run.items() if key != 'testcases'}
            for run in report['runs']])
        return cls(head, [[Record(case) for case in run['testcases']]
                          for run in report['runs']])

    @property
    def session_info(self):
        return self.head['session_info']

    def records(self):
        '''Every record, run by run.'''
        return [record for run in self.runs for record in run]

    def chunks(self):
        '''The report as JSON text, in pieces (str) to join or write:
        its ``session_info`` first, after ``"session_info": `` with the
        space ReFrame's own writing puts there. ReFrame's results database
        finds a session's info in its text by a pattern that needs the
        space, and by the first match, which a test case's text could
        hold where it came first.'''
        yield '{"session_info": '
        yield _text(self.head['session_info'])
        yield ',"runs":['
        for number, (run, records) in enumerate(zip(self.head['runs'],
                                                    self.runs)):
            opened = _text(run)[:-1]
            yield (',' if number else '') + opened + (
                ',"testcases":[' if opened != '{' else '"testcases":[')
            for index, record in enumerate(records):
                if index:
                    yield ','
                yield record.json()
            yield ']}'
        rest = _text({key: value for key, value in self.head.items()
                      if key not in ('session_info', 'runs')})
        yield ']' + (',' + rest[1:] if rest != '{}' else '}')

    def stored(self):
        '''The report's text as ReFrame's results database keeps it
        (:meth:`chunks`, joined).'''
        return ''.join(self.chunks())


def _text(value):
    return json_text.encoded(value).decode('utf-8')
