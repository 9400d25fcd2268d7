"""A Jupyter server extension (enabled by installing kerascanvas): the server's kernel websockets
send small messages at once (TCP_NODELAY).

jupyter_server leaves Nagle's algorithm on for them. A canvas edit's diff is a small message that
follows the kernel's small "busy" message by a few milliseconds, so the diff waited for the
browser to acknowledge "busy", which browsers delay by up to 40 ms: on a 200-layer drawing that
wait was most of the time from mouse-up to the new shapes (benchmarks/RESULTS.md). Every
notebook's messages leave sooner with it; nothing else changes. A server that uses another
connection class (a gateway, another extension) is left as it is.

Importing this module is cheap: kerascanvas imports Keras only when a Graph is first made.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "kerascanvas.server"}]


def no_delay_connection() -> type | None:
    """jupyter_server's own kernel websocket connection, with TCP_NODELAY set as it connects;
    None where this jupyter_server has no such class."""
    try:
        from jupyter_server.services.kernels.connection.channels import (
            ZMQChannelsWebsocketConnection,
        )
    except ImportError:
        return None

    class NoDelayConnection(ZMQChannelsWebsocketConnection):
        def connect(self):
            self.websocket_handler.set_nodelay(True)  # the websocket is open here
            return super().connect()

    return NoDelayConnection


def _load_jupyter_server_extension(serverapp: Any) -> None:
    settings = serverapp.web_app.settings
    current = settings.get("kernel_websocket_connection_class")
    connection = no_delay_connection()
    if connection is None or current is not connection.__mro__[1]:
        serverapp.log.info("kerascanvas: kernel websockets left as they are (%s)", current)
        return
    settings["kernel_websocket_connection_class"] = connection
    serverapp.log.info("kerascanvas: kernel websockets send small messages at once (TCP_NODELAY)")
