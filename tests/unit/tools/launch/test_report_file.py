'''The path of a run's JSON report (hpc_acceptance.tools.launch.report_file):
ReFrame's ``{sessionid}`` numbered as ReFrame numbers it, and no earlier
run's report deleted or overwritten.'''

import os
from pathlib import Path

import pytest
from reframe.frontend.reporting import _expand_report_filename

from hpc_acceptance.tools.launch import report_file


def touch(path, text='{}', when=None):
    path.write_text(text)
    if when:
        os.utime(path, (when, when))
    return path


def test_a_pattern_gets_the_number_reframe_gives_it(tmp_path):
    for name in ('run-report-0.json', 'run-report-3.json', 'run-report-3.log',
                 'run-report-2-multinode.json', 'acceptance-7.json'):
        touch(tmp_path / name)
    (tmp_path / 'latest.json').symlink_to('run-report-3.json')
    pattern = str(tmp_path / 'run-report-{sessionid}.json')
    assert report_file.expand(pattern) == \
        _expand_report_filename(pattern, newfile=True) == \
        str(tmp_path / 'run-report-4.json')


def test_a_number_an_earlier_runs_log_has_is_not_taken(tmp_path):
    '''ReFrame wrote no report (it crashed), but its output is in the log
    named after the report: the next run must not overwrite it.'''
    touch(tmp_path / 'run-report-0.json')
    touch(tmp_path / 'run-report-1.log', 'Traceback ...')
    assert report_file.expand(str(tmp_path / 'run-report-{sessionid}.json')
                              ) == str(tmp_path / 'run-report-2.json')


def test_a_fixed_name_keeps_the_earlier_runs_files(tmp_path):
    when = 1795506548   # 2026-11-24 07:49:08 UTC
    touch(tmp_path / 'report.json', 'the earlier run', when)
    touch(tmp_path / 'report.log', 'its output')
    touch(tmp_path / 'report-multinode.json', 'its multi-node run')
    path = str(tmp_path / 'report.json')
    renamed = report_file.keep_earlier(path)
    kept = tmp_path / 'report-20261124T074908Z'
    assert renamed == [(str(tmp_path / 'report.json'), f'{kept}.json'),
                       (str(tmp_path / 'report.log'), f'{kept}.log'),
                       (str(tmp_path / 'report-multinode.json'),
                        f'{kept}-multinode.json')]
    assert Path(f'{kept}.json').read_text() == 'the earlier run'
    assert not os.path.exists(path)
    # a second earlier run of the same second is kept beside it
    touch(tmp_path / 'report.json', 'the one after', when)
    [(_, second)] = report_file.keep_earlier(path)
    assert second == f'{kept}-2.json'
    assert Path(f'{kept}.json').read_text() == 'the earlier run'


def test_a_new_report_is_named_and_the_earlier_kept_said(tmp_path, capsys):
    touch(tmp_path / 'r.json')
    assert report_file.new_report(
        str(tmp_path / 'new' / 'r-{sessionid}.json')) == \
        f'{tmp_path}/new/r-0.json'
    assert (tmp_path / 'new').is_dir()
    assert report_file.new_report(str(tmp_path / 'r.json')) == \
        f'{tmp_path}/r.json'
    err = capsys.readouterr().err
    assert f"the earlier run's {tmp_path}/r.json kept as {tmp_path}/r-" in err


def test_sessionid_in_the_folder_is_refused_naming_the_variable(tmp_path):
    pattern = str(tmp_path / '{sessionid}' / 'report.json')
    with pytest.raises(report_file.ReportFileError) as refused:
        report_file.new_report(pattern)
    assert str(refused.value) == (
        f'RFM_REPORT_FILE={pattern}: {{sessionid}} only in the file name, '
        f'not in its folder')
    with pytest.raises(report_file.ReportFileError):
        report_file.folder(pattern)
