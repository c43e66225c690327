"""slo-scaler: queue-SLO autoscaling and load shedding for vLLM on Kubernetes."""

__version__ = "0.1.0"
