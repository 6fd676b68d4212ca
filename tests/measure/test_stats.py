"""Statistics, the stopping rule, throttle dropping and bandwidth math: pure functions, table cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from measure.store import stats
from measure.store.stats import Rule


@pytest.mark.parametrize(
    "xs",
    [
        [1.0],
        [3.0, 1.0],
        [1.0, 2.0, 3.0, 4.0],
        [5.0, 1.0, 4.0, 2.0, 3.0],
        [0.1 * i for i in range(17)],
        [2.5, 2.5, 2.5, 9.0],
    ],
)
@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_quantiles_match_numpys_linear_method(xs: list[float], q: float) -> None:
    assert stats.quantile(sorted(xs), q) == pytest.approx(float(np.quantile(xs, q)), rel=1e-15, abs=1e-15)


def test_quantile_refuses_nothing_and_out_of_range() -> None:
    with pytest.raises(ValueError, match="quantile of no samples"):
        stats.quantile([], 0.5)
    with pytest.raises(ValueError, match="outside"):
        stats.quantile([1.0], 1.5)


def test_mean_stdev_and_relative_stdev() -> None:
    xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
    assert stats.mean(xs) == 5.0
    assert stats.stdev(xs) == pytest.approx(float(np.std(xs, ddof=1)))
    assert stats.rel_stdev(xs) == pytest.approx(float(np.std(xs, ddof=1)) / 5.0)
    assert stats.stdev([3.0]) == 0.0
    assert stats.rel_stdev([3.0]) == math.inf  # one sample says nothing about noise
    assert stats.rel_stdev([0.0, 0.0]) == math.inf


@pytest.mark.parametrize(
    ("clocks", "threshold", "kept"),
    [
        ([1980, 1980, 1400, 1485], 1485, [True, True, False, True]),
        ([-1, -1], 1485, [True, True]),  # no NVML: nothing can be called throttled
        ([300, 1980], 0, [True, True]),  # threshold 0: not checked
    ],
)
def test_throttled_samples_are_the_ones_under_the_clock_threshold(
    clocks: list[int], threshold: int, kept: list[bool]
) -> None:
    assert stats.kept_mask(clocks, threshold) == kept


RULE = Rule(min_samples=10, min_gpu_time_s=0.5, max_rel_stdev=0.005)


@pytest.mark.parametrize(
    ("times", "converged"),
    [
        ([100.0] * 10, True),  # 10 samples, 1 s, no noise
        ([100.0] * 9, False),  # too few samples, however long
        ([10.0] * 49, False),  # 0.49 s of GPU time
        ([10.0] * 50, True),  # exactly 0.5 s
        ([100.0, 101.0] * 10, False),  # 0.5 % relative stdev is the edge: this is 0.51 %
        ([100.0, 100.9] * 10, True),
    ],
)
def test_stopping_rule(times: list[float], converged: bool) -> None:
    assert stats.converged(times, RULE) is converged


def test_summary_keeps_full_clock_samples_only_and_flags_noise() -> None:
    times = [1.0] * 10 + [5.0, 5.0]  # the two slow samples ran throttled
    clocks = [1980] * 10 + [900, 900]
    s = stats.summarize(times, clocks, 1485, Rule(10, 0.005, 0.005))
    assert (s.n_total, s.n_kept, s.n_throttled) == (12, 10, 2)
    assert (s.median_ms, s.iqr_ms, s.max_ms, s.gpu_time_s) == (1.0, 0.0, 1.0, 0.01)
    assert s.noisy is False
    noisy = stats.summarize([1.0, 2.0] * 10, [1980] * 20, 1485, Rule(10, 0.005, 0.005))
    assert noisy.noisy is True and noisy.median_ms == 1.5 and noisy.q1_ms == 1.0 and noisy.q3_ms == 2.0
    slow = stats.summarize([1.0] * 10, [1980] * 10, 1485, Rule(10, 0.5, 0.005))
    assert slow.noisy is True  # converged in spread, but 10 ms of GPU time is under 0.5 s


def test_summary_refuses_inconsistent_or_fully_throttled_samples() -> None:
    with pytest.raises(ValueError, match="2 times but 1 clock readings"):
        stats.summarize([1.0, 2.0], [1980], 0, RULE)
    with pytest.raises(ValueError, match="no sample ran at full clock"):
        stats.summarize([1.0, 2.0], [100, 100], 1485, RULE)


def test_summary_is_deterministic_to_the_bit() -> None:
    rng = np.random.default_rng(7)
    times = [float(x) for x in rng.random(5000)]
    a = stats.summarize(times, [1980] * 5000, 1485, RULE)
    b = stats.summarize(list(times), [1980] * 5000, 1485, RULE)
    assert a == b and a.mean_ms == math.fsum(times) / 5000


def test_bandwidth_math() -> None:
    # The H200's datasheet figure: 2 transfers x 3201 MHz x 6016 bits / 8 = 4814 GB/s (decimal).
    assert stats.theoretical_peak_gbps(3201, 6016) == pytest.approx(4814.304)
    assert stats.gbps(2_000_000_000, 1000.0) == 2.0  # 2e9 bytes in 1 s
    assert stats.gbps(512 * 2**20, 0.125) == pytest.approx(4294.967296)  # 512 MiB in 125 us
    assert stats.gflops(2 * 4096**3, 4.0) == pytest.approx(34359.738368)
    assert stats.percent(3.0, 4.0) == 75.0
    assert math.isnan(stats.percent(1.0, 0.0))
    with pytest.raises(ValueError, match="time must be positive"):
        stats.gbps(1, 0.0)


def test_suspect_flags_at_their_edges() -> None:
    l2 = 60 * 2**20
    assert stats.fits_in_l2(l2, l2) and not stats.fits_in_l2(l2 + 1, l2)
    assert not stats.above_peak_fraction(95.0, 100.0) and stats.above_peak_fraction(95.01, 100.0)
