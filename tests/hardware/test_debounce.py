from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.base import PRESENT, SensorEvent
from hardware.debounce import Debouncer

W = 0.020


def ev(value, t, channel=4):
    return SensorEvent(channel, value, t)


def test_a_change_is_reported_once_after_the_window_with_the_last_edge_time():
    d = Debouncer(W)
    d.feed(ev(PRESENT, 1.000))
    assert d.next_deadline() == 1.000 + W
    assert d.due(1.019) == []
    assert d.due(1.020) == [ev(PRESENT, 1.000)]
    assert d.due(5.0) == []
    assert d.next_deadline() is None
    assert d.settled() == {4: PRESENT}


def test_a_bounce_back_to_the_settled_value_never_reports():
    d = Debouncer(W)
    d.feed(ev(PRESENT, 1.000))
    d.feed(ev(None, 1.003))
    assert d.next_deadline() is None
    assert d.due(2.0) == []


def test_each_edge_restarts_the_window_and_the_final_value_wins():
    d = Debouncer(W)
    d.feed(ev(PRESENT, 1.000))
    d.feed(ev(None, 1.004))
    d.feed(ev(PRESENT, 1.010))
    assert d.due(1.025) == []  # 15 ms after the last edge
    assert d.next_deadline() == 1.010 + W
    assert d.due(1.030) == [ev(PRESENT, 1.010)]


def test_a_kind_change_on_a_classifying_sensor_is_a_change():
    d = Debouncer(W, initial={(0, 1): "dark-leaf"})
    d.feed(ev("dark-branch", 1.0, (0, 1)))
    assert d.due(1.1) == [ev("dark-branch", 1.0, (0, 1))]


def test_channels_settle_independently_oldest_first():
    d = Debouncer(W)
    d.feed(ev(PRESENT, 1.005, "b"))
    d.feed(ev(PRESENT, 1.000, "a"))
    assert d.next_deadline() == 1.000 + W
    assert [e.channel for e in d.due(1.1)] == ["a", "b"]


def test_reset_takes_a_snapshot_as_settled_and_drops_pending():
    d = Debouncer(W)
    d.feed(ev(PRESENT, 1.0))
    d.reset({4: PRESENT})
    assert d.pending() == {}
    d.feed(ev(PRESENT, 1.1))
    assert d.due(2.0) == []


def test_zero_window_reports_at_the_edge_time():
    d = Debouncer(0)
    d.feed(ev(PRESENT, 1.0))
    assert d.due(1.0) == [ev(PRESENT, 1.0)]


def test_negative_window_is_refused():
    import pytest

    with pytest.raises(ValueError, match="window"):
        Debouncer(-0.001)


# A raw signal: a list of (gap before the edge in ms, value). Bounces are edges closer than the
# window; the property compares the debouncer with a plain reading of "held for the window".
# Time runs in whole milliseconds here (window 20) so that no float rounding blurs the edge.
edges = st.lists(st.tuples(st.integers(1, 60), st.sampled_from([None, PRESENT])), max_size=30)


@settings(max_examples=300, deadline=None)
@given(edges)
def test_settled_changes_are_exactly_the_values_held_for_the_window(signal):
    d = Debouncer(20)
    t, raw, settled = 0, None, None
    out, expected = [], []
    for gap_ms, value in signal:
        # Before this edge the previous raw value held for gap_ms: settled if that is >= window.
        if gap_ms >= 20 and raw != settled:
            expected.append(raw)
            settled = raw
        t += gap_ms
        out += d.due(t)  # at the edge's instant, before it is fed
        d.feed(ev(value, t))
        raw = value
    if raw != settled:
        expected.append(raw)
    out += d.due(t + 1000)
    assert [e.value for e in out] == expected
    assert all(a.value != b.value for a, b in zip(out, out[1:]))
