'''The site's export setting (hpc_acceptance.core.export.settings): each
mistake named with its file and key; credentials read from a file or a
variable at each request, never from the setting itself.'''

import base64

import pytest

from hpc_acceptance.core.export import settings


def write(site, text):
    site.mkdir(exist_ok=True)
    (site / 'export.yaml').write_text(text)
    return site


def test_a_site_without_the_file_exports_nothing(tmp_path):
    assert settings.read(tmp_path) is None


def test_the_url_alone_turns_it_on(tmp_path):
    export = settings.read(write(tmp_path, 'url: http://monitor:8428/\n'))
    assert export.import_url == 'http://monitor:8428/api/v1/import'
    assert export.timeout_s == settings.DEFAULT_TIMEOUT_S
    assert export.authorization() is None


@pytest.mark.parametrize('text, message', [
    ('url: monitor:8428\n', "url: 'monitor:8428': an http:// or https:// "
                            "URL with a host is needed"),
    ('timeout_s: 5\n', "url: missing: the store's base URL"),
    ('url: http://m\nurl_path: /x\n', 'url_path: unknown key (known: url, '),
    ('url: http://m\ntimeout_s: 0\n', 'timeout_s: 0: seconds, more than 0'),
    # a query may hold a secret (InfluxDB's ?u=...&p=...): not shown
    ('url: http://m/?db=x\n', 'url: \'http://m/?***\': the base URL, '
                              'without query'),
    ('url: http://m\ncredentials_file: /a\ncredentials_variable: B\n',
     'credentials_variable: name the credentials_file or the variable, '
     'not both'),
    ('- url\n', 'a mapping of url, credentials_file'),
    ('url: [\n', 'not YAML'),
])
def test_a_mistake_is_named_with_its_file_and_key(tmp_path, text, message):
    site = write(tmp_path, text)
    with pytest.raises(settings.ExportSettingsError) as raised:
        settings.read(site)

    assert str(raised.value).startswith(f'{site}/export.yaml: ')
    assert message in str(raised.value)


def test_user_and_password_from_a_file_are_basic_authentication(tmp_path):
    (tmp_path / 'secret').write_text('acceptance:s3cret\n')
    export = settings.read(write(
        tmp_path, f'url: https://m\ncredentials_file: {tmp_path}/secret\n'))
    assert export.authorization() == 'Basic ' + base64.b64encode(
        b'acceptance:s3cret').decode()


def test_a_token_in_a_variable_is_a_bearer_token(tmp_path, monkeypatch):
    export = settings.read(write(
        tmp_path, 'url: https://m\ncredentials_variable: STORE_TOKEN\n'))
    with pytest.raises(settings.CredentialsError,
                       match='credentials_variable STORE_TOKEN: not set'):
        export.authorization()

    monkeypatch.setenv('STORE_TOKEN', 'abc.def')
    assert export.authorization() == 'Bearer abc.def'


def test_an_unreadable_credentials_file_is_named(tmp_path):
    export = settings.ExportSettings('http://m', credentials_file=str(
        tmp_path / 'gone'))
    with pytest.raises(settings.CredentialsError,
                       match=f'credentials_file {tmp_path}/gone: No such'):
        export.authorization()


@pytest.mark.parametrize('key', ['url', 'read_url'])
@pytest.mark.parametrize('url', ['http://alice:s3cret@monitor:8428',
                                 'https://s3cret@monitor/',
                                 'http://alice:@monitor'])
def test_a_user_or_password_in_a_url_is_refused_without_showing_it(
        tmp_path, key, url):
    site = write(tmp_path, f'url: http://monitor:8428\n{key}: {url}\n'
                 if key == 'read_url' else f'url: {url}\n')
    with pytest.raises(settings.ExportSettingsError) as raised:
        settings.read(site)

    said = str(raised.value)
    assert said.startswith(f'{site}/export.yaml: {key}: a user or password '
                           f'in the URL is refused')
    assert 'credentials_file' in said
    assert 's3cret' not in said and 'alice' not in said


def test_a_yaml_mistake_does_not_show_the_line_s_password(tmp_path):
    site = write(tmp_path, 'url: http://alice:s3cret@monitor:8428: [\n')
    with pytest.raises(settings.ExportSettingsError) as raised:
        settings.read(site)

    assert 'not YAML' in str(raised.value)
    assert 's3cret' not in str(raised.value)


@pytest.mark.parametrize('text', ['S3CRET\nsecond line\n',
                                  'user:S3\x1b[2JCRET\n', 'S3\x00CRET',
                                  'caf\u00e9:S3CRET\n'])
def test_a_secret_that_is_not_one_printable_line_is_refused_naming_the_file(
        tmp_path, text):
    secret = tmp_path / 'store-credentials'
    secret.write_text(text)
    export = settings.ExportSettings('http://m', credentials_file=str(secret))
    with pytest.raises(settings.CredentialsError) as raised:
        export.authorization()

    said = str(raised.value)
    assert said.startswith(f'credentials_file {secret}: holds more than one '
                           f'line, a control character')
    assert not any(word in said for word in ('S3', 'CRET', 'second'))


def test_a_variable_s_secret_of_two_lines_is_refused_naming_the_variable(
        monkeypatch):
    monkeypatch.setenv('STORE_TOKEN', 'tok3n\nsecond')
    export = settings.ExportSettings('http://m',
                                     credentials_variable='STORE_TOKEN')
    with pytest.raises(settings.CredentialsError,
                       match='^credentials_variable STORE_TOKEN: holds more '
                             'than one line') as raised:
        export.authorization()

    assert 'tok3n' not in str(raised.value)


def test_a_credentials_file_others_can_read_is_warned_about(tmp_path):
    secret = tmp_path / 'store-credentials'
    secret.write_text('acceptance:s3cret\n')
    export = settings.ExportSettings('http://m', credentials_file=str(secret))
    secret.chmod(0o600)
    assert export.credentials_warning() is None
    for mode in (0o640, 0o604):
        secret.chmod(mode)
        assert export.credentials_warning() == (
            f'credentials_file {secret} is open to its group or others '
            f'(mode {mode:04o}): make it readable by the account that runs '
            f'the night alone (chmod 0600, owned by that account)')

    assert settings.ExportSettings('http://m').credentials_warning() is None


@pytest.mark.parametrize('text, shown', [
    ('cannot reach http://alice:s3cret@m:8428/api/v1/import: refused',
     'cannot reach http://***@m:8428/api/v1/import: refused'),
    ('two https://a:b@x/ and HTTP://c@y', 'two https://***@x/ and '
                                          'HTTP://***@y'),
    ('no URL: alice@example.org', 'no URL: alice@example.org'),
])
def test_every_url_in_a_text_is_shown_without_its_user_and_password(
        text, shown):
    assert settings.redact(text) == shown
