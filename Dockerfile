# slo-scaler image: `slo-scaler serve` (KEDA external scaler gRPC 9090, /metrics 9091, Envoy RLS
# gRPC 8081) and `slo-scaler render`. Built from the wheel without extras, so it holds only what
# serve and render need (no simulator plots, no Envoy); runs as a non-root user on a read-only root
# filesystem (the Deployment sets readOnlyRootFilesystem; bytecode is compiled at build time).
#   docker build -t slo-scaler .
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY scaler scaler
COPY templates templates
RUN pip wheel --no-cache-dir --no-deps -w /dist .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=wheel /dist /dist
RUN pip install /dist/*.whl && rm -rf /dist \
    && python -m compileall -q "$(python -c 'import scaler, os; print(os.path.dirname(scaler.__file__))')"

USER 65532:65532
EXPOSE 9090 9091 8081
ENTRYPOINT ["slo-scaler"]
CMD ["serve"]
