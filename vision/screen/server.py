"""The screen's web server: Starlette routes served by Uvicorn on a thread beside the live loop.

``/`` the page (its script and style from ``static/``, nothing from the internet), ``/state``
the current state as JSON, ``/events`` the same pushed as server-sent events whenever it
changes, ``/frame.jpg`` the latest camera image with the named cards, and ``POST /answer``
(``{"key": 2}``) a button's answer to the open question or name check, handed to the live loop
as the number key would be.
"""

from __future__ import annotations

import asyncio
import json
import queue
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import CardrefError

STATIC = Path(__file__).with_name("static")
POLL_S = 0.1  # how often an open event stream looks for a newer state
MAX_KEY = 9


@dataclass
class Hub:
    """What the live loop publishes and the server reads, and the answers going back."""

    state: dict[str, Any] = field(default_factory=dict)
    shown: dict[str, Any] = field(default_factory=dict)  # the last state published, without seq
    seq: int = 0
    jpeg: bytes | None = None
    keys: queue.Queue = field(default_factory=queue.Queue)
    lock: threading.Lock = field(default_factory=threading.Lock)
    closing: threading.Event = field(default_factory=threading.Event)  # open event streams end

    def publish(self, state: dict[str, Any], jpeg: bytes | None = None) -> None:
        with self.lock:
            if jpeg is None and state == self.shown:
                return  # nothing new: the event streams stay quiet
            self.seq += 1
            self.shown = state
            self.state = {**state, "seq": self.seq}
            if jpeg is not None:
                self.jpeg = jpeg

    def current(self) -> tuple[int, dict[str, Any]]:
        with self.lock:
            return self.seq, self.state

    def take_keys(self) -> list[int]:
        out = []
        while not self.keys.empty():
            out.append(self.keys.get())
        return out


def parse_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (host 127.0.0.1 unless given; ``0.0.0.0`` for the whole network)."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise CardrefError(f"--serve {text}: expected [HOST:]PORT, such as 8000 or 0.0.0.0:8000")
    return host, int(port)


def build_app(hub: Hub):
    from sse_starlette.sse import EventSourceResponse
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    no_cache = {"Cache-Control": "no-store"}

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=no_cache)

    async def state(request: Request) -> JSONResponse:
        return JSONResponse(hub.current()[1], headers=no_cache)

    async def frame(request: Request) -> Response:
        jpeg = hub.jpeg
        if jpeg is None:
            return Response("no camera image yet", status_code=404, headers=no_cache)
        return Response(jpeg, media_type="image/jpeg", headers=no_cache)

    async def events(request: Request) -> EventSourceResponse:
        async def stream():
            sent = -1
            while not hub.closing.is_set():
                seq, current = hub.current()
                if seq != sent:
                    sent = seq
                    yield {"event": "state", "data": json.dumps(current)}
                await asyncio.sleep(POLL_S)

        return EventSourceResponse(stream(), ping=15)

    async def answer(request: Request) -> JSONResponse:
        try:
            key = (await request.json())["key"]
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": 'expected JSON {"key": N}'}, status_code=400)
        if not isinstance(key, int) or isinstance(key, bool) or not 1 <= key <= MAX_KEY:
            return JSONResponse({"error": f"key: expected a choice from 1 to {MAX_KEY}, got {key!r}"},
                                status_code=400)
        hub.keys.put(key)
        return JSONResponse({"queued": key}, status_code=202)

    return Starlette(routes=[
        Route("/", index),
        Route("/state", state),
        Route("/events", events),
        Route("/frame.jpg", frame),
        Route("/answer", answer, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])


class ScreenServer:
    """Uvicorn serving the screen on its own thread; :meth:`close` stops it."""

    def __init__(self, address: str, hub: Hub):
        import uvicorn

        self.hub = hub
        host, port = parse_address(address)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:  # bound here, so that a port in use is one clear line, not a log in a thread
            self.socket.bind((host, port))
        except (OSError, OverflowError) as e:
            self.socket.close()
            raise CardrefError(f"--serve {address}: cannot listen there ({e.strerror or e})") from None
        self.socket.listen(128)  # a page opened before the server thread is up waits, not fails
        self.host, self.port = host, self.socket.getsockname()[1]
        config = uvicorn.Config(build_app(hub), log_level="warning", access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, name="screen", daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def close(self) -> None:
        """Stop at once: open event streams end first, as Uvicorn waits for their connections."""
        self.hub.closing.set()
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.socket.close()
