"""`slo-scaler check SPEC...`: the launch checklist, one line per item, non-zero exit on any FAIL."""

from __future__ import annotations

import argparse
import sys
import time

from scaler.check import kubernetes, loadtest, prometheus
from scaler.check.checklist import evaluate, spec_facts
from scaler.check.report import FORMATS, RENDERERS
from scaler.check.result import exit_code
from scaler.spec import SpecError, load_spec

HELP = "evaluate the launch checklist for model specs against Prometheus, a load test and the cluster"
EPILOG = """Every item is PASS, WARN, FAIL or UNKNOWN (evidence not reachable; never a pass), with the value,
where it came from and what to do. Exit status: 0 when nothing FAILs, 1 when an item FAILs, 2 on bad input.

examples:
  slo-scaler check manifests/examples/specs/chat.yaml
  slo-scaler check chat.yaml --prometheus http://localhost:9090 --window 2h --loadtest out/loadtest.json
  slo-scaler check specs/*.yaml --kubeconfig ~/.kube/config -o markdown
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser("check", help=HELP, description=HELP, epilog=EPILOG,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="model spec YAML file(s)")
    parser.add_argument("--prometheus", metavar="URL", help="Prometheus that scrapes the vLLM pods and the scaler")
    parser.add_argument("--window", default="1h", help="how far back Prometheus evidence reaches (default 1h)")
    parser.add_argument("--loadtest", action="append", default=[], metavar="RESULTS.json",
                        help="a `slo-scaler loadtest` results file (repeat for several models)")
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument("--kubeconfig", metavar="PATH", help="read the live objects with this kubeconfig")
    cluster.add_argument("--in-cluster", action="store_true", help="read the live objects with the pod's service account")
    parser.add_argument("-o", "--output", choices=FORMATS, default="table", help="table (default), json or markdown")
    parser.set_defaults(func=run)


def _loadtest_for(served_name: str, files: list[loadtest.LoadtestEvidence]) -> loadtest.LoadtestEvidence | None:
    """The file that ran against this model; else the only (or first) one, which the items then
    report as run against another model."""
    return next((f for f in files if f.model == served_name), files[0] if files else None)


def _reader(args: argparse.Namespace) -> tuple[kubernetes.ObjectReader | None, str | None]:
    if not (args.kubeconfig or args.in_cluster):
        return None, None
    try:
        return kubernetes.KubernetesObjectReader.connect(args.kubeconfig, args.in_cluster), None
    except Exception as exc:  # noqa: BLE001 (ConfigException, missing file, bad YAML: all mean "not reachable")
        return None, f"{type(exc).__name__}: {exc}"


def run(args: argparse.Namespace) -> int:
    try:
        prometheus.window_seconds(args.window)
        if args.prometheus is not None and not args.prometheus.startswith(("http://", "https://")):
            raise ValueError(f"--prometheus: expected an http(s) URL, got {args.prometheus!r}")
        specs = [(load_spec(path), path) for path in args.specs]
        files = [loadtest.read(path) for path in args.loadtest]
    except (SpecError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    reader, connect_error = _reader(args)
    others = tuple(spec for spec, _ in specs)
    results = []
    for spec, path in specs:
        print(f"checking {spec.namespace}/{spec.name} ({path})", file=sys.stderr)
        if args.prometheus:
            print(f"  querying {args.prometheus} over the last {args.window}", file=sys.stderr)
        prom = prometheus.gather(spec, args.prometheus, args.window, now=time.time())
        if reader is not None or connect_error is not None:
            print("  reading the live objects from the cluster", file=sys.stderr)
        cluster = kubernetes.gather(spec, reader, path, connect_error)
        results += evaluate(facts=spec_facts(spec, path), others=others, prom=prom,
                            loadtest=_loadtest_for(spec.model.served_name, files), cluster=cluster)
    sys.stdout.write(RENDERERS[args.output](results))
    return exit_code(results)
