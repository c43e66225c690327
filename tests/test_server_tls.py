"""TLS and mutual TLS on the scaler's gRPC port, as KEDA uses them (TriggerAuthentication:
`caCert` to verify us, `tlsClientCert`/`tlsClientKey` to be verified). Certificates are made
here with the `cryptography` package: a CA, a server certificate for localhost, client certs."""

from __future__ import annotations

import datetime
import ipaddress
import urllib.error
import urllib.request

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from scaler.cli import main
from scaler.server.protocol import ExternalScalerClient
from scaler_helpers import InProcessScaler


def _pem(cert) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _issue(name: str, issuer=None, issuer_key=None, *, ca=False, server=False):
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer.subject if issuer else subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=1)).not_valid_after(now + datetime.timedelta(hours=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    if not ca:
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    cert = builder.sign(issuer_key or key, hashes.SHA256())
    return cert, key


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    root = tmp_path_factory.mktemp("pki")
    ca, ca_key = _issue("slo-scaler test CA", ca=True)
    other_ca, other_key = _issue("someone else's CA", ca=True)
    server, server_key = _issue("slo-scaler", ca, ca_key, server=True)
    keda, keda_key = _issue("keda-operator", ca, ca_key)
    stranger, stranger_key = _issue("stranger", other_ca, other_key)
    files = {"notes.txt": b"not a key", "ca.pem": _pem(ca), "server.pem": _pem(server), "server-key.pem": _key_pem(server_key)}
    for name, data in files.items():
        (root / name).write_bytes(data)
    return {"dir": root, "ca": _pem(ca), "keda": (_pem(keda), _key_pem(keda_key)),
            "stranger": (_pem(stranger), _key_pem(stranger_key))}


def _spec(scaler: InProcessScaler, credentials: grpc.ChannelCredentials | None):
    channel = (grpc.secure_channel(scaler.target, credentials, options=[("grpc.ssl_target_name_override", "localhost")])
               if credentials else grpc.insecure_channel(scaler.target))
    try:
        ref = ExternalScalerClient.ref({"model": "m", "source": "scrape", "scrapeTargets": "http://127.0.0.1:9/metrics"})
        return ExternalScalerClient(channel).GetMetricSpec(ref, timeout=5)
    finally:
        channel.close()


def test_mutual_tls_admits_keda_and_refuses_others(pki):
    d = pki["dir"]
    scaler = InProcessScaler("--tls-cert", str(d / "server.pem"), "--tls-key", str(d / "server-key.pem"),
                             "--tls-client-ca", str(d / "ca.pem"))
    try:
        cert, key = pki["keda"]
        keda = grpc.ssl_channel_credentials(root_certificates=pki["ca"], private_key=key, certificate_chain=cert)
        assert _spec(scaler, keda).metricSpecs[0].targetSizeFloat == 1.0

        cert, key = pki["stranger"]
        stranger = grpc.ssl_channel_credentials(root_certificates=pki["ca"], private_key=key, certificate_chain=cert)
        for credentials in (stranger, grpc.ssl_channel_credentials(root_certificates=pki["ca"]), None):
            with pytest.raises(grpc.RpcError) as error:
                _spec(scaler, credentials)
            assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        scaler.close()


def test_server_tls_without_client_certificates(pki):
    d = pki["dir"]
    scaler = InProcessScaler("--tls-cert", str(d / "server.pem"), "--tls-key", str(d / "server-key.pem"))
    try:
        # KEDA with only `caCert` in its TriggerAuthentication.
        assert _spec(scaler, grpc.ssl_channel_credentials(root_certificates=pki["ca"])).metricSpecs
    finally:
        scaler.close()


@pytest.mark.parametrize("flags, message", [
    (["--tls-cert", "{d}/server.pem"], "--tls-key: expected with --tls-cert"),
    (["--tls-client-ca", "{d}/ca.pem"], "--tls-client-ca: expected --tls-cert and --tls-key"),
    (["--tls-cert", "{d}/missing.pem", "--tls-key", "{d}/server-key.pem"], "--tls-cert {d}/missing.pem: No such file"),
    (["--tls-cert", "{d}/server.pem", "--tls-key", "{d}"], "--tls-key {d}: Is a directory"),
    (["--tls-cert", "{d}/server.pem", "--tls-key", "{d}/notes.txt"], "--tls-key {d}/notes.txt: expected a PEM file"),
])
def test_tls_flag_errors_name_the_flag(pki, capsys, flags, message):
    d = pki["dir"]
    argv = ["serve", "--grpc-port", "0", "--metrics-port", "0", "--rls-port", "0", "--discovery", "off",
            *[f.format(d=d) for f in flags]]
    assert main(argv) == 2
    assert message.format(d=d) in capsys.readouterr().err


def test_rls_mutual_tls_admits_envoy_and_refuses_others(pki):
    """--rls-tls-client-ca: only a client certified by the CA (your Envoy) may ask for verdicts,
    so nothing else can report arrivals that drive scaling."""
    from conftest import free_port
    from rls_helpers import request
    from scaler.rls.stubs import SHOULD_RATE_LIMIT

    d, port = pki["dir"], free_port()
    scaler = InProcessScaler("--rls-port", str(port), "--rls-tls-cert", str(d / "server.pem"),
                             "--rls-tls-key", str(d / "server-key.pem"), "--rls-tls-client-ca", str(d / "ca.pem"))

    def ask(credentials):
        channel = grpc.secure_channel(f"127.0.0.1:{port}", credentials,
                                      options=[("grpc.ssl_target_name_override", "localhost")])
        try:
            call = channel.unary_unary(SHOULD_RATE_LIMIT.path, request_serializer=SHOULD_RATE_LIMIT.request.SerializeToString,
                                       response_deserializer=SHOULD_RATE_LIMIT.response.FromString)
            return call(request({"model": "m"}), timeout=5)
        finally:
            channel.close()

    try:
        cert, key = pki["keda"]  # any client certificate of the CA: Envoy's, in a cluster
        assert ask(grpc.ssl_channel_credentials(root_certificates=pki["ca"], private_key=key, certificate_chain=cert))
        cert, key = pki["stranger"]
        for credentials in (grpc.ssl_channel_credentials(root_certificates=pki["ca"], private_key=key,
                                                         certificate_chain=cert),
                            grpc.ssl_channel_credentials(root_certificates=pki["ca"])):
            with pytest.raises(grpc.RpcError) as error:
                ask(credentials)
            assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        scaler.close()




@pytest.mark.integration
def test_rendered_envoy_speaks_mutual_tls_to_the_rls(pki, tmp_path):
    """spec.shedding.rlsTls: the rendered RLS cluster presents the gateway's client certificate, so a
    real Envoy gets verdicts from an RLS that requires it; with a certificate of another CA the RLS
    refuses the connection and Envoy fails open (admits)."""
    from conftest import free_port, poll_until
    from envoy_helpers import EnvoyProcess, start_upstream
    from scaler.render.envoy import render_envoy_config
    from scaler_helpers import CAPTURE_MODEL, PageServer, metric, vllm_page

    page = PageServer(vllm_page(waiting=400, running=8))  # far past the budget, nothing drains: RED refuses
    models = tmp_path / "models.yaml"
    models.write_text(f"- model: {CAPTURE_MODEL}\n  source: scrape\n  scrapeTargets: {page.url}\n"
                      "  ttftSloSeconds: 2\n  perReplicaCapacity: 4\n")
    d, rls_port = pki["dir"], free_port()
    scaler = InProcessScaler("--poll-interval", "0.2", "--models", str(models), "--rls-port", str(rls_port),
                             "--rls-tls-cert", str(d / "server.pem"), "--rls-tls-key", str(d / "server-key.pem"),
                             "--rls-tls-client-ca", str(d / "ca.pem"))
    upstream = start_upstream()
    envoys = []

    def gateway(client: str) -> int:
        certs = tmp_path / client
        certs.mkdir()
        cert, key = pki[client]
        (certs / "tls.crt").write_bytes(cert)
        (certs / "tls.key").write_bytes(key)
        (certs / "ca.crt").write_bytes(pki["ca"])
        listen, admin = free_port(), free_port()
        config = render_envoy_config({"served_name": CAPTURE_MODEL, "status_code": 503, "rls_timeout_ms": 1000,
                                      "rls_tls_dir": str(certs)},
                                     listen, f"127.0.0.1:{upstream.server_address[1]}", f"127.0.0.1:{rls_port}", admin)
        envoys.append(EnvoyProcess(config, admin, tmp_path, name=f"envoy-{client}"))
        return listen

    def status(port: int) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    try:
        poll_until(lambda: metric(scaler.metrics_text(), "slo_scaler_state", model=CAPTURE_MODEL, state="RED") == 1,
                   15, "the model RED")
        ours, strangers = gateway("keda"), gateway("stranger")  # keda's certificate: any client of the CA
        assert poll_until(lambda: status(ours) == 503, 15, "Envoy with our client certificate to get a refusal")
        assert status(strangers) == 200  # the RLS refused the handshake; Envoy failed open
    finally:
        for envoy in envoys:
            envoy.stop()
        upstream.shutdown()
        upstream.server_close()
        scaler.close()
        page.close()
