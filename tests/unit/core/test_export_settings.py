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
    ('url: http://m/?db=x\n', 'url: \'http://m/?db=x\': the base URL, '
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
