"""What the real framework apps of Tools/ (drf/server.py, fastapi/server.py) share as processes: their
command line, and how they end, so that a test run never leaves one behind."""

import argparse
import os
import signal
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
