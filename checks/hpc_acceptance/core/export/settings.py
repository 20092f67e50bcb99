'''The one setting that sends every figure to the site's time-series store:
``export.yaml`` in the site directory (:mod:`hpc_acceptance.core.site`)::

    url: http://monitor.example.org:8428      # the store (VictoriaMetrics)
    credentials_file: /etc/hpc-acceptance/store-credentials   # optional
    timeout_s: 5                              # optional, the default
    read_url: http://vmselect:8481/select/0/prometheus   # optional

``url`` is the base URL of the store's import API: the series go to
``<url>/api/v1/import`` (VictoriaMetrics' JSON lines; behind vmauth or a
cluster's vminsert, the prefix before ``/api/v1/import``). ``read_url``
is the base URL ``export --verify`` reads the store back from
(``<read_url>/api/v1/export``): by default ``url``, which serves both on
a single VictoriaMetrics; a cluster's vmselect for a vminsert. Credentials
never go into the file, which lives in the site's repository: it names a
file (``credentials_file``) or an environment variable
(``credentials_variable``) holding ``USER:PASSWORD`` (HTTP basic
authentication) or a bearer token (a line without ``:``), read at each
request. ``timeout_s`` bounds each wait for the store: to connect and for
each answer.

Secrets are never printed. A URL with a user or password in it
(``http://user:pass@host``) is refused naming the file and key: it would
be printed with every message and stored in the spool, and credentials go
in ``credentials_file``. A secret that is not one line of printable
characters (a second line, a control character) is refused naming the
file or variable only, never its content. A credentials file its group or
others can read or write is warned about (:meth:`ExportSettings
.credentials_warning`). Every URL or text that may hold one is shown
through :func:`redacted` or :func:`redact`.
'''

import base64
import os
import re
import stat
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import yaml

from hpc_acceptance.core import site

#: The setting's file in the site directory.
FILE_NAME = 'export.yaml'

#: Seconds a request waits for the store to connect or answer.
DEFAULT_TIMEOUT_S = 5.0

#: Where the store takes JSON lines, below its base URL.
IMPORT_PATH = '/api/v1/import'

#: Where it gives its raw samples back, below its base URL for reading.
EXPORT_PATH = '/api/v1/export'

_KEYS = ('url', 'credentials_file', 'credentials_variable', 'timeout_s',
         'read_url')

#: What replaces a secret in anything shown.
HIDDEN = '***'

#: The user and password part of a URL in a text: ``scheme://`` then
#: anything but a slash or blank up to the last ``@`` before them.
_USERINFO = re.compile(r'(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@')

#: The permission bits of a credentials file that let others than its
#: owner at it.
_OPEN_TO_OTHERS = stat.S_IRWXG | stat.S_IRWXO


def redact(text):
    '''``text`` with the user and password of every URL in it hidden.'''
    return _USERINFO.sub(rf'\1{HIDDEN}@', str(text))


def redacted(url):
    '''``url`` to show: its user, password and query hidden (a redirect's
    target may carry a token in either).'''
    try:
        parsed = urllib.parse.urlsplit(str(url))
    except ValueError:
        return redact(url)

    netloc = parsed.netloc
    if '@' in netloc:
        netloc = f'{HIDDEN}@{netloc.rpartition("@")[2]}'
    query = HIDDEN if parsed.query else ''
    return urllib.parse.urlunsplit((parsed.scheme, netloc, parsed.path,
                                    query, ''))


def _unprintable(text):
    '''Whether ``text`` holds a control character (a line break, a tab,
    an escape, DEL).'''
    return any(ord(c) < 32 or ord(c) == 127 for c in text)


class ExportSettingsError(site.SiteError):
    '''The setting cannot be used; the message names the file and key,
    never a URL's password.'''

    def __init__(self, message):
        super().__init__(redact(message))


class CredentialsError(RuntimeError):
    '''The credentials cannot be read; the message says where from.'''


