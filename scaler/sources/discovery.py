"""Kubernetes pod discovery behind a narrow seam: which pods serve a model, which are ready, and
how long the others have been starting.

`PodLister` is the seam (one method). `KubernetesPodLister` implements it with the official
`kubernetes` client (pods by label selector: one call gives readiness, IPs and creation times;
RBAC: list pods in the model's namespace). `Discovery` caches listings for `refresh_s` so a
1 s poll of many models does not list pods every second.

A discovered target names its pod (`namespace/name`, as `kubectl get pods` shows it) next to its
URL, since an operator reads pod names, not IPs. What the API says is not trusted to be printable:
a name with a newline or a terminal escape is shown as its repr, never written raw into a log line.
"""

from __future__ import annotations

import asyncio
import ipaddress
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote

LIST_TIMEOUT_S = 5.0
MAX_SHOWN_CHARS = 320  # a namespace (63) + a pod name (253) fit whole


@dataclass(frozen=True)
class PodInfo:
    name: str
    ip: str | None
    ready: bool
    created: float  # epoch seconds
    terminating: bool = False


@dataclass(frozen=True)
class Target:
    """One /metrics URL to scrape, and the pod behind it when discovery knows it (static
    scrapeTargets have no pod)."""

    url: str
    pod: str | None = None  # "namespace/name", already made printable

    def __str__(self) -> str:
        return self.url if self.pod is None else f"pod {self.pod} ({self.url})"


def printable(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """`text` as it is when every character of it prints, else its repr (a newline shows as
    `\\n`, an escape as `\\x1b`); cut at `limit` characters either way."""
    text = text if len(text) <= limit else text[:limit] + "..."
    return text if text.isprintable() else repr(text)


class PodLister(Protocol):
    def list_pods(self, namespace: str, selector: str) -> list[PodInfo]: ...


def pod_info(pod) -> PodInfo:
    """A kubernetes.client.V1Pod as the little we need of it."""
    status = pod.status
    conditions = (status.conditions or []) if status else []
    ready = any(c.type == "Ready" and c.status == "True" for c in conditions)
    return PodInfo(
        name=pod.metadata.name,
        ip=status.pod_ip if status else None,
        ready=ready,
        created=pod.metadata.creation_timestamp.timestamp(),
        terminating=pod.metadata.deletion_timestamp is not None,
    )


class KubernetesPodLister:
    def __init__(self, api) -> None:
        self._api = api  # kubernetes.client.CoreV1Api

    @classmethod
    def from_environment(cls) -> KubernetesPodLister:
        """In-cluster service account first, then ~/.kube/config; ConfigException when neither."""
        from kubernetes import client, config

        try:
            config.load_incluster_config()
        except config.ConfigException:
            config.load_kube_config()
        return cls(client.CoreV1Api())

    def list_pods(self, namespace: str, selector: str) -> list[PodInfo]:
        response = self._api.list_namespaced_pod(namespace, label_selector=selector, _request_timeout=LIST_TIMEOUT_S)
        return [pod_info(pod) for pod in response.items]


@dataclass(frozen=True)
class Listing:
    pods: tuple[PodInfo, ...]
    listed_at: float


class Discovery:
    def __init__(self, lister: PodLister, refresh_s: float = 2.0) -> None:
        self._lister = lister
        self._refresh_s = refresh_s
        self._listings: dict[tuple[str, str], Listing] = {}
        self.errors: dict[tuple[str, str], str] = {}

    async def refresh(self, keys: set[tuple[str, str]], now: float) -> None:
        """List the pods of every (namespace, selector) whose listing is older than refresh_s.
        A failed listing keeps the previous one (pods rarely vanish in a second) and records why."""
        due = [key for key in keys if key not in self._listings or now - self._listings[key].listed_at >= self._refresh_s]
        results = await asyncio.gather(*(asyncio.to_thread(self._lister.list_pods, *key) for key in due),
                                       return_exceptions=True)
        for key, result in zip(due, results):
            if isinstance(result, BaseException):
                # An API error's text is the API's (its headers and body, over several lines): one line, cut.
                reason = printable(" ".join(f"{type(result).__name__}: {result}".split()), 300)
                self.errors[key] = f"listing pods {key[1]!r} in {printable(key[0])}: {reason}"
            else:
                self._listings[key] = Listing(tuple(result), now)
                self.errors.pop(key, None)

    def ready_targets(self, key: tuple[str, str], port: int, path: str = "/metrics") -> list[Target] | None:
        """The ready pods' /metrics, each with its pod's name; None when the pods were never listed."""
        listing = self._listings.get(key)
        if listing is None:
            return None
        return [Target(f"http://{_host(p.ip)}:{port}{path}", printable(f"{key[0]}/{p.name}"))
                for p in listing.pods if p.ready and p.ip and not p.terminating]

    def pod_count(self, key: tuple[str, str]) -> int | None:
        """Pods (ready or starting, not terminating) of the selector; None when never listed."""
        listing = self._listings.get(key)
        return None if listing is None else sum(1 for p in listing.pods if not p.terminating)

    def starting_ages(self, key: tuple[str, str], now: float) -> tuple[float, ...] | None:
        """Seconds each pod not yet ready has existed; None when the pods were never listed."""
        listing = self._listings.get(key)
        if listing is None:
            return None
        return tuple(max(0.0, now - p.created) for p in listing.pods if not p.ready and not p.terminating)


def _host(ip: str) -> str:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        # Not an IP (the API server would have refused it): percent-encoded, so the URL shown in errors
        # stays one printable line, and its fetch fails as that of an unknown host would.
        return quote(ip, safe="")
    return f"[{address}]" if address.version == 6 else str(address)
