"""Pure models of the Kubernetes actuators: the HPA (replica calculation, tolerance, behaviors,
stabilisation windows, sync period) and KEDA on top of it (pollingInterval, activation, cached
metrics). Time is always a parameter."""

from scaler.autoscaling.hpa import (
    DEFAULT_SCALE_DOWN, DEFAULT_SCALE_UP, HpaDecision, HpaSpec, HpaState, Reading, ScalingPolicy, ScalingRules,
    replicas_for,
)
from scaler.autoscaling.keda import KedaSpec, KedaState, ScaleStep, Trigger, step

__all__ = [
    "DEFAULT_SCALE_DOWN", "DEFAULT_SCALE_UP", "HpaDecision", "HpaSpec", "HpaState", "KedaSpec", "KedaState",
    "Reading", "ScaleStep", "ScalingPolicy", "ScalingRules", "Trigger", "replicas_for", "step",
]
