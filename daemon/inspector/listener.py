"""Where a browser reaches the inspector: the daemon's loopback TCP listener, opened on demand.

A configured TCP listener on loopback (or on every address, which includes loopback) serves
the pages as it is. Without one, the first ``memoryd inspect`` opens 127.0.0.1 on a free port
for the rest of the daemon's life, and from then on TCP asks for bearer tokens on the API
exactly as a configured listener does: the pages come with no new way into the API.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass, field

from aiohttp import web

from daemon.api.protocol import ApiSite, ConnectionLimits
from daemon.api.state import AppState
from daemon.auth import load_tokens

LOOPBACK = "127.0.0.1"


def loopback_url(sock: socket.socket) -> str | None:
    """The URL a browser on this machine uses for a listening socket, or None if it cannot."""
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return None
    host, port = sock.getsockname()[:2]
    address = ipaddress.ip_address(host.split("%", 1)[0])
    if address.is_loopback:
        return f"http://[{address}]:{port}" if address.version == 6 else f"http://{address}:{port}"
    if address.is_unspecified:
        return f"http://{LOOPBACK}:{port}" if address.version == 4 else f"http://[::1]:{port}"
    return None


@dataclass(slots=True)
class LoopbackListener:
    """The daemon's listeners as the inspector needs them: find or open one on loopback."""

    runner: web.AppRunner
    limits: ConnectionLimits
    sockets: list[socket.socket] = field(default_factory=list)
    """The TCP sockets the daemon listens on (configured or handed over by systemd)."""
    _opening: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def async_base_url(self, state: AppState) -> str:
        """Return the loopback URL the pages are served on, opening a listener if none is."""
        async with self._opening:
            for sock in self.sockets:
                url = loopback_url(sock)
                if url is not None:
                    return url
            if state.tokens is None:
                # TCP was off: the API's bearer-token check starts with the new listener.
                state.tokens = load_tokens(state.settings.backend.data_dir)
            sock = socket.create_server((LOOPBACK, 0), family=socket.AF_INET)
            sock.setblocking(False)
            await ApiSite(self.runner, sock, self.limits).start()
            self.sockets.append(sock)
            url = loopback_url(sock)
            assert url is not None
            return url
