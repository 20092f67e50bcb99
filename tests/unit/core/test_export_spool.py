'''What waits for the store and what it took
(hpc_acceptance.core.export.spool).'''

from hpc_acceptance.core.export import series, spool


def samples(names, when):
    return [series.line(name, {'check': 'C', 'figure': 'f'}, 1.0, when)
            for name in names]


def test_the_spool_is_beside_the_results_database(tmp_path):
    assert spool.path_beside(tmp_path / 'results.db') == \
        tmp_path / 'results-export.db'


def test_nothing_waits_where_nothing_was_kept(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db')
    assert waiting.waiting() == spool.Waiting(0, 0)
    assert waiting.waiting_samples() == []
    first = samples([series.FIGURE], 5)
    assert waiting.unsent(first) == first
    assert not waiting.path.exists()


def test_held_samples_wait_with_their_reason_until_delivered(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db')
    night = samples([series.FIGURE, series.FIGURE_PASSED], 5)
    waiting.hold(night, 'HTTP 429')
    waiting.hold(night, 'HTTP 500')
    left = waiting.waiting()
    assert (left.figures, left.samples, left.reason) == (1, 2, 'HTTP 500')
    assert waiting.waiting_samples() == night

    waiting.delivered(night)
    assert waiting.waiting().samples == 0
    assert waiting.unsent(night + samples([series.FIGURE], 6)) == \
        samples([series.FIGURE], 6)
