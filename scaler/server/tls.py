"""Server-side TLS for the gRPC port, matching what KEDA sends from a TriggerAuthentication:
`caCert` (KEDA verifies our certificate) and `tlsClientCert`/`tlsClientKey` (we verify KEDA's
when --tls-client-ca is set: mutual TLS)."""

from __future__ import annotations

from pathlib import Path

import grpc


def server_credentials(cert: str | None, key: str | None, client_ca: str | None) -> grpc.ServerCredentials | None:
    """None for plaintext; ValueError naming the flag when the files do not fit together."""
    if not cert and not key:
        if client_ca:
            raise ValueError("--tls-client-ca: expected --tls-cert and --tls-key as well (mTLS needs server TLS)")
        return None
    if not cert or not key:
        raise ValueError(f"{'--tls-key' if cert else '--tls-cert'}: expected with {'--tls-cert' if cert else '--tls-key'}")
    pem = {flag: _read(flag, path) for flag, path in (("--tls-cert", cert), ("--tls-key", key), ("--tls-client-ca", client_ca))
           if path}
    return grpc.ssl_server_credentials([(pem["--tls-key"], pem["--tls-cert"])],
                                       root_certificates=pem.get("--tls-client-ca"),
                                       require_client_auth="--tls-client-ca" in pem)


def _read(flag: str, path: str) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"{flag} {path}: {error.strerror}") from None
    if b"-----BEGIN " not in data:
        raise ValueError(f"{flag} {path}: expected a PEM file")
    return data
