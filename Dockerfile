# slo-scaler image: `slo-scaler serve` (KEDA external scaler gRPC 9090, /metrics 9091, Envoy RLS
# gRPC 8081) and `slo-scaler render`. Runs as a non-root user on a read-only root filesystem.
#   docker build -t slo-scaler .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SLO_SCALER_TEMPLATES=/app/templates

WORKDIR /app
# Dependencies first, so source edits do not reinstall them.
COPY pyproject.toml README.md ./
COPY scaler/__init__.py scaler/__init__.py
RUN pip install . && pip uninstall -y slo-scaler
COPY scaler scaler
COPY proto proto
COPY templates templates
# Editable: the package stays in /app next to proto/ and templates/, which it reads at run time.
RUN pip install --no-deps --editable . && python -m compileall -q scaler

USER 65532:65532
EXPOSE 9090 9091 8081
ENTRYPOINT ["slo-scaler"]
CMD ["serve"]
