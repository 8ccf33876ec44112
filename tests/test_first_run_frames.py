"""The first-run bench's arithmetic: frames and gaps counted in the window of seconds after the first token."""
from __future__ import annotations

import pytest

from bench.first_run_frames import FrameLog


def _log(frame_starts, text_starts=()):
    log = FrameLog()
    log.frames = [(s, 0.002, 0.001) for s in frame_starts]
    log.texts = [(s, 0.001, 0.0005) for s in text_starts]
    return log


def test_the_longest_gap_counts_the_wait_before_the_first_frame_and_after_the_last():
    summary = _log([10.3, 10.4, 11.9]).summary(10.0, 3.0)
    assert summary["frames"] == 3
    assert summary["max_frame_gap_ms"] == pytest.approx(1500.0)
    assert _log([10.3]).summary(10.0, 3.0)["max_frame_gap_ms"] == pytest.approx(2700.0)  # the last to the end
    assert _log([12.9]).summary(10.0, 3.0)["max_frame_gap_ms"] == pytest.approx(2900.0)  # the first token to it


def test_frames_outside_the_seconds_after_the_first_token_are_left_out():
    summary = _log([9.9, 10.5, 13.0, 14.0], [10.1, 15.0]).summary(10.0, 3.0)
    assert summary["frames"] == 1 and summary["texts"] == 1
    assert summary["frame_cpu_ms"] == pytest.approx(1.0)
    assert summary["max_text_gap_ms"] == pytest.approx(2900.0)


def test_a_run_without_frames_is_one_gap_of_all_its_seconds():
    summary = _log([]).summary(5.0, 2.0)
    assert summary["frames"] == 0 and summary["max_frame_gap_ms"] == pytest.approx(2000.0)
    assert summary["max_frame_cpu_ms"] == 0


def test_a_process_cpu_time_grows_with_work_and_is_zero_for_no_process():
    import os
    import time

    from bench.first_run_frames import process_cpu_s

    before = process_cpu_s(os.getpid())
    end = time.process_time() + 0.05
    while time.process_time() < end:
        pass
    assert process_cpu_s(os.getpid()) > before
    assert process_cpu_s(None) == 0.0
