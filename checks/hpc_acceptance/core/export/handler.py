'''The ReFrame perflog handler that sends each performance record to the
site's store as it is logged.

``config/settings.py`` lists ``{'type': TYPE}`` among its perflog
handlers; ReFrame makes it through its own registry of handler types
(``reframe.core.logging.register_log_handler``, which makes its
``filelog`` and ``httpjson`` handlers). Without the site's setting
(:mod:`.settings`) it is a handler that does nothing. It is read when
ReFrame sets its logging up, after every configuration file: a site
directory layered with ``-C <site>/config.py`` names itself by then.

ReFrame's own ``httpjson`` handler, with a formatter for the store, is not
enough: it is dropped with only a warning when the store does not answer
a 1-second probe at start (the night's figures lost), posts without a
timeout from ReFrame's own loop (a stalled store hangs the run) and fails
its records on any answer but 429 (ReFrame warns, the figures are lost).
This one never raises into ReFrame and never makes it wait for the store:
records go through the spool (:mod:`.spool`), which a thread sends,
earlier runs' samples first; what the store does not take stays there.
'''

import argparse
import logging
import os
import shlex
import sys
import threading

from reframe.core.logging import getlogger, register_log_handler
from reframe.utility import osext

from hpc_acceptance.core.export import series, settings, spool, store
from hpc_acceptance.core import node_scheduler, site

#: The handler's type in ReFrame's logging configuration.
TYPE = 'hpc_acceptance_export'

#: Its entry in ``handlers_perflog``.
CONFIG = {'type': TYPE, 'level': 'info'}


def session_extras(argv, mode_options):
    '''The session extras ReFrame stores with this run (``suite_mode``,
    ``fleet``, ``post_upgrade``...): those of the mode of ``--mode``
    (``mode_options(name)``: its options in the configuration), then those
    of the command line ``argv``, gathered as ReFrame gathers them. ReFrame
    hands them to no log record; they label the run's series.'''
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument('--mode')
    parser.add_argument('--session-extras', action='append', default=[])
    given, _ = parser.parse_known_args(argv)
    items = []
    if given.mode:
        words = [word for option in mode_options(given.mode) or []
                 for word in shlex.split(osext.expandvars(option))]
        items += parser.parse_known_args(words)[0].session_extras

    extras = {}
    for item in items + given.session_extras:
        for pair in item.split(','):
            name, sep, value = pair.partition('=')
            if sep:
                extras[name] = value

    return extras


def case_of(record):
    '''The test case of a performance log record, with the fields of
    ReFrame's JSON report (:mod:`.series`).'''
    check = getattr(record, '__rfm_check__', None)
    return {
        'display_name': record.check_display_name,
        'system': record.check_system,
        'partition': record.check_partition,
        'environ': record.check_environ,
        'node': getattr(record, 'check_node', None),
        'identity': getattr(record, 'check_identity', None),
        'job_nodelist': getattr(record, 'check_job_nodelist', None),
        'perfvalues': getattr(record, 'check_perfvalues', None) or {},
        'result': record.check_result,
        'job_completion_time_unix': record.check_job_completion_time_unix,
        'fixture': bool(check is not None and check.is_fixture()),
    }


class ExportHandler(logging.Handler):
    '''Sends the samples of each record to the store of ``export``
    (:class:`.settings.ExportSettings`), labelled with the run's session
    ``extras``, through the spool ``waiting`` (:class:`.spool.Spool`).

    ReFrame's loop never waits for the store: a record's samples go into
    the spool (a local SQLite write), and a thread of the handler sends
    what waits there, earlier runs' samples included. At the first
    refusal the thread stops sending for the run; what it did not send
    stays in the spool, also when the run is killed. When ReFrame closes
    the handler (at its exit), the thread sends what the last records
    left, waiting for it at most twice the setting's timeout.
    '''

    #: The reason of samples a run logged and had not sent when it ended.
    UNSENT = 'the run that logged them ended before sending them'

    def __init__(self, export, waiting, extras):
        super().__init__()
        self.export = export
        self.spool = waiting
        self.extras = extras
        #: why this run sends no more: the store refused, or the spool
        #: could not be read
        self.refused = None
        self._lost = False
        self._wake = threading.Event()
        self._closing = False
        self._sender = threading.Thread(target=self._send, daemon=True,
                                        name='hpc-acceptance export')

    def _warn(self, message):
        getlogger().warning(f'export: {settings.redact(message)}')

    def _send_waiting(self):
        try:
            done = store.deliver(self.export, self.spool,
                                 self.spool.waiting_samples())
        except Exception as err:
            self.refused = settings.redact(f'{type(err).__name__}: {err}')
            self._warn(f'cannot send what waits in {self.spool.path} '
                       f'({self.refused}); "hpc-acceptance export '
                       f'--replay" sends it')
            return

        if done.held:
            self.refused = done.reason
            self._warn(f'the store {self.export.url} did not take this '
                       f'run\'s figures ({done.reason}); they wait in '
                       f'{self.spool.path} for the next run or '
                       f'"hpc-acceptance export --replay"')

    def _send(self):
        while True:
            self._wake.wait()
            self._wake.clear()
            closing = self._closing
            if not self.refused:
                self._send_waiting()

            if closing:
                return

    def emit(self, record):
        try:
            samples = series.case_lines(case_of(record), self.extras)
            if samples:
                self.spool.hold(self.spool.unsent(samples),
                                self.refused or self.UNSENT)
        except Exception as err:
            # A log handler that raises costs ReFrame its record; this one
            # says, once, what was lost and where it can still be found.
            if not self._lost:
                self._lost = True
                self._warn(f'the figures of {record.check_display_name} '
                           f'were not exported ({type(err).__name__}: '
                           f'{err}), nor those of the checks after it that '
                           f'meet the same error; they are in the results '
                           f'database: "hpc-acceptance export --since" '
                           f'sends them')
            return

        if samples:
            if not self._sender.is_alive() and not self._closing:
                self._sender.start()

            self._wake.set()

    def close(self):
        if self._sender.is_alive():
            self._closing = True
            self._wake.set()
            self._sender.join(2 * self.export.timeout_s)

        if self.refused and not self._sender.is_alive():
            # records logged while the store was refusing them were held
            # as unsent: they wait for the reason the store gave
            try:
                self.spool.hold(self.spool.waiting_samples(), self.refused)
            except Exception as err:
                self._warn(f'cannot update {self.spool.path}: {err}')

        super().close()


@register_log_handler(TYPE)
def _create_handler(site_config, config_prefix):
    # ReFrame's process is given no settings but its environment
    export = settings.of_directory(site.named())
    if export is None or os.environ.get(node_scheduler.ON_NODE):
        # a fleet night's node run: its coordinator sends the night's
        # figures, once, from the report it collects
        return logging.NullHandler()

    # ReFrame's own default where no configuration names one
    database = osext.expandvars(site_config.get('storage/0/sqlite_db_file'))
    return ExportHandler(
        export, spool.Spool(spool.path_beside(os.path.abspath(database)),
                            export.url),
        session_extras(sys.argv[1:],
                       lambda mode: site_config.get(f'modes/@{mode}/options'))
    )
