"""Signal sources: what vLLM's queue looks like now, per model, from Prometheus or a direct scrape.

One interface (base.Source): a round of I/O per poll cycle serves every model of the source.
"""

from scaler.sources.base import ModelQuery, Observation, Source, SourceError

__all__ = ["ModelQuery", "Observation", "Source", "SourceError"]
