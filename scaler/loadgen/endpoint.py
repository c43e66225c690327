"""Where OpenAI-compatible requests go: vLLM (`/v1`), KServe (`/openai/v1`) or our emulator.

The user passes the service URL as they know it: `http://host:8000` (vLLM, the emulator),
`http://host/openai` (KServe's OpenAI route prefix), or a full `.../v1/completions` URL.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

APIS = {"completions": "/completions", "chat": "/chat/completions"}


@dataclass(frozen=True)
class Endpoint:
    base: str  # ends with /v1, no trailing slash
    api: str  # "completions" or "chat"

    @property
    def url(self) -> str:
        return self.base + APIS[self.api]

    @property
    def models_url(self) -> str:
        return self.base + "/models"

    @classmethod
    def from_url(cls, url: str, api: str | None = None) -> "Endpoint":
        """Resolve a user-given URL; `api` None means completions unless the URL names chat."""
        if api is not None and api not in APIS:
            raise ValueError(f"api: expected one of {', '.join(APIS)}, got {api!r}")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"url: expected an http(s) URL like http://127.0.0.1:8000 or http://host/openai, got {url!r}")
        if parts.query or parts.fragment:
            raise ValueError(f"url: expected no query string or fragment, got {url!r}")
        path = parts.path.rstrip("/")
        for name, suffix in APIS.items():
            if path.endswith("/v1" + suffix):
                if api is not None and api != name:
                    raise ValueError(f"api: {api!r} contradicts the URL path {parts.path!r}")
                api = name
                path = path[: -len(suffix)]
                break
        if not path.endswith("/v1"):
            path += "/v1"
        return cls(urlunsplit((parts.scheme, parts.netloc, path, "", "")), api or "completions")
