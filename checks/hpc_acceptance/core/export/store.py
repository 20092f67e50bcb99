'''Samples posted to the store's import API, what it does not take kept in
the spool (:mod:`.spool`), and what it holds read back.

Every request waits at most the setting's ``timeout_s`` to connect and
for each answer. A sample counts as stored only on the store's own
success answer to an import, ``204 No Content`` (VictoriaMetrics, vminsert
and vmauth in front of them): any other answer (429 Too Many Requests, 401,
a 5xx, a redirect, a ``200 OK`` from a login page or another server at that
URL), a timeout or a refused connection leaves the samples waiting with
that reason; nothing is retried here: the next run, or ``hpc-acceptance
export --replay``, tries again. A store can still answer 204 and keep
nothing (VictoriaMetrics drops samples older than its ``-retentionPeriod``
and says so only in its own log): :func:`held` reads back what it holds.
'''

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from hpc_acceptance.core.export import series
from hpc_acceptance.core.export.settings import CredentialsError, redact

#: Samples per request: a backfill of months sends tens of thousands.
BATCH = 5000

#: The store's answer to an import that stored every sample.
STORED = 204

#: Milliseconds between two samples read back in one request at most: one
#: request per night's run, not one over months of empty time.
READ_GAP_MS = 3600 * 1000

_HINTS = {401: 'the store refused the credentials (credentials_file or '
               'credentials_variable of the export setting)',
          403: 'the store refused the credentials (credentials_file or '
               'credentials_variable of the export setting)',
          429: 'the store asks to send less often'}


class StoreError(RuntimeError):
    '''The store did not take the samples; the message says why, with the
    user and password of any URL in it hidden: it is printed, logged and
    kept in the spool.'''

    def __init__(self, message):
        super().__init__(redact(message))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    '''A redirect is an answer, not a way on: following one turns the POST
    into a GET of another page (a login form) that answers 200.'''

    def redirect_request(self, *args, **kwargs):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _excerpt(data):
    return ' '.join(data.decode(errors='replace').split())[:200]


def _refusal(err):
    detail = _excerpt(err.read(300))
    text = f'HTTP {err.code} {err.reason}'
    location = err.headers.get('Location') if err.headers else None
    if 300 <= err.code < 400:
        text += (f': redirected'
                 f'{f" to {redact(location)}" if location else ""} '
                 f'(a login page? url must be the store\'s own base URL)')
    elif detail:
        text += f': {detail}'

    hint = _HINTS.get(err.code)
    return f'{text} ({hint})' if hint else text


def _headers(settings, content_type=None):
    headers = {'Content-Type': content_type} if content_type else {}
    try:
        authorization = settings.authorization()
    except CredentialsError as err:
        raise StoreError(str(err)) from None

    if authorization:
        headers['Authorization'] = authorization

    return headers


def _request(settings, request):
    '''The answer to ``request`` (open: the caller reads and closes it).

    :raises StoreError: an error answer, or none.
    '''
    try:
        return _OPENER.open(request, timeout=settings.timeout_s)
    except urllib.error.HTTPError as err:
        raise StoreError(_refusal(err)) from None
    except TimeoutError:
        raise StoreError(f'no answer within {settings.timeout_s:g} s') \
            from None
    except urllib.error.URLError as err:
        if isinstance(err.reason, TimeoutError):
            raise StoreError(f'no connection within '
                             f'{settings.timeout_s:g} s') from None

        raise StoreError(f'cannot reach {request.full_url}: '
                         f'{err.reason}') from None
    except (OSError, http.client.HTTPException) as err:
        raise StoreError(f'{request.full_url}: {err}') from None
    except ValueError:
        # http.client's message quotes the header, credentials included
        raise StoreError(f'{request.full_url}: the request cannot be made '
                         f'(a character HTTP does not allow in a header or '
                         f'the URL)') from None


def post(settings, samples):
    '''Post ``samples`` to the store of ``settings``.

    :raises StoreError: it did not answer that it stored them.
    '''
    body = '\n'.join(json.dumps(s, separators=(',', ':'))
                     for s in samples).encode()
    request = urllib.request.Request(
        settings.import_url, data=body, method='POST',
        headers=_headers(settings, 'application/json'))
    try:
        with _request(settings, request) as answer:
            text = answer.read(300)
            status, reason = answer.status, answer.reason
    except TimeoutError:
        raise StoreError(f'no answer within {settings.timeout_s:g} s') \
            from None
    except (OSError, http.client.HTTPException) as err:
        raise StoreError(f'{settings.import_url}: {err}') from None

    if status != STORED:
        raise StoreError(
            f'HTTP {status} {reason} is not the store\'s answer to an '
            f'import ({STORED} No Content): nothing counts as stored; is '
            f'{settings.url} the store\'s base URL? The answer began: '
            f'{_excerpt(text) or "(empty)"}')


