#!/usr/bin/env python3
"""moto's DynamoDB mock, served by moto's own ThreadedMotoServer with a table of notes, for testing clients
against DynamoDB's Scan paging (`LastEvaluatedKey` / `ExclusiveStartKey`).

    python3 Tools/apps/moto/server.py [--count N] [--port P] [--quiet]

moto's server (werkzeug, threaded; all of moto's state in memory, gone on exit) listens on 127.0.0.1
(`--port`, default 0: a free port). At start-up, through boto3 against that server (region us-east-1, dummy
credentials, account 123456789012), it creates the table `notes` (hash key `id` of type N, on-demand) and
writes N notes (`--count`, default 5000) with `BatchWriteItem`, every note but those whose id is a multiple
of 97, as Tools/apps/drf/server.py serves them:

    the ids served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

Note i is `{"id": {"N": "i"}, "title": {"S": "Note i"}, "body": {"S": …}}`, the body with non-ASCII text,
quotes, a tab and a newline, or "" when i is a multiple of 10. Then the server prints one line on stdout,
the base URL, e.g. `http://127.0.0.1:41234`. Nothing else goes to stdout; werkzeug logs each request on
stderr unless `--quiet`. SIGTERM or SIGINT stops it (exit 0), and so does the end of the process that
started it.

The endpoint is DynamoDB's JSON protocol at the base URL: `POST /` with `Content-Type:
application/x-amz-json-1.0`, `X-Amz-Target: DynamoDB_20120810.Scan` and an `Authorization` header whose
SigV4 credential scope names the region us-east-1 and the service dynamodb, e.g.

    Authorization: AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request

moto routes a request to a service by that scope alone and checks no signature (a real SigV4 signature, as
boto3 sends, works too). Without the header moto does not route by X-Amz-Target or Host: the request goes
to its S3 mock, which answers 200 `application/xml` `<ListAllMyBucketsResult …>`. Another region in the
scope has no table (400 ResourceNotFoundException); a form Content-Type (curl -d's default) answers 500
HTML.

The body `{"TableName": "notes", "Limit": 100}` answers 200, `Content-Type: application/x-amz-json-1.0`,
`{"Items": [...], "Count": n, "ScannedCount": n, "LastEvaluatedKey": {"id": {"N": "100"}}}`, each item
in DynamoDB's typed form as above (keys in the order id, title, body; JSON with non-ASCII characters as
\\u escapes). moto scans in ascending id order, the same on every request. The next page's body adds
`"ExclusiveStartKey": <LastEvaluatedKey>`. With no `Limit` a page holds up to 1 MB of items (all 4949
notes of the default count in one page). moto sets `LastEvaluatedKey` only when another item follows, so
the last page has none, even when full (real DynamoDB may also end on a full page with a key, followed by
an empty page); an `ExclusiveStartKey` at or past the last id answers `{"Items": [], "Count": 0,
"ScannedCount": 0}`. Errors answer 400 with `{"__type":
"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", "message": …}` and the like, but some
invalid requests (`"Limit": 0`, an `ExclusiveStartKey` of the wrong type) make moto answer 500 HTML with a
traceback on stderr. Query parameters and unknown body fields are ignored.
"""

import logging
import signal
import sys
from pathlib import Path

import boto3
from moto.server import ThreadedMotoServer

# What the apps of Tools/ share (last on the path: nothing there shadows an installed package).
sys.dont_write_bytecode = True
sys.path.append(str(Path(__file__).resolve().parent.parent))
from appprocess import command_line, end_on_signals, exit_with_parent  # noqa: E402

DELETED_EVERY = 97
TABLE = "notes"
REGION = "us-east-1"  # where moto puts unsigned requests


def seed(url, count):
    dynamodb = boto3.resource(
        "dynamodb",
        endpoint_url=url,
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    table = dynamodb.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}],
        BillingMode="PAY_PER_REQUEST",
    )
    with table.batch_writer() as batch:  # BatchWriteItem, 25 items a request
        for i in range(1, count + 1):
            if i % DELETED_EVERY != 0:
                body = "" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.'
                batch.put_item(Item={"id": i, "title": f"Note {i}", "body": body})


def main():
    arguments = command_line("moto's DynamoDB serving a table of notes.")

    end_on_signals()
    exit_with_parent()
    if arguments.quiet:
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=arguments.port, verbose=False)
    server.start()
    try:
        url = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
        seed(url, arguments.count)
        print(url, flush=True)
        while True:
            signal.pause()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
