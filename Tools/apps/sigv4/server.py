#!/usr/bin/env python3
"""An API whose every request must be signed with AWS Signature Version 4, the signature checked by botocore
(the library under the AWS SDK for Python), for testing clients that sign their own requests.

    python3 Tools/apps/sigv4/server.py [--count N] [--port P] [--quiet]

It serves N notes (`--count`, default 5000; ids 1 to N but the multiples of 97, as the other apps) at
`GET /notes?page=P`, 100 a page, `{"notes": [{"id", "title"}...], "next": URL or null}`. A request is
answered only when its `Authorization` header is a SigV4 signature, by the access key `AKIDNOTESPAGE` and
the secret `notes-page/secret+KEY`, of region `us-east-1` and service `execute-api`, over the headers it
names and the request as it arrived, made within 15 minutes of the server's clock: botocore computes the
signature of the same canonical request (`SigV4Auth`) and the two must be equal. Otherwise it answers 403
`{"message": ...}` saying what was wrong (no signature, another key or scope, a signature that does not
match, a time too far off), as AWS's services do.

It prints one line on stdout, the base URL, once it listens. Each request is logged on stderr unless
`--quiet`, with `sigv4=ok` or `sigv4=<what was wrong>`; never a secret. SIGTERM or SIGINT stops it.
"""

import datetime
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

sys.dont_write_bytecode = True
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from appprocess import command_line, end_on_signals, exit_with_parent  # noqa: E402

ACCESS_KEY = "AKIDNOTESPAGE"
SECRET_KEY = "notes-page/secret+KEY"
REGION = "us-east-1"
SERVICE = "execute-api"
PAGE_SIZE = 100
AUTHORIZATION = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$")


def problem(handler, body):
    """Why the request's signature is not right, or None when it is."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.compat import HTTPHeaders
    from botocore.credentials import Credentials

    match = AUTHORIZATION.match(handler.headers.get("Authorization", ""))
    if not match:
        return "no AWS4-HMAC-SHA256 signature"
    key, day, region, service, signed, signature = match.groups()
    if (key, region, service) != (ACCESS_KEY, REGION, SERVICE):
        return "another key, region or service"
    stamp = handler.headers.get("X-Amz-Date", "")
    try:
        when = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        return "no X-Amz-Date"
    if stamp[:8] != day or abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) > 900:
        return "a time too far off"
    names = signed.split(";")
    headers = {name: handler.headers.get(name, "") for name in names}
    url = f"http://{handler.headers.get('Host', '')}{handler.path}"
    request = AWSRequest(method=handler.command, url=url, headers=headers, data=body)
    request.context["timestamp"] = stamp
    auth = SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), SERVICE, REGION)
    # Exactly the headers the client signed, no more: botocore would otherwise pick its own list.
    def headers_to_sign(request):
        signed_headers = HTTPHeaders()
        for name in names:
            signed_headers[name] = request.headers[name]
        return signed_headers

    auth.headers_to_sign = headers_to_sign
    canonical = auth.canonical_request(request)
    expected = auth.signature(auth.string_to_sign(request, canonical), request)
    return None if expected == signature else "a signature that does not match"


def main():
    arguments = command_line("notes behind AWS SigV4, checked by botocore")
    end_on_signals()
    exit_with_parent()
    ids = [i for i in range(1, arguments.count + 1) if i % 97 != 0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self):
            body = b""
            wrong = problem(self, body)
            self.verdict = wrong or "ok"
            parts = urlsplit(self.path)
            if wrong:
                return self.send(403, {"message": wrong})
            if parts.path != "/notes":
                return self.send(404, {"message": "no such path"})
            page = int((parse_qs(parts.query).get("page") or ["1"])[0])
            chunk = ids[(page - 1) * PAGE_SIZE:page * PAGE_SIZE]
            more = page * PAGE_SIZE < len(ids)
            host = self.headers.get("Host", "")
            self.send(200, {
                "notes": [{"id": i, "title": f"Note {i}"} for i in chunk],
                "next": f"http://{host}/notes?page={page + 1}" if more else None,
            })

        def send(self, status, payload):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):
            if not arguments.quiet:
                sys.stderr.write(f"{self.command} {self.path} {args[1] if len(args) > 1 else '-'} "
                                 f"sigv4={getattr(self, 'verdict', '-')}\n")

    class Server(ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            # A client that ends with its connection open resets it; that is no request to log, and a
            # traceback among the request lines would read as one.
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    server = Server(("127.0.0.1", arguments.port), Handler)
    print(f"http://127.0.0.1:{server.server_port}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
