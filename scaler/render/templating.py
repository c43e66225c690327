"""The Jinja environment every template renders in: strict, quoting filters, no autoescape magic."""

from __future__ import annotations

import os
from importlib import resources
from functools import lru_cache
from pathlib import Path

import jinja2

from scaler.render.filters import FILTERS

TEMPLATES_ENV = "SLO_SCALER_TEMPLATES"


class TemplateError(RuntimeError):
    """A template that cannot be found or rendered (a bug or a broken install, not bad input)."""


def default_templates_dir() -> Path:
    """`$SLO_SCALER_TEMPLATES`, else the templates shipped in the package (`scaler.templates`, which is
    the repository's templates/ in a source or editable install)."""
    configured = os.environ.get(TEMPLATES_ENV)
    return Path(configured) if configured else Path(str(resources.files("scaler.templates")))


@lru_cache(maxsize=8)
def environment(templates_dir: str | None = None) -> jinja2.Environment:
    root = Path(templates_dir) if templates_dir else default_templates_dir()
    if not root.is_dir():
        raise TemplateError(f"templates directory {root} not found; pass --templates DIR or set {TEMPLATES_ENV}")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(FILTERS)
    return env


def render_template(name: str, templates_dir: str | None = None, **context) -> str:
    try:
        return environment(templates_dir).get_template(name).render(**context)
    except jinja2.TemplateNotFound as exc:
        raise TemplateError(f"template {exc.name} not found") from None
