'''Samples posted to the store's import API, what it does not take kept in
the spool (:mod:`.spool`).

Every request waits at most the setting's ``timeout_s`` to connect and
for each answer. Any answer but success (429 Too Many Requests, 401, a 5xx,
a timeout, a refused connection) leaves the samples waiting with that
reason; nothing is retried here: the next run, or ``hpc-acceptance export
--replay``, tries again.
'''

import http.client
import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from hpc_acceptance.core.export.settings import CredentialsError

#: Samples per request: a backfill of months sends tens of thousands.
BATCH = 5000

_HINTS = {401: 'the store refused the credentials (credentials_file or '
               'credentials_variable of the export setting)',
          403: 'the store refused the credentials (credentials_file or '
               'credentials_variable of the export setting)',
          429: 'the store asks to send less often'}


class StoreError(RuntimeError):
    '''The store did not take the samples; the message says why.'''


def _refusal(err):
    detail = err.read(300).decode(errors='replace').strip()
    text = f'HTTP {err.code} {err.reason}'
    if detail:
        text += f': {" ".join(detail.split())}'

    hint = _HINTS.get(err.code)
    return f'{text} ({hint})' if hint else text


def post(settings, samples):
    '''Post ``samples`` to the store of ``settings``.

    :raises StoreError: it did not take them.
    '''
    headers = {'Content-Type': 'application/json'}
    try:
        authorization = settings.authorization()
    except CredentialsError as err:
        raise StoreError(str(err)) from None

    if authorization:
        headers['Authorization'] = authorization

    body = '\n'.join(json.dumps(s, separators=(',', ':'))
                     for s in samples).encode()
    request = urllib.request.Request(settings.import_url, data=body,
                                     headers=headers, method='POST')
    try:
        with urllib.request.urlopen(request,
                                    timeout=settings.timeout_s) as answer:
            answer.read()
    except urllib.error.HTTPError as err:
        raise StoreError(_refusal(err)) from None
    except TimeoutError:
        raise StoreError(f'no answer within {settings.timeout_s:g} s') \
            from None
    except urllib.error.URLError as err:
        if isinstance(err.reason, TimeoutError):
            raise StoreError(f'no connection within '
                             f'{settings.timeout_s:g} s') from None

        raise StoreError(f'cannot reach {settings.import_url}: '
                         f'{err.reason}') from None
    except (OSError, http.client.HTTPException) as err:
        raise StoreError(f'{settings.import_url}: {err}') from None


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


def deliver(settings, spool, samples):
    '''Send those of ``samples`` the store has not taken, in batches; at
    the first batch it does not take, keep that one and the rest in the
    spool. Spool errors (``sqlite3.Error``, ``OSError``) are the caller's
    to report.'''
    fresh = spool.unsent(samples)
    done = Delivery(already=len(samples) - len(fresh))
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
