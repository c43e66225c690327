import pytest

from scaler.policy import ConfigError, PolicyConfig
from scaler.policy.config import METADATA_KEYS


def test_metadata_round_trip_keeps_every_value():
    config = PolicyConfig(ttft_slo_s=1.5, tpot_slo_s=0.1, scale_up_latency_s=None, per_replica_capacity_rps=4.0, capacity_prior_rps=3.0,
                          prefill_tps=28000.0, capacity_prompt_tokens=512.0, burst_replicas=4.0, burst_recurrence=0.25)
    assert PolicyConfig.from_metadata(config.to_metadata()) == config
    assert set(config.to_metadata()) == set(METADATA_KEYS)


def test_defaults_apply_under_metadata():
    config = PolicyConfig.from_metadata({"ttftSloSeconds": "3"}, defaults={"ttftSloSeconds": "9", "targetUtilization": "0.5"})
    assert config.ttft_slo_s == 3.0 and config.target_utilization == 0.5


def test_auto_means_learned():
    config = PolicyConfig.from_metadata({"scaleUpLatencySeconds": "auto", "perReplicaCapacity": "AUTO"})
    assert config.scale_up_latency_s is None and config.per_replica_capacity_rps is None


@pytest.mark.parametrize(
    "key, raw, expected",
    [
        ("ttftSloSeconds", "abc", "a number in (0.0, 3600.0]"),
        ("ttftSloSeconds", "-1", "a number"),
        ("ttftSloSeconds", "nan", "a number"),
        ("ttftSloSeconds", "0", "a number"),
        ("targetUtilization", "1.5", "(0.0, 1.0]"),
        ("requestClass", "vip", "interactive|agent|background|batch"),
        ("requestClass", 'interactive"} or vector(1)', "interactive|agent|background|batch"),
        ("scaleUpLatencySeconds", "soon", "or 'auto'"),
        ("perReplicaCapacity", "1\nmodel: x", "or 'auto'"),
        ("stateHoldSeconds", "inf", "a number"),
    ],
)
def test_bad_values_name_the_key_and_the_expectation(key, raw, expected):
    with pytest.raises(ConfigError) as err:
        PolicyConfig.from_metadata({key: raw})
    assert err.value.key == key
    assert str(err.value).startswith(f"{key}: expected")
    assert expected in str(err.value)


@pytest.mark.parametrize(
    "metadata, key",
    [
        ({"ttftSloSeconds": "1", "expectedPrefillSeconds": "1"}, "expectedPrefillSeconds"),
        ({"yellowEnterRatio": "0.3", "yellowExitRatio": "0.4"}, "yellowExitRatio"),
        ({"redEnterRatio": "0.5", "redExitRatio": "0.9"}, "redExitRatio"),
        ({"yellowEnterRatio": "2", "yellowExitRatio": "0.3"}, "yellowEnterRatio"),
        ({"capacityPromptTokens": "512"}, "capacityPromptTokens"),  # weighs nothing without prefillTokensPerSecond
    ],
)
def test_inconsistent_combinations_are_rejected(metadata, key):
    with pytest.raises(ConfigError) as err:
        PolicyConfig.from_metadata(metadata)
    assert err.value.key == key
