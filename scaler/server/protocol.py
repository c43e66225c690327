"""KEDA's externalscaler.proto (proto/, generated into scaler/_protos by scaler.protos) and its gRPC plumbing.

`service_handler` serves a servicer object; `ExternalScalerClient` is the client side (what KEDA
does), used by tests and scripts.
"""

from __future__ import annotations

import grpc

from scaler import protos

PROTO = protos.load("externalscaler.proto")
SERVICE = "ExternalScaler"
SERVICE_NAME = f"{PROTO.package}.{SERVICE}"  # externalscaler.ExternalScaler, as KEDA dials it
UNARY = ("IsActive", "GetMetricSpec", "GetMetrics")
STREAMING = ("StreamIsActive",)

ScaledObjectRef = PROTO.ScaledObjectRef
IsActiveResponse = PROTO.IsActiveResponse
GetMetricSpecResponse = PROTO.GetMetricSpecResponse
MetricSpec = PROTO.MetricSpec
GetMetricsRequest = PROTO.GetMetricsRequest
GetMetricsResponse = PROTO.GetMetricsResponse
MetricValue = PROTO.MetricValue


def service_handler(servicer) -> grpc.GenericRpcHandler:
    """Serve `servicer`'s async methods named like the RPCs. StreamMetricSpec is left out on
    purpose: gRPC answers UNIMPLEMENTED and KEDA keeps using GetMetricSpec (our spec is static)."""
    handlers = {}
    for name in UNARY + STREAMING:
        method = PROTO.method(SERVICE, name)
        make = grpc.unary_stream_rpc_method_handler if name in STREAMING else grpc.unary_unary_rpc_method_handler
        handlers[name] = make(getattr(servicer, name), request_deserializer=method.request.FromString,
                              response_serializer=method.response.SerializeToString)
    return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)


class ExternalScalerClient:
    """The four RPCs over a grpc.aio channel, as KEDA calls them."""

    def __init__(self, channel: grpc.aio.Channel):
        for name in UNARY + STREAMING + ("StreamMetricSpec",):
            method = PROTO.method(SERVICE, name)
            make = channel.unary_stream if name.startswith("Stream") else channel.unary_unary
            setattr(self, name, make(method.path, request_serializer=method.request.SerializeToString,
                                     response_deserializer=method.response.FromString))

    @staticmethod
    def ref(metadata: dict[str, str], name: str = "so", namespace: str = "default") -> ScaledObjectRef:
        return ScaledObjectRef(name=name, namespace=namespace, scalerMetadata=metadata)
