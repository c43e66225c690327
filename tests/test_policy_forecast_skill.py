"""The arrival trend's forecasts, scored one scale-up latency later against the rate that came."""

import pytest

from scaler.policy import forecast_skill as fs
from scaler.policy.headroom import HISTORY_HALF_LIFE_S

L = 60.0


def _run(skill, start, rates, forecasts):
    """One tick a second from `start`: the rate and the trend's forecast at each."""
    for i, (rate, forecast) in enumerate(zip(rates, forecasts)):
        skill = fs.observe(skill, start + i, rate=rate, forecast=forecast, horizon_s=L)
    return skill


def test_a_model_without_scored_forecasts_extrapolates_the_whole_rise():
    skill = fs.ForecastSkill()
    assert skill.share == 1.0
    # Forecasts wait for their horizon: 59 s of them are open, none scored yet.
    skill = _run(skill, 0.0, [10.0] * 60, [20.0] * 60)
    assert skill.share == 1.0 and skill.weight == 0.0 and len(skill.open) == 59


def test_a_rise_that_stopped_lowers_the_share_and_one_that_came_keeps_it():
    # A step: 10/s forecast to rise to 20/s for 30 s, and the rate one latency later is still 10/s.
    stopped = _run(fs.ForecastSkill(), 0.0, [10.0] * 30 + [10.0] * 70, [20.0] * 30 + [10.0] * 70)
    assert stopped.weight == pytest.approx(29.0, rel=0.02)  # the first tick has no seconds to stand for
    assert stopped.share == pytest.approx(fs.PRIOR_S / (fs.PRIOR_S + 29.0), rel=0.02)
    assert stopped.share < 0.35  # a third, as PRIOR_S says
    # A ramp: the same forecasts, and the rate one latency later is what they said.
    came = _run(fs.ForecastSkill(), 0.0, [10.0] * 30 + [20.0] * 70, [20.0] * 30 + [20.0] * 70)
    assert came.share == pytest.approx(1.0)
    # Half of the rise came: half the share beyond the prior's.
    half = _run(fs.ForecastSkill(), 0.0, [10.0] * 30 + [15.0] * 70, [20.0] * 30 + [15.0] * 70)
    assert half.share == pytest.approx((fs.PRIOR_S + 0.5 * 29.0) / (fs.PRIOR_S + 29.0), rel=0.02)


def test_a_rise_beyond_the_forecast_counts_as_carried_not_more():
    beyond = _run(fs.ForecastSkill(), 0.0, [10.0] * 30 + [40.0] * 70, [20.0] * 30 + [40.0] * 70)
    assert beyond.share == pytest.approx(1.0)


def test_what_was_learned_fades_with_the_burst_history_s_half_life():
    stopped = _run(fs.ForecastSkill(), 0.0, [10.0] * 100, [20.0] * 30 + [10.0] * 70)
    later = fs.observe(stopped, 99.0 + HISTORY_HALF_LIFE_S, rate=10.0, forecast=10.0, horizon_s=L)
    assert later.weight == pytest.approx(stopped.weight / 2)
    assert stopped.share < later.share < 1.0


def test_a_stalled_scrape_stands_for_at_most_max_tick_seconds():
    skill = fs.observe(fs.ForecastSkill(), 0.0, rate=10.0, forecast=10.0, horizon_s=L)
    skill = fs.observe(skill, 600.0, rate=10.0, forecast=20.0, horizon_s=L)
    assert skill.open == ((600.0, 10.0, 20.0, fs.MAX_TICK_S),)
