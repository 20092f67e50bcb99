'''A run's shifts across nights as samples of the site's time-series
store, next to the figures they shifted (:mod:`hpc_acceptance.core.export.
series`): labelled as the figure, plus ``since`` (the first night at the
new level, ``YYYY-MM-DD``), at the time tonight's figure completed.

- :data:`SHIFT`: the relative size of the shift from the accepted level
  (``-0.07``: 7 % less), all of it however many steps it took;
- :data:`SHIFT_ERRORS`: the difference of the levels in standard errors
  (the detection gives no calibrated confidence; the
  ``hpc_acceptance_shift_confidence`` of Otava's p-value is no longer
  sent);
- :data:`SHIFT_FAILED`: 1 where it fails the run (beyond the figure's
  reference tolerance, the site's shift limit or its noise floor), 0 where
  it does not.

A figure back at its accepted level (recovered) sends nothing: it is no
shift.
'''

import sys

from hpc_acceptance.core.export import series
from hpc_acceptance.tools.results.runs import final_testcases
from hpc_acceptance.tools.shifts import nightly

SHIFT = 'hpc_acceptance_shift'
SHIFT_ERRORS = 'hpc_acceptance_shift_standard_errors'
SHIFT_FAILED = 'hpc_acceptance_shift_failed'


def lines(shifts, extras):
    '''The samples of ``shifts`` (:func:`.nightly.shifts_of`) of a run whose
    session extras are ``extras``.'''
    samples = []
    for shift in shifts:
        when = shift.case.get('job_completion_time_unix')
        if when is None or shift.recovered:
            continue

        labels = dict(series.case_labels(shift.case, extras),
                      figure=shift.variable, since=nightly.date(shift.since))
        if shift.unit:
            labels['unit'] = str(shift.unit)

        at = series.timestamp_ms(when)
        samples += [series.line(SHIFT, labels, shift.point.size, at),
                    series.line(SHIFT_ERRORS, labels,
                                round(shift.point.errors, 2), at),
                    series.line(SHIFT_FAILED, labels, int(shift.failing),
                                at)]

    return samples


def shift_samples(reports, found, db_path, limits=None):
    '''The samples of the shifts of a run, from its parsed ReFrame reports
    in order (a fleet run: the nodes' run, its rerun, the multi-node run),
    ``found`` its ``(shifts, why there are none)`` where the run's end
    found them already, else found against the results database
    ``db_path`` with the site's ``limits``; none where the
    acknowledgements cannot be read (the verdict says why).'''
    if found is None:
        cases = final_testcases({'runs': [run for report in reports
                                          for run in report.get('runs') or
                                          []]})
        try:
            found = nightly.shifts_of(cases, limits, db_path), None
        except nightly.UNREADABLE as err:
            found = [], str(err)

    shifts, error = found
    if error:
        print(f'export: no shifts sent: {error}', file=sys.stderr)
        return []

    return lines(shifts, reports[0]['session_info'])
