"""`slo-scaler render SPEC... -o DIR [--explain]`: model specs to per-model manifest directories."""

from __future__ import annotations

import argparse
import sys

from scaler.render.render import RenderError, render_specs, write_outputs
from scaler.render.templating import TemplateError
from scaler.spec import SpecError, load_spec


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render model specs to KServe, KEDA, Envoy and monitoring manifests",
        description=(
            "Render each model spec into DIR/<name>/ (InferenceService, ScaledObject, warm pool, PodMonitor, "
            "PrometheusRule, EnvoyFilter or envoy.yaml, kustomization.yaml), plus DIR/istio-gateway-<namespace>/ "
            "for models behind an Istio gateway. Nothing is written unless every spec renders; earlier renders "
            "in DIR are replaced."
        ),
    )
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="model spec YAML file(s)")
    parser.add_argument("-o", "--output", metavar="DIR", help="output directory (required unless --explain)")
    parser.add_argument("--explain", action="store_true", help="print how each derived value was chosen")
    parser.add_argument("--templates", metavar="DIR", default=None, help="templates directory (default: the project's templates/)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.output and not args.explain:
        print("slo-scaler render: -o/--output DIR is required (or use --explain to only print the derivation)", file=sys.stderr)
        return 2
    try:
        specs = [(load_spec(path), path) for path in args.specs]
        outputs = render_specs(specs, args.templates)
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (RenderError, TemplateError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for output in outputs:
        if output.derived is None:
            continue
        if args.explain:
            print(f"# {output.directory} ({output.source})")
            print(output.derived.explain())
            print()
        for warning in output.derived.warnings:
            print(f"warning: {output.directory}: {warning}", file=sys.stderr)
    if args.output:
        try:
            written = write_outputs(args.output, outputs)
        except (RenderError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        for path in written:
            print(f"wrote {path}/")
    return 0
