"""The RLS v3 messages (proto/rls.proto, generated into scaler/_protos)."""

from scaler import protos

rls = protos.load("rls.proto")
SHOULD_RATE_LIMIT = rls.method("RateLimitService", "ShouldRateLimit")