def _read(settings, match, start_ms, end_ms):
    '''The keys (:func:`.series.key`) of the samples the store holds of
    the series ``match`` selects from ``start_ms`` to ``end_ms``.'''
    query = urllib.parse.urlencode({'match[]': match,
                                    'start': f'{start_ms / 1000:.3f}',
                                    'end': f'{end_ms / 1000:.3f}'})
    request = urllib.request.Request(f'{settings.read_export_url}?{query}',
                                     headers=_headers(settings))
    keys = set()
    try:
        with _request(settings, request) as answer:
            if answer.status != 200:
                raise StoreError(f'{settings.read_export_url}: HTTP '
                                 f'{answer.status} {answer.reason}')
            for text in answer:
                found = json.loads(text)
                keys.update(series.key({'metric': found['metric'],
                                        'timestamps': [when]})
                            for when in found['timestamps'])
    except (TimeoutError, OSError, http.client.HTTPException) as err:
        raise StoreError(f'{settings.read_export_url}: {err}') from None
    except (ValueError, KeyError, TypeError):
        raise StoreError(f'{settings.read_export_url}: not the store\'s '
                         f'export API (JSON lines of series expected)') \
            from None

    return keys


def _spans(times):
    '''``[(first, last)]``: the sorted times ``times`` in runs with gaps of
    at most :data:`READ_GAP_MS`.'''
    spans = []
    for when in sorted(set(times)):
        if spans and when - spans[-1][1] <= READ_GAP_MS:
            spans[-1][1] = when
        else:
            spans.append([when, when])

    return spans


def held(settings, samples):
    '''Those of ``samples`` the store holds, read back through its export
    API (``/api/v1/export`` below ``read_url``).

    :raises StoreError: it cannot be read.
    '''
    wanted = {series.key(s): s for s in samples}
    systems = sorted({s['metric'].get('system', '') for s in samples})
    names = sorted({s['metric']['__name__'] for s in samples})
    match = (f'{{__name__=~"{"|".join(names)}",'
             f'system=~"{"|".join(map(_regex_quoted, systems))}"}}')
    found = set()
    for start, end in _spans(t for s in samples for t in s['timestamps']):
        found |= _read(settings, match, start, end)

    return [sample for key, sample in wanted.items() if key in found]


def _regex_quoted(text):
    '''``text`` as a literal in a PromQL regular expression in a string.'''
    special = set('\\.^$|?*+()[]{}')
    escaped = ''.join(f'\\{c}' if c in special else c for c in text)
    return escaped.replace('\\', '\\\\').replace('"', '\\"')


@dataclass
class Delivery:
    '''What became of samples given to :func:`deliver`.'''
    #: the store took them now
    sent: int = 0
    #: it had taken them before: not sent again
    already: int = 0
    #: left waiting in the spool
    held: int = 0
    #: why they wait
    reason: str = ''


def deliver(settings, spool, samples, waited=None):
    '''Send those of ``samples`` the store has not taken, in batches; at
    the first batch it does not take, keep that one and the rest in the
    spool. One sender at a time per spool (``waited``: see
    :meth:`.spool.Spool.sending`). Spool errors (``sqlite3.Error``,
    ``OSError``) are the caller's to report.'''
    with spool.sending(waited):
        fresh = spool.unsent(samples)
        done = Delivery(already=len(samples) - len(fresh))
        if done.already:
            # taken before, and still waiting: a sender that was not the
            # only one left them there
            fresh_keys = {series.key(s) for s in fresh}
            spool.delivered([s for s in samples
                             if series.key(s) not in fresh_keys])

        for start in range(0, len(fresh), BATCH):
            batch = fresh[start:start + BATCH]
            try:
                post(settings, batch)
            except StoreError as err:
                spool.hold(fresh[start:], str(err))
                done.held, done.reason = len(fresh) - start, str(err)
                break

            spool.delivered(batch)
            done.sent += len(batch)

    return done
