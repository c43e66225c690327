"""Load generation: an OpenAI-compatible streaming load test (loadtest) and per-replica calibration."""
