"""A typed client of the memoryd API v1, blocking (:class:`MemorydClient`) and asyncio
(:class:`AsyncMemorydClient`), with the same methods, over the daemon's unix socket or TCP."""

from memoryd_client._async import AsyncMemorydClient
from memoryd_client._core import (
    ApiError,
    Call,
    DaemonUnavailable,
    MemorydError,
    Retry,
    default_socket_path,
)
from memoryd_client._sync import MemorydClient

__all__ = [
    "ApiError",
    "AsyncMemorydClient",
    "Call",
    "DaemonUnavailable",
    "MemorydClient",
    "MemorydError",
    "Retry",
    "default_socket_path",
]
