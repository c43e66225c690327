"""Engine parameters of one vLLM replica, named after vLLM's own flags.

The defaults describe Llama-3.1-8B-Instruct (BF16) on one H100 80GB SXM with vLLM V1's
defaults; docs/engine.md derives every number and names its source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCHEDULING_POLICIES = ("fcfs", "priority")


@dataclass(frozen=True)
class EngineParams:
    # Scheduler limits (vLLM: --max-num-seqs, --max-num-batched-tokens, --max-model-len).
    max_num_seqs: int = 1024
    max_num_batched_tokens: int = 8192
    max_model_len: int = 131072
    enable_chunked_prefill: bool = True
    scheduling_policy: str = "fcfs"
    # Paged KV cache: capacity in tokens (vLLM logs it as "GPU KV cache size"), split in blocks.
    kv_cache_tokens: int = 450_000
    block_size: int = 16
    # Step time: step_s = step_base_s + prefill_s_per_token * prefill_tokens
    #                     + decode_s_per_seq * decode_seqs + kv_read_s_per_token * context_tokens
    step_base_s: float = 0.0062
    prefill_s_per_token: float = 0.000035
    decode_s_per_seq: float = 0.00029
    kv_read_s_per_token: float = 4.0e-8

    @property
    def num_gpu_blocks(self) -> int:
        return self.kv_cache_tokens // self.block_size

    def blocks_for(self, tokens: int) -> int:
        """KV blocks holding `tokens` tokens (vLLM allocates whole blocks)."""
        return math.ceil(tokens / self.block_size)

    def step_time(self, prefill_tokens: int, decode_seqs: int, context_tokens: int) -> float:
        """Duration of one engine iteration with this batch, in model seconds."""
        return (
            self.step_base_s
            + self.prefill_s_per_token * prefill_tokens
            + self.decode_s_per_seq * decode_seqs
            + self.kv_read_s_per_token * context_tokens
        )

    def validate(self) -> EngineParams:
        """Raise ValueError naming the first bad field; return self so calls chain."""
        for name in ("max_num_seqs", "max_num_batched_tokens", "max_model_len", "kv_cache_tokens", "block_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: expected a positive integer, got {value!r}")
        for name in ("step_base_s", "prefill_s_per_token", "decode_s_per_seq", "kv_read_s_per_token"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name}: expected a finite number >= 0 (seconds), got {value!r}")
        if not isinstance(self.enable_chunked_prefill, bool):
            raise ValueError(f"enable_chunked_prefill: expected true or false, got {self.enable_chunked_prefill!r}")
        if self.scheduling_policy not in SCHEDULING_POLICIES:
            raise ValueError(
                f"scheduling_policy: expected one of {', '.join(SCHEDULING_POLICIES)}, got {self.scheduling_policy!r}"
            )
        if self.num_gpu_blocks < self.blocks_for(self.max_model_len):
            # vLLM refuses to start when one max-length sequence cannot fit in the KV cache.
            raise ValueError(
                f"kv_cache_tokens: {self.kv_cache_tokens} tokens ({self.num_gpu_blocks} blocks of {self.block_size}) "
                f"cannot hold one sequence of max_model_len={self.max_model_len}"
            )
        if not self.enable_chunked_prefill and self.max_num_batched_tokens < self.max_model_len:
            # Without chunking a whole prompt must fit one step's token budget (vLLM checks the same).
            raise ValueError(
                f"max_num_batched_tokens: {self.max_num_batched_tokens} is smaller than max_model_len="
                f"{self.max_model_len}; enable chunked prefill or raise the budget"
            )
        return self
