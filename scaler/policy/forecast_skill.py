"""How far the arrival trend has carried: each forecast the trend made, checked one scale-up
latency later against the rate that came, learned online per model.

The forecast extrapolates a rise over the scale-up horizon L, `lambda + trend x L`, so that
capacity asked for now is there for the rate when it lands. A ramp goes on and the forecast comes
true. A step (a canary's traffic handed back at once, a circuit breaker closing, a Markov-modulated
stream changing state) reads as the same rise for one horizon and then stops, and a replica asked
for on it is cancelled or released with nothing to do. So the policy keeps the forecasts it made
and, once L has passed, scores each by the share of its rise that came:

    carried = clamp((lambda(t + L) - lambda(t)) / (forecast(t) - lambda(t)), 0, 1)

and extrapolates the trend at the mean carried share, each forecast weighted by the seconds it
stood for, with a prior of PRIOR_S seconds of forecasts that came true (a model that has shown no
rise yet trusts its first). Weights halve every HISTORY_HALF_LIFE_S, as the burst history's do.
The score is of the trend's own forecast, not of the shrunk one the policy acts on, and the
arrivals do not depend on the fleet, so what the policy does with it cannot bias it. Pure
functions of numbers and a small frozen state.
"""

from __future__ import annotations

from dataclasses import dataclass

from scaler.policy.headroom import HISTORY_HALF_LIFE_S

# Seconds of forecasts that came true a model starts with: a quarter of a default scale-up's, so the
# 30 s of forecasts one step makes, none carried, take the extrapolation to a third, and a ramp's
# own forecasts bring it back as they come true.
PRIOR_S = 15.0
# A forecast stands for the seconds to the next tick, but no more than this: a scrape that stalls
# for minutes is one forecast, not minutes of them.
MAX_TICK_S = 15.0


@dataclass(frozen=True)
class ForecastSkill:
    open: tuple[tuple[float, float, float, float], ...] = ()  # (time, rate, forecast, seconds) awaiting their horizon
    weight: float = 0.0  # decayed seconds of scored forecasts
    carried: float = 0.0  # decayed seconds x carried share
    last: float | None = None  # time of the last update

    @property
    def share(self) -> float:
        """The share of the trend's rise to extrapolate: the prior and the scored forecasts' mean."""
        return (PRIOR_S + self.carried) / (PRIOR_S + self.weight)


def observe(skill: ForecastSkill, now: float, *, rate: float, forecast: float, horizon_s: float) -> ForecastSkill:
    """One tick: score the forecasts whose horizon has passed against `rate`, and keep this tick's
    forecast (the trend's, before the share) if it rises above the rate."""
    elapsed = 0.0 if skill.last is None else max(0.0, now - skill.last)
    decay = 0.5 ** (elapsed / HISTORY_HALF_LIFE_S)
    weight, carried = skill.weight * decay, skill.carried * decay
    still = []
    for made, then, expected, seconds in skill.open:
        if now - made < horizon_s:
            still.append((made, then, expected, seconds))
            continue
        came = min(1.0, max(0.0, (rate - then) / (expected - then)))
        age = 0.5 ** ((now - made - horizon_s) / HISTORY_HALF_LIFE_S)
        weight += seconds * age
        carried += seconds * age * came
    seconds = min(elapsed, MAX_TICK_S)
    if forecast > rate and seconds > 0:
        still.append((now, rate, forecast, seconds))
    return ForecastSkill(tuple(still), weight, carried, now)
