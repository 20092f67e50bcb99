'''A real time-series store for the tests: Debian's ``victoria-metrics``
(installed by ``ci/setup.sh --test``, its service never enabled), started
on 127.0.0.1 on a free port with its data under the test's directory, and
read back through its own APIs.

Two flags keep the store from hiding what a test just wrote, and change
nothing else: ``-search.latencyOffset=0s`` (by default the last 30 s are
left out of queries, for scrapes still in flight) and
``-search.disableCache``. A series it has just registered may still take
seconds to show (tests/helpers/exported.py waits for what it expects).
'''

import base64
import contextlib
import json
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

BINARY = 'victoria-metrics'


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class Store:
    '''One victoria-metrics process over the data in ``data``; it can be
    stopped and started again on the same port and data.'''

    def __init__(self, data, log):
        self.data = data
        self.log = log
        self.port = free_port()
        self.url = f'http://127.0.0.1:{self.port}'
        self.process = None
        self.headers = {}

    def start(self, user=None, password=None):
        '''Start it; with ``user`` and ``password``, every request needs
        them (its own HTTP basic authentication).'''
        auth = ([f'-httpAuth.username={user}',
                 f'-httpAuth.password={password}'] if user else [])
        self.headers = ({'Authorization': 'Basic ' + base64.b64encode(
            f'{user}:{password}'.encode()).decode()} if user else {})
        self.process = subprocess.Popen(
            [BINARY, f'-httpListenAddr=127.0.0.1:{self.port}',
             f'-storageDataPath={self.data}', '-search.latencyOffset=0s',
             '-search.disableCache', '-loggerLevel=ERROR', *auth],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.name
            with contextlib.suppress(OSError):
                self._get('/health')
                return

            time.sleep(0.1)

        raise AssertionError(f'victoria-metrics did not start: {self.log}')

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)

    def _get(self, path, **params):
        query = urllib.parse.urlencode(params, doseq=True)
        request = urllib.request.Request(f'{self.url}{path}?{query}',
                                         headers=self.headers)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.read().decode()

    def delete(self, match):
        '''Delete the series ``match`` selects, every sample of them (its
        admin API: a store restored from an older backup, or a series
        deleted by hand, as a store loses what it took).'''
        request = urllib.request.Request(
            f'{self.url}/api/v1/admin/tsdb/delete_series',
            data=urllib.parse.urlencode({'match[]': match}).encode(),
            headers=self.headers, method='POST')
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 204, answer.status

    def flush(self):
        '''What was imported, searchable now.'''
        self._get('/internal/force_flush')

    def export(self, match='{__name__=~"hpc_acceptance_.*"}'):
        '''Every raw sample of the series ``match`` selects, duplicates
        included: ``[(labels, value, timestamp ms)]``.'''
        self.flush()
        samples = []
        for text in self._get('/api/v1/export',
                              **{'match[]': match}).splitlines():
            series = json.loads(text)
            samples += [(series['metric'], value, when) for value, when in
                        zip(series['values'], series['timestamps'])]

        return samples

    def query(self, expr, when):
        '''PromQL ``expr`` at the Unix time ``when``:
        ``[(labels, value)]``.'''
        self.flush()
        answer = json.loads(self._get('/api/v1/query', query=expr,
                                      time=f'{when:.3f}'))
        assert answer['status'] == 'success', answer
        return [(r['metric'], float(r['value'][1]))
                for r in answer['data']['result']]

    def query_range(self, expr, start, end, step):
        '''PromQL ``expr`` from ``start`` to ``end``:
        ``[(labels, [(time, value)])]``.'''
        self.flush()
        answer = json.loads(self._get('/api/v1/query_range', query=expr,
                                      start=f'{start:.3f}',
                                      end=f'{end:.3f}', step=step))
        assert answer['status'] == 'success', answer
        return [(r['metric'], [(float(t), float(v)) for t, v in r['values']])
                for r in answer['data']['result']]


@contextlib.contextmanager
def running(root):
    ''':class:`Store` started over ``root/data``, stopped at the end;
    skips where victoria-metrics is not installed.'''
    if shutil.which(BINARY) is None:
        pytest.skip(f'{BINARY} is not installed (ci/setup.sh --test '
                    f'installs it)')

    root.mkdir(parents=True, exist_ok=True)
    with open(root / 'victoria-metrics.log', 'w') as log:
        store = Store(root / 'data', log)
        store.start()
        try:
            yield store
        finally:
            if store.process.poll() is None:
                store.stop()
