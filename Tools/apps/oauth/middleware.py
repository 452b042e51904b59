"""A line on stderr for each POST to the token endpoint, saying how the client asked and what it got:

    token grant=<grant_type> auth=<basic|post|none> status=<code>

`grant` is the request's `grant_type` (`-` when it has none, `?` when it is not a plain token of letters,
digits and `_.:~-`); `auth` is how the client authenticated: `basic` for an `Authorization: Basic`
header (client_secret_basic, which django-oauth-toolkit checks first), else `post` when the body has a
`client_id` or `client_secret` (client_secret_post), else `none`. Never a secret, a token or a password.
"""

import re
import sys

TOKEN_PATH = "/o/token/"
PLAIN = re.compile(r"[A-Za-z0-9_.:~-]{1,100}")


def token_log(get_response):
    def middleware(request):
        response = get_response(request)
        if request.method == "POST" and request.path == TOKEN_PATH:
            print(describe(request, response.status_code), file=sys.stderr, flush=True)
        return response

    return middleware


def describe(request, status):
    grant = request.POST.get("grant_type")
    if grant is None:
        grant = "-"
    elif not PLAIN.fullmatch(grant):
        grant = "?"
    if request.headers.get("Authorization", "").lower().startswith("basic "):
        auth = "basic"
    elif "client_id" in request.POST or "client_secret" in request.POST:
        auth = "post"
    else:
        auth = "none"
    return f"token grant={grant} auth={auth} status={status}"
