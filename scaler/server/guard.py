"""What every gRPC port of `serve` enforces before a handler runs: a message size limit and
INVALID_ARGUMENT (not UNKNOWN) for a request that does not decode, such as invalid UTF-8 in a
proto3 string. Used by the KEDA port and the rate-limit port alike."""

from __future__ import annotations

import inspect

import grpc

# A ScaledObject's metadata or an Envoy descriptor is a few KB: 256 KiB leaves room and bounds
# what one call can make us allocate (a 3 MB value once took RSS to 3 GB through the caches).
MAX_MESSAGE_BYTES = 256 * 1024
SERVER_OPTIONS = (("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                  ("grpc.max_send_message_length", 4 * MAX_MESSAGE_BYTES))


class _Undecodable:
    def __init__(self, error: Exception) -> None:
        self.message = f"request does not decode ({type(error).__name__}): expected a valid protobuf message " \
                       "with UTF-8 strings"


def _lenient(deserialize):
    def parse(data: bytes):
        try:
            return deserialize(data)
        except Exception as error:  # noqa: BLE001 (protobuf's DecodeError and friends)
            return _Undecodable(error)
    return parse


class DecodeGuard(grpc.aio.ServerInterceptor):
    """Answers INVALID_ARGUMENT for a request its method cannot decode (grpc would say UNKNOWN)."""

    async def intercept_service(self, continuation, details):
        handler = await continuation(details)
        if handler is None or handler.request_deserializer is None or handler.request_streaming:
            return handler
        if handler.unary_unary is not None:
            behaviour = handler.unary_unary

            async def unary(request, context):
                if isinstance(request, _Undecodable):
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
                return await behaviour(request, context)

            return grpc.unary_unary_rpc_method_handler(unary, _lenient(handler.request_deserializer),
                                                       handler.response_serializer)
        behaviour = handler.unary_stream
        if not inspect.isasyncgenfunction(behaviour):
            async def stream(request, context):  # writes with context.write (grpc's health Watch)
                if isinstance(request, _Undecodable):
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
                return await behaviour(request, context)
        else:
            async def stream(request, context):
                if isinstance(request, _Undecodable):
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
                async for response in behaviour(request, context):
                    yield response

        return grpc.unary_stream_rpc_method_handler(stream, _lenient(handler.request_deserializer),
                                                    handler.response_serializer)


class SyncDecodeGuard(grpc.ServerInterceptor):
    """DecodeGuard for grpc's thread-pool server (the rate-limit port): unary methods only."""

    def intercept_service(self, continuation, details):
        handler = continuation(details)
        if handler is None or handler.unary_unary is None or handler.request_deserializer is None:
            return handler
        behaviour = handler.unary_unary

        def unary(request, context):
            if isinstance(request, _Undecodable):
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
            return behaviour(request, context)

        return grpc.unary_unary_rpc_method_handler(unary, _lenient(handler.request_deserializer),
                                                   handler.response_serializer)
