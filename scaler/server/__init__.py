"""`slo-scaler serve`: the KEDA external scaler (gRPC), its poll loop and its own /metrics.

Layers: metadata (the trigger contract) -> registry (models, windows, decisions) -> poller
(sources -> policy, every --poll-interval) -> servicer (KEDA's four RPCs, reads only) and
metrics (a Collector). app.py wires them with the rate-limit service into one process.
"""
