"""Per-model runtime config: what `slo-scaler render` writes into the scaler's ConfigMap and
`slo-scaler serve --config DIR|FILE` enforces (SLO, calibration, class, tenants, quotas, status
codes, shadow mode). Format and schema: scaler.modelconfig.schema; docs/modelconfig.md.

`from_spec` (in scaler.modelconfig.build, not imported here so `serve` stays light) is the one
function turning a model spec into these values for render, the simulator and the demo.
"""

from scaler.modelconfig.load import LoadedConfig, ModelConfigError, load_path, parse_config
from scaler.modelconfig.runtime import ModelAdmission, ModelSettings, ModelShedding
from scaler.modelconfig.schema import ModelConfig, json_schema

__all__ = ["LoadedConfig", "ModelAdmission", "ModelConfig", "ModelConfigError", "ModelSettings", "ModelShedding",
           "json_schema", "load_path", "parse_config"]
