'''What counts as stored (hpc_acceptance.core.export.store): only the
store's own answer to an import, 204 No Content; a server at the store's URL
that is not the store (a login page, a redirect to one) stores nothing
whatever it answers (stand-ins; tests/e2e/test_export_to_store.py sees the
real store answer 204).'''

import pytest

from helpers import store_stand_ins
from hpc_acceptance.core.export import series, settings, spool, store

LOGIN_PAGE = '<html><title>Sign in</title><form action="/login">'


def night(node):
    return [series.line(series.FIGURE, {'check': 'C', 'node': node}, 1.0,
                        1795624054000)]


def deliver(url, tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db', url)
    done = store.deliver(settings.ExportSettings(url, timeout_s=2), waiting,
                         night('n1'))
    return done, waiting


def test_the_store_s_204_counts_as_stored(tmp_path):
    with store_stand_ins.answering(204) as taken:
        done, waiting = deliver(taken.url, tmp_path)

    assert (done.sent, done.held) == (1, 0)
    assert waiting.unsent(night('n1')) == []


def test_a_login_page_s_200_stores_nothing(tmp_path):
    with store_stand_ins.answering(200, LOGIN_PAGE) as login:
        done, waiting = deliver(login.url, tmp_path)

    assert login.requests == 1
    assert (done.sent, done.held) == (0, 1)
    assert done.reason.startswith(
        "HTTP 200 OK is not the store's answer to an import (204 No "
        "Content): nothing counts as stored; is ")
    assert 'The answer began: <html><title>Sign in</title>' in done.reason
    assert waiting.waiting().samples == 1


def test_a_redirect_is_not_followed_and_stores_nothing(tmp_path):
    with store_stand_ins.answering(
            302, headers={'Location': '/login?next=/api/v1/import'}) as sso:
        done, waiting = deliver(sso.url, tmp_path)

    # one request: the redirect was not followed to a page answering 200
    assert sso.requests == 1
    assert done.held == 1
    assert done.reason == ('HTTP 302 Found: redirected to '
                           '/login?next=/api/v1/import (a login page? url '
                           "must be the store's own base URL)")


def test_other_success_answers_store_nothing_either(tmp_path):
    with store_stand_ins.answering(202, 'queued') as accepted:
        done, _ = deliver(accepted.url, tmp_path)

    assert done.held == 1 and 'HTTP 202 Accepted is not' in done.reason


@pytest.mark.parametrize('times, spans', [
    ([5], [[5, 5]]),
    ([9, 5, 5 + store.READ_GAP_MS], [[5, 5 + store.READ_GAP_MS]]),
    ([5, 6 + store.READ_GAP_MS, 7 + store.READ_GAP_MS],
     [[5, 5], [6 + store.READ_GAP_MS, 7 + store.READ_GAP_MS]]),
])
def test_read_back_asks_once_per_night_not_over_months(times, spans):
    assert store._spans(times) == spans


def test_a_system_name_is_matched_literally():
    assert store._regex_quoted('a.b"c') == 'a\\\\.b\\"c'


def test_a_secret_of_two_lines_is_never_sent_nor_kept(tmp_path):
    secret = tmp_path / 'store-credentials'
    secret.write_text('tok3n-SECRET\nsecond-line\n')
    with store_stand_ins.answering(204) as taken:
        waiting = spool.Spool(tmp_path / 'results-export.db', taken.url)
        done = store.deliver(settings.ExportSettings(
            taken.url, credentials_file=str(secret), timeout_s=2), waiting,
            night('n1'))

    # no request made, the samples wait, saying why without the secret
    assert taken.requests == 0
    assert done.held == 1
    assert done.reason.startswith(f'credentials_file {secret}: holds more '
                                  f'than one line')
    kept = (tmp_path / 'results-export.db').read_bytes()
    assert b'tok3n' not in kept and 'tok3n' not in waiting.waiting().reason


def test_a_request_http_cannot_make_is_the_store_s_error_without_it(
        tmp_path, monkeypatch):
    # whatever else makes http.client refuse a header: its message, which
    # quotes the header, is not passed on
    monkeypatch.setattr(settings.ExportSettings, 'authorization',
                        lambda self: 'Bearer tok3n\nX-Injected: 1')
    with store_stand_ins.answering(204) as taken:
        done, _ = deliver(taken.url, tmp_path)

    assert taken.requests == 0 and done.held == 1
    assert 'the request cannot be made' in done.reason
    assert 'tok3n' not in done.reason
