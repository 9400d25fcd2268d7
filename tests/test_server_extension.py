"""kerascanvas.server: the Jupyter server extension that turns Nagle's algorithm off on kernel
websockets (a canvas edit's diff waited up to 40 ms behind the kernel's "busy" message)."""

import logging
import re
import subprocess
import sys
from types import SimpleNamespace
from unittest import mock

import pytest

pytest.importorskip("jupyter_server")
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado.websocket import WebSocketHandler

from kerascanvas import server


def app(connection):
    return SimpleNamespace(web_app=SimpleNamespace(settings={"kernel_websocket_connection_class": connection}),
                           log=logging.getLogger("test"))


def test_installing_kerascanvas_enables_the_extension_in_jupyter_server():
    listed = subprocess.run([sys.executable, "-m", "jupyter", "server", "extension", "list"],
                            check=False, capture_output=True, text=True, timeout=120)
    text = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)  # without colours
    assert re.search(r"kerascanvas\.server\s+enabled", text) and re.search(r"kerascanvas\.server\s+OK", text)


def test_the_server_s_own_connection_sets_tcp_nodelay_as_it_connects():
    serverapp = app(ZMQChannelsWebsocketConnection)
    server._load_jupyter_server_extension(serverapp)
    chosen = serverapp.web_app.settings["kernel_websocket_connection_class"]
    assert issubclass(chosen, ZMQChannelsWebsocketConnection) and chosen is not ZMQChannelsWebsocketConnection
    handler = mock.Mock(spec=WebSocketHandler)
    with mock.patch.object(ZMQChannelsWebsocketConnection, "connect", return_value="connected") as connect:
        connection = chosen.__new__(chosen)
        connection._trait_values["websocket_handler"] = handler
        assert chosen.connect(connection) == "connected"
    handler.set_nodelay.assert_called_once_with(True)
    connect.assert_called_once()


def test_a_connection_class_someone_else_chose_is_left_alone():
    class Gateway(ZMQChannelsWebsocketConnection):
        pass

    serverapp = app(Gateway)
    server._load_jupyter_server_extension(serverapp)
    assert serverapp.web_app.settings["kernel_websocket_connection_class"] is Gateway
