"""What the real framework apps of Tools/apps/ share as processes: their command line, how they serve
(WSGI or ASGI, printing the base URL once they listen), and how they end, so that a test run never leaves
one behind."""

import argparse
import logging
import os
import signal
import sys
import threading
import time


def command_line(description):
    """The apps' options: --count, --port, --quiet."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--count", type=int, default=5000, help="notes inserted before every 97th is deleted")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--quiet", action="store_true", help="no request log on stderr")
    arguments = parser.parse_args()
    if arguments.count < 0:
        parser.error("--count must be 0 or more")
    return arguments


def exit_with_parent():
    """Stops the server once the process that started it has ended (a test run killed midway), as SIGTERM
    does, rather than leave it running with no one to stop it."""
    parent = os.getppid()

    def watch():
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM, signal.SIGINT])  # the main thread's to take
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, daemon=True).start()


def end_on_signals():
    """A parent may start an app with signals blocked (a Swift test's Process passes its threads' mask on),
    and Python keeps the mask it was given: unblock them. SIGTERM and SIGINT then end the app with exit 0,
    through the `finally` blocks that remove what it made."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))


def serve_wsgi(app, port, quiet):
    """Serves the WSGI `app` with werkzeug's threaded server on 127.0.0.1:`port` (0: a free one), printing
    the base URL once it listens; each request is logged on stderr unless `quiet`."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    class RequestHandler(WSGIRequestHandler):
        disable_nagle_algorithm = True  # socketserver sets TCP_NODELAY on each accepted socket

        def log_request(self, *args, **kwargs):
            if not quiet:
                super().log_request(*args, **kwargs)

    logging.getLogger("werkzeug").setLevel(logging.INFO)  # its own handler writes to stderr
    server = make_server("127.0.0.1", port, app, threaded=True, request_handler=RequestHandler)
    print(f"http://127.0.0.1:{server.server_port}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


def serve_asgi(app, port, quiet, lifespan="auto"):
    """Serves the ASGI `app` with uvicorn on 127.0.0.1:`port` (0: a free one), printing the base URL once it
    listens (stdout has the URL alone: the request log goes to stderr, and none with `quiet`)."""
    import copy

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["handlers"]["access"]["stream"] = "ext://sys.stderr"

    class Server(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if self.started:
                port = self.servers[0].sockets[0].getsockname()[1]
                print(f"http://127.0.0.1:{port}", flush=True)

    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_config=log_config,
        log_level="warning" if quiet else "info",
        access_log=not quiet,
        lifespan=lifespan,
    )
    Server(config).run()
