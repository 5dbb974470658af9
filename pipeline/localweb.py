"""What cardpress's two local pages (the table page and ``watch --open``'s preview page) share
at their HTTP edge: which names are this computer's own, and the headers every answer carries."""

from __future__ import annotations

from typing import Any

#: Host names that are this computer's own (a page answering only these is safe from DNS rebinding).
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def host_name(host: str) -> str:
    """The name part of a ``Host`` header: ``127.0.0.1:8000`` → ``127.0.0.1``, ``[::1]:80`` → ``::1``."""
    return host.rsplit(":", 1)[0] if not host.startswith("[") else host[1:].split("]")[0]


class SecurityHeaders:
    """ASGI middleware adding the Content-Security-Policy ``csp`` and its companions to every
    answer (``Middleware(SecurityHeaders, csp=...)``)."""

    def __init__(self, app: Any, csp: str):
        self.app = app
        self.headers = [(b"content-security-policy", csp.encode()), (b"x-content-type-options", b"nosniff"),
                        (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY")]

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
