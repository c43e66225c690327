"""Regenerate scaler/_protos/*.binpb from proto/*.proto (run after editing a .proto file).

    python scripts/gen_protos.py
"""

from __future__ import annotations

from pathlib import Path

from scaler.protos import GENERATED_DIR, SUFFIX, compile_descriptor_set

PROTO_DIR = Path(__file__).resolve().parents[1] / "proto"


def main() -> None:
    for source in sorted(PROTO_DIR.glob("*.proto")):
        target = GENERATED_DIR / (source.stem + SUFFIX)
        target.write_bytes(compile_descriptor_set(source))
        print(f"{source.relative_to(PROTO_DIR.parent)} -> {target.relative_to(PROTO_DIR.parent)}")


if __name__ == "__main__":
    main()
