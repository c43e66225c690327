"""`slo-scaler demo`: the closed loop (emulator, Prometheus, serve, Envoy, KEDA + HPA actuator) on one machine."""
