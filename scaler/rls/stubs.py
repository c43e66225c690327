"""The RLS v3 messages (proto/rls.proto, symlinked next to this module so wheels carry it)."""

from pathlib import Path

from scaler import protos

rls = protos.load("rls.proto", Path(__file__).parent)
SHOULD_RATE_LIMIT = rls.method("RateLimitService", "ShouldRateLimit")