@dataclass(frozen=True)
class ExportSettings:
    '''The store the figures go to, and how to reach it.'''
    url: str
    credentials_file: Optional[str] = None
    credentials_variable: Optional[str] = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    read_url: Optional[str] = None

    @property
    def import_url(self):
        return self.url.rstrip('/') + IMPORT_PATH

    @property
    def read_export_url(self):
        return (self.read_url or self.url).rstrip('/') + EXPORT_PATH

    def _credentials(self):
        '''The secret, one line of printable characters; errors name
        where it was read, never what it holds.'''
        if self.credentials_file:
            where = f'credentials_file {self.credentials_file}'
            try:
                value = Path(self.credentials_file).read_text()
            except OSError as err:
                raise CredentialsError(f'{where}: {err.strerror}') from None
            except UnicodeDecodeError:
                raise CredentialsError(f'{where}: not text') from None
        else:
            where = f'credentials_variable {self.credentials_variable}'
            value = os.environ.get(self.credentials_variable, '')

        value = value.strip()
        if not value:
            raise CredentialsError(f'{where}: empty' if self.credentials_file
                                   else f'{where}: not set')

        if _unprintable(value) or not value.isascii():
            raise CredentialsError(
                f'{where}: holds more than one line, a control character '
                f'or a character that is not ASCII; it must hold one line, '
                f'USER:PASSWORD or a bearer token (its content is not shown)')

        return value

    def credentials_warning(self):
        '''Why the credentials file is open to others than its owner, or
        ``None`` (no file, a private one, or one that cannot be read: the
        request says so).'''
        if not self.credentials_file:
            return None

        try:
            mode = os.stat(self.credentials_file).st_mode
        except OSError:
            return None

        if not mode & _OPEN_TO_OTHERS:
            return None

        return (f'credentials_file {self.credentials_file} is open to its '
                f'group or others (mode {stat.S_IMODE(mode):04o}): make it '
                f'readable by the account that runs the night alone '
                f'(chmod 0600, owned by that account)')

    def authorization(self):
        '''The ``Authorization`` header's value, or ``None`` without
        credentials.

        :raises CredentialsError: the file or variable cannot be read.
        '''
        if not (self.credentials_file or self.credentials_variable):
            return None

        secret = self._credentials()
        if ':' in secret:
            return 'Basic ' + base64.b64encode(secret.encode()).decode()

        return f'Bearer {secret}'


def path(root):
    return Path(root) / FILE_NAME


def _fail(source, key, message):
    raise ExportSettingsError(f'{source}: {key}: {message}')


def _url(source, value, key='url', path=IMPORT_PATH):
    if not isinstance(value, str):
        _fail(source, key, f'{value!r} is not a URL')

    try:
        parsed = urllib.parse.urlparse(value)
        parsed.port
    except ValueError:
        _fail(source, key, f'{redacted(value)!r}: not a URL')

    if parsed.username is not None or parsed.password is not None:
        # never the URL itself: it holds the secret
        _fail(source, key, 'a user or password in the URL is refused (it '
                           'would be shown in messages and kept in the '
                           'spool): put USER:PASSWORD in the file '
                           'credentials_file names, and the URL without it')

    if _unprintable(value):
        _fail(source, key, f'{redacted(value)!r}: a control character in '
                           f'the URL')

    if parsed.scheme not in ('http', 'https') or not parsed.hostname:
        _fail(source, key, f'{redacted(value)!r}: an http:// or https:// '
                           f'URL with a host is needed')

    if parsed.query or parsed.fragment:
        _fail(source, key, f'{redacted(value)!r}: the base URL, without '
                           f'query or fragment ({path} is added to it)')

    return value


def parse(data, source):
    ''':class:`ExportSettings` of the parsed file ``data``.'''
    if not isinstance(data, dict):
        raise ExportSettingsError(f'{source}: a mapping of {", ".join(_KEYS)}'
                                  f' is needed')

    for key in data:
        if key not in _KEYS:
            _fail(source, key, f'unknown key (known: {", ".join(_KEYS)})')

    if 'url' not in data:
        _fail(source, 'url', 'missing: the store\'s base URL')

    if data.get('credentials_file') and data.get('credentials_variable'):
        _fail(source, 'credentials_variable', 'name the credentials_file or '
                                              'the variable, not both')

    for key in ('credentials_file', 'credentials_variable'):
        if key in data and (not isinstance(data[key], str) or
                            not data[key]):
            _fail(source, key, f'{data[key]!r}: a name is needed')

    timeout = data.get('timeout_s', DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not 0 < timeout <= 300:
        _fail(source, 'timeout_s', f'{timeout!r}: seconds, more than 0 and '
                                   f'at most 300')

    read_url = data.get('read_url')
    if read_url is not None:
        read_url = _url(source, read_url, 'read_url', EXPORT_PATH)

    return ExportSettings(_url(source, data['url']),
                          data.get('credentials_file'),
                          data.get('credentials_variable'), float(timeout),
                          read_url)


def read(root):
    '''The export setting of the site directory ``root``, or ``None``
    when it has none (the export is off).

    :raises ExportSettingsError: the file cannot be read or used.
    '''
    source = path(root)
    try:
        text = source.read_text()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ExportSettingsError(f'{source}: {err.strerror}') from None

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        # YAML's message quotes the line, which may hold a URL's password
        raise ExportSettingsError(f'{source}: not YAML: {redact(err)}') \
            from None

    return parse(data, source)


def of_directory(root):
    '''The export setting of the site directory ``root``; ``None`` when
    off, or there is no site directory (``root`` ``None``).'''
    return read(root) if root else None
