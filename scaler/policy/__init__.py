"""The pure decision core: signals in, a decision with reasons out. No I/O, no clock reads."""

from scaler.policy.config import ConfigError, PolicyConfig
from scaler.policy.decide import Decision, ModelState, decide
from scaler.policy.signals import Snapshot, SignalWindow

__all__ = ["ConfigError", "Decision", "ModelState", "PolicyConfig", "Snapshot", "SignalWindow", "decide"]
