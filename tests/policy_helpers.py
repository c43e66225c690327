"""A manual-clock driver for multi-tick policy scenarios (Knative-style)."""

from __future__ import annotations

from dataclasses import dataclass, field

from scaler.policy import ModelState, PolicyConfig, SignalWindow, Snapshot, decide
from scaler.policy.decide import Decision


@dataclass
class Scenario:
    config: PolicyConfig
    now: float = 0.0
    completed: float = 0.0
    window: SignalWindow = None
    state: ModelState = field(default_factory=ModelState)
    decisions: list[Decision] = field(default_factory=list)

    def __post_init__(self):
        self.window = SignalWindow(self.config.rate_window_s)

    def tick(self, *, dt: float = 1.0, waiting: float, running: float, ready: int,
             completions_per_s: float, starting_ages=None, arrivals_total=None,
             prompt_tokens_in_flight=None, generation_tokens_total=None, prompt_tokens_total=None,
             refused_total=None) -> Decision:
        self.now += dt
        self.completed += completions_per_s * dt
        self.window.push(Snapshot(time=self.now, waiting=waiting, running=running, ready_replicas=ready,
                                  completed_total=self.completed, starting_ages=starting_ages,
                                  arrivals_total=arrivals_total,
                                  prompt_tokens_in_flight=prompt_tokens_in_flight,
                                  generation_tokens_total=generation_tokens_total,
                                  prompt_tokens_total=prompt_tokens_total, refused_total=refused_total))
        decision, self.state = decide("m", self.config, self.window, self.state, self.now)
        self.decisions.append(decision)
        return decision

    def hold(self, seconds: int, **signal) -> Decision:
        decision = None
        for _ in range(seconds):
            decision = self.tick(**signal)
        return decision

    @property
    def transitions(self) -> list[tuple[str, str]]:
        return [(d.previous_state.value, d.state.value) for d in self.decisions if d.state_changed]
