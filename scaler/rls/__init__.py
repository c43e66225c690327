"""The Envoy rate-limit service (RLS v3) that sheds load: gRPC adapter over scaler.admission."""
