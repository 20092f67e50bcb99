'''Stand-ins for a time-series store in trouble, for the error paths a real
one cannot be made to take on demand: a store that accepts connections and
never answers, and one that answers every request with one HTTP answer:
an error (429 Too Many Requests, 500), or what a server at the store's URL
that is not the store answers (a login page's 200, a redirect). Each runs
in a thread on 127.0.0.1 and counts the connections it was given.'''

import contextlib
import http.server
import json
import socket
import threading


class Stalled:
    '''Accepts every connection and never answers.'''

    def __init__(self):
        self.listener = socket.create_server(('127.0.0.1', 0))
        self.url = f'http://127.0.0.1:{self.listener.getsockname()[1]}'
        self.connections = []
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self):
        with contextlib.suppress(OSError):
            while True:
                self.connections.append(self.listener.accept()[0])

    def close(self):
        self.listener.close()
        for conn in self.connections:
            conn.close()


@contextlib.contextmanager
def stalled():
    server = Stalled()
    server.thread.start()
    try:
        yield server
    finally:
        server.close()


@contextlib.contextmanager
def answering(status, body='', headers=None):
    '''A server answering every POST with ``status``, ``headers`` and
    ``body``; yields it, with ``url``, ``requests`` (how many it answered)
    and ``samples`` (the JSON lines posted).'''
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            posted = self.rfile.read(
                int(self.headers.get('Content-Length', 0)))
            self.server.requests += 1
            self.server.samples += [json.loads(line)
                                    for line in posted.splitlines()]
            self.send_response(status)
            if status == 429:
                self.send_header('Retry-After', '60')
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header('Content-Length', str(len(body.encode())))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    server.requests = 0
    server.samples = []
    server.url = f'http://127.0.0.1:{server.server_address[1]}'
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
