"""The burst simulator: the shared replica model and the real policy core on a virtual clock,
against baseline policies, with `slo-scaler bench` on top."""
