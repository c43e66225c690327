"""`slo-scaler emulate`: vLLM's OpenAI-compatible API and /metrics on the engine model's timing."""
