// The usage text (--help): every flag, fault, style and endpoint, and the log's format.

export const USAGE = `Usage: node Tools/fixture-server/notes-server.mjs (--dir DIR | --count N [--page-size P] [--seed S] [--id-kind K])
       [--repos N [--issues K] [--comments C] [--fixed] [--latency MS] [--created-round S]] [options]

Serves notes pages at http://HOST:PORT/notes (first page) and /notes?cursor=C (the next ones), and
prints that URL as its first line on stdout (https:// with --tls-cert). SIGTERM or SIGINT stops it
(exit 0). Whatever the style, the same notes in the same order are also served at:

  POST /graphql      GraphQL over HTTP, executed by graphql-js (Debian's node-graphql; 501 without it):
                     a body {"query":Q,"variables":{...},"operationName":N} of Content-Type
                     application/json, answered in application/json. The schema (SDL: send an
                     introspection query): Query.notes(first: Int, after: String): NoteConnection!,
                     Query.viewer: Viewer! {login, notes(first, after)}, Query.node(id: ID!): Note,
                     Mutation.deleteNote(id: ID!): Boolean (does nothing: false); NoteConnection {edges
                     {cursor node} nodes pageInfo {hasNextPage hasPreviousPage startCursor endCursor}
                     totalCount}; Note {id title created updated excerpt tags rank score pinned archived
                     meta (scalar JSON: the value as it is) big naive (the member "naïve")}.
                     first: default 10, at most 100; over 100 or below 0 is an error in a 200, as a
                     resolver's error: {"data":null,"errors":[{"message":...,"path":["notes"]}]}.
                     after: the cursor of a note, base64 of arrayconnection:POSITION (0-based), as Relay
                     servers write them; an unknown one is an error in a 200. endCursor: the last edge's
                     cursor (null on an empty page, kept on the last page with hasNextPage false).
                     405 for other methods, 415 for another Content-Type, 400 {"errors":[{"message":...}]}
                     for a body that is no GraphQL request; syntax and validation errors are 200s
  POST /v1/databases/notes/query
                     Notion's database query: a JSON body {"start_cursor":C,"page_size":L} (C absent on
                     the first page; L 1-100, default 100) answers {"object":"list","results":[notes],
                     "next_cursor":C|null,"has_more":B,"type":"page_database"}, C a UUID; a bad cursor
                     or size is 400 {"object":"error","status":400,"code":"validation_error",...},
                     a body that is no JSON 400 invalid_json, another method 405
  On both, @PAGE is floor(POSITION / L) + 1 for a page that starts at note POSITION and asks for L
  notes (first, page_size), as in offset style; a GraphQL request that pages no connection is page 1.
  Every fault acts on both, but shift and next-ref on neither, cycle and deep not on /graphql
  (graphql-cycle is its cycle) and the graphql-* faults on /graphql only; a fault that does not act
  on a request is left out, uncounted. --max-limit cuts first and page_size silently; --total-lie changes totalCount.

Pages:
  --dir DIR          serve a notes-gen directory (DIR/manifest.json and its pages)
  --count N          serve N generated notes instead; 0 serves one empty page
  --page-size P      notes per generated page, and the default limit (default 100)
  --seed S           seed of generated titles, cursors and integer ids, and of --repos' data,
                     0-4294967295 (default 42); with --dir only together with --repos
  --id-kind K        string: ids n0, n1, ... (the default); int: JSON integers rising with gaps, as
                     after deletes (e.g. 1, 3, 5, 6, ...), fixed by the seed, in every style
  --max-limit L      the largest page size served (limit, per_page, page_size, page[size], _limit,
                     max_results, Limit); a larger one is served as L, silently, as DRF's max_limit
                     (x-pagination: 422, as flask-smorest's max_page_size) (default 1000, or P)
  --totals LIST      what the list styles announce of the total: some of count, header, link,
                     pages (comma-separated; default all), or none (see Styles below)
  --total-lie D      announce N+D notes instead of N (default 0); the notes served are the same
  --no-titles        generated notes without their title member, in every style, in the Notion-style
                     query and on /graphql (whose Note type then has no title field)
  --updates          notes that change while the server runs, for incremental syncs (--count, the
                     cursor styles only; see "With --updates" below)

Server:
  --host HOST        address to listen on (default 127.0.0.1)
  --port PORT        port to listen on; 0 picks a free one (default 0)
  --url-host NAME    host name of the printed URL and of absolute URLs (default: the address
                     listened on), e.g. localhost
  --tls-cert FILE    serve HTTPS with this PEM certificate (chain); needs --tls-key
  --tls-key FILE     ... and this PEM private key; needs --tls-cert
  --http2            offer HTTP/2 over TLS (ALPN h2, HTTP/1.1 still accepted); needs --tls-cert.
                     The log marks each HTTP/2 request with h2
  --compress LIST    compress responses with some of gzip, deflate, br (comma-separated, in order
                     of preference) when the request's Accept-Encoding allows it (default none)
  --style STYLE      contract, drf, link, header (cursor pages), or offset, page, keyset, jsonapi,
                     next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb (--count
                     only) (default contract)
  --fault SPEC       inject a fault; repeatable, or several separated by commas
  --token-file FILE  bearer token for the auth fault (default: env NOTES_SERVER_TOKEN)
  --fixtures DIR     contract fixtures for fixture faults (default: Fixtures/contract)
  --cache-mb MB      memory for cached pages, in MiB (default 256)
  --quiet            no log on stderr
  --help             print this help

Fault SPEC: KIND[:ARG][@PAGE][xN]   @PAGE: only on that 1-based page; xN: only the first N times
  500, 502, 401, 403, ...  that status (400-599) with a JSON error body
  503[:S], 429[:S]         ... with Retry-After: S seconds (default 1)
  html, invalid-json, missing-id, number-id
                           that Fixtures/contract file instead of the page, byte for byte
  fixture:FILE             Fixtures/contract/FILE instead of the page
  content-type[:TYPE]      the page labelled TYPE (default text/plain; charset=utf-8)
  truncate[:BYTES]         the full Content-Length, BYTES of the body (default half), then close
  reset                    reset the connection instead of answering
  stall[:BYTES]            the full Content-Length, BYTES of the body (default 10), then nothing,
                           the connection held open
  bomb[:BYTES]             200, gzip whatever the request accepts, no Content-Length: a body that
                           inflates to BYTES (default 1 GiB) of an endless notes array, streamed
  ratelimit-github[:S]     403 with X-RateLimit-Remaining: 0, X-RateLimit-Reset: now+S (default 1)
  ratelimit-ietf[:S]       429 with RateLimit: limit=10, remaining=0, reset=S and
                           RateLimit-Policy: 10;w=60 (default 1)
  ratelimit-retry-after[:S] 403 with Retry-After: S (default 1)
  remaining-zero[:S]       the response with X-RateLimit-Remaining: 0, X-RateLimit-Reset: now+S
  drip[:BYTES/MS]          the body BYTES at a time every MS ms (default 8/5; drip:64, drip:/20)
  delay[:MS]               wait MS ms before answering (default 1000)
  duplicate-id             the page's last note takes the id of page 1's first note
  cycle                    the page's next cursor is page 2's cursor (offset, page, jsonapi, ogc,
                           x-pagination, eve: next is the previous page; next-page and dynamodb: the
                           token or key of page 2; keyset, page-echo, offset-echo refuse it)
  huge-title[:BYTES]       the first note's title is BYTES long (default 2 MiB), streamed
  deep[:DEPTH]             the first note gains DEPTH nested arrays (default 100000)
  redirect[:STATUS]        302 (or 301, 303, 307, 308) to the same path and query on a second port
  auth                     401 unless the request has Authorization: Bearer <token>
  shift:N                  from this page on, N new notes new0... sit before n0 (the list styles:
                           offset, page, keyset, jsonapi, drf with int ids and the styles of real
                           servers; int ids go on after the last)
  next-ref:KIND            the page's next reference (contract: next_cursor, header: X-Next-Cursor,
                           drf: next, link: Link rel="next") is a hostile one; the last page has none.
                           In drf and link a URL, which still names the next page where it can:
                             brackets-raw      BASE/notes?page[offset]=100&cursor=C
                             brackets-encoded  BASE/notes?page%5Boffset%5D=100&cursor=C
                             space             BASE/notes?q=a b&cursor=C (a raw space)
                             bad-escape        BASE/notes%zz?cursor=C
                             unicode           BASE/notes/é?cursor=C (raw UTF-8; /notes/é is served
                                               as /notes, raw or percent-encoded)
                             fragment          BASE/notes?cursor=C#frag
                             userinfo          http://user:pass@HOST:PORT/notes?cursor=C
                             ftp               ftp://HOST:PORT/notes?cursor=C
                             file              file:///etc/passwd
                             empty-host        http:///notes?cursor=C
                             long-name         BASE/notes?cursor=C&NNN...=1 (a name of 64 KiB)
                           In contract and header a cursor: C followed by page[offset]=100
                           (brackets-raw), page%5Boffset%5D=100 (brackets-encoded), ' and space'
                           (space), %zz (bad-escape), é (unicode) or 64 KiB of n (long-name), which
                           the server serves as C's page; the other kinds are URLs' only and refused
                           there (64 at start-up, 400 per request). The list styles refuse next-ref
  graphql-error            /graphql: 200 {"data":null,"errors":[{"message":"Something went wrong while
                           executing your query.","locations":[...],"path":["notes"]}]}
  graphql-ratelimit[:S]    /graphql, once unless xN: 200 {"data":null,"errors":[{"type":"RATE_LIMITED",
                           "message":"API rate limit exceeded for user ID 1."}]} with
                           X-RateLimit-Remaining: 0, X-RateLimit-Reset: now+S (default 1); the retry works
  graphql-cycle            /graphql: the page's endCursor is the previous page's (the cursor that asked
                           for it), hasNextPage true
  graphql-endless          /graphql: from @PAGE on (or every page), hasNextPage is always true; past the
                           last note each empty page names the cursor that asked for it as endCursor

Styles (the first four take ?cursor=C):
  contract  {"notes":[...],"next_cursor":C}
  drf       {"next":URL,"previous":URL,"results":[...]}
  link      [...] with Link: <URL>; rel="next"
  header    {"notes":[...]} with X-Next-Cursor: C
  offset    ?offset=K&limit=L: {"count":N,"next":URL,"previous":URL,"results":[...]}, X-Total-Count: N
  page      ?page=P&per_page=L: {"count":N,"total_pages":T,"next":URL,"previous":URL,"results":[...]},
            Link: <URL>; rel="next", <URL>; rel="last", X-Total-Count: N
  keyset    ?starting_after=ID&limit=L: {"object":"list","data":[...],"has_more":B,"url":"/notes"}
  jsonapi   ?page[number]=P&page[size]=L (raw or percent-encoded), as djangorestframework-jsonapi:
            {"links":{"first":URL,"last":URL,"next":URL,"prev":URL},"data":[{"type":"notes","id":"ID",
            "attributes":{...}},...],"meta":{"pagination":{"page":P,"pages":T,"count":N}}},
            Content-Type: application/vnd.api+json; links sorted and percent-encoded
            (?page%5Bnumber%5D=2&page%5Bsize%5D=100); 406 unless Accept admits
            application/vnd.api+json, application/* or */*; 400 for a query parameter the library
            refuses (not page[...], sort, include, fields[...], filter[...] or the server's own)
  drf with --id-kind int: ?page=P&page_size=L, {"count":N,"next":URL,"previous":URL,"results":[...]},
            as DRF's PageNumberPagination (links as DRF writes them; page 2's previous has no page=)
  The styles of real servers (--count only; their errors in the server's own form):
  next-page ?_limit=L&_token=T, as Kinto: {"data":[...]} with Next-Page: URL (absent on the last
            page; URL the request's own with _limit=L&_token=T, T standard base64 of
            {"last_object": {"id": ID}, "offset": O, "nonce": ...}) and Total-Records: N (totals
            header); HEAD answers Total-Objects: N and Total-Records: N. Any other query parameter
            (but those starting with _, bar _since/_to/_before, and the server's own) is a filter on
            a field that no note has: {"data":[]}, no Next-Page (?cursor=abc). Bad _limit or _token:
            400 {"code":400,"errno":107,"error":"Invalid parameters","message":...,"details":[...]}
  ogc       ?offset=K&limit=L (&f=F), as pygeoapi (OGC API Features): {"type":"FeatureCollection",
            "features":[...],"numberMatched":N,"numberReturned":n,"links":[self, alternate (JSON-LD,
            HTML), prev, next, collection]} as application/geo+json; next while numberMatched > K+L
            or the page is full (so a full last page links an empty one); numberMatched: totals
            count; 400 {"code":"InvalidParameterValue",...} for a bad offset or limit
  x-pagination ?page=P&page_size=L, as flask-smorest: [...] with X-Pagination: {"total": N,
            "total_pages": T, "first_page": 1, "last_page": T, "page": P, "previous_page": P-1,
            "next_page": P+1} (json.dumps; previous_page after page 1, next_page before T, no page
            past T, {"total": 0, "total_pages": 0} for none; totals header); 422 {"code":422,
            "errors":{"query":{...}},"status":"Unprocessable Entity"} for page < 1, page_size
            outside 1..L of --max-limit, or no integer. Other parameters ignored
  page-echo ?current_page=P&page_size=L, as Litestar's ClassicPagination: {"items":[...],
            "page_size":L,"current_page":P,"total_pages":T} (T: totals pages; 0 for none); other
            parameters ignored (page=2 is page 1); 400 {"status_code":400,"detail":"Validation failed
            for GET /notes?...","extra":[...]} for values below 1 or no integer
  offset-echo ?offset=K&limit=L, as Litestar's OffsetPagination: {"items":[...],"limit":L,
            "offset":K,"total":N} (N: totals count); 400 as page-echo
  eve       ?page=P&max_results=L, as Python Eve: {"_items":[{"_id":ID,...}],"_links":{"parent":
            {"title":"home","href":"/"},"self":{"title":"notes","href":"notes?..."},"next":{"title":
            "next page","href":"notes?page=P+1"},"last":{...},"prev":{...}},"_meta":{"page":P,
            "max_results":L,"total":N}}, X-Total-Count: N; hrefs relative without a leading slash,
            max_results in them unless it is --page-size, the request's other parameters raw; notes
            with _id for id; without totals count no total and a next link on every page (Eve's
            OPTIMIZE_PAGINATION_FOR_SPEED). Never an error: bad values are the defaults
  dynamodb  POST /notes with Content-Type: application/x-amz-json-1.0 (and, if sent, X-Amz-Target:
            DynamoDB_20120810.Scan), body {"TableName":"notes","Limit":L,"ExclusiveStartKey":
            {"id":{"S":ID}}} (N for --id-kind int; absent on the first page), as DynamoDB (moto):
            {"Count":n,"Items":[...],"ScannedCount":n,"LastEvaluatedKey":{"id":{"S":ID}}}, the key
            absent on the last page; items are the plain notes, not typed. GET is 400; errors are
            400 {"__type":"com.amazon.coral.validation#ValidationException","message":...} (or
            SerializationException, UnknownOperationException, ResourceNotFoundException)
  Their totals: next-page header (Total-Records); ogc count (numberMatched); x-pagination header
  (X-Pagination, which is then absent: flask-smorest without a PAGINATION_HEADER_NAME); page-echo
  pages; offset-echo count; eve count (_meta.total), header (X-Total-Count), link (_links.last).
  Where the real server derives its next page from its count (ogc, x-pagination, eve), --total-lie
  moves it too; next-page and dynamodb follow the notes.
  @PAGE is the page in the style's terms: offset, ogc and offset-echo floor(K/L)+1; page, drf,
  jsonapi, x-pagination, page-echo and eve P; keyset, next-page and dynamodb the first note's page.

With --updates (GitHub's issues semantics for since):
  Each note ends with "updated_at": an RFC 3339 date-time in UTC, note n<i> 2026-11-30T08:00:00Z plus
  i minutes, whatever the seed; the notes are served in updated_at order (at first the usual order).
  GET /notes?since=T serves only the notes updated at or after T, T an RFC 3339 date-time with Z or
                     an offset (a + percent-encoded as %2B; 2026-11-30T09:00:00%2B01:00); anything
                     else is 422 {"error":"invalid-since","message":...}, two values 400. The pages,
                     cursors and next URLs of a walk with since page through the notes it keeps: the
                     cursor of page K is the one --count gives page K, drf and link carry since in
                     their next URLs, and a cursor past the last page serves an empty page
  POST /admin/touch?count=K
                     edits K notes (default 1; all when fewer) chosen by the seed: the title becomes
                     "Edit E: TITLE" (E: that note's edits so far), updated_at a minute after the
                     newest note's, so the note moves to the end; oldest first
  POST /admin/touch?id=ID&id=ID...
                     edits those notes instead (an id no note has is a 400)
  POST /admin/add?count=K
                     adds K notes new0, new1, ... (with --id-kind int, the ids after the last), each
                     a minute after the newest
  Both change the notes at once and answer 200 {"touched"|"added":[the notes, as GET /notes now
  serves them],"count":NOTES,"newest":T}; K is 0-100000; another method is a 405, another /admin/
  path a 404. /graphql and the Notion-style query serve the same notes, unfiltered. No faults act on
  /admin/; without --updates it is a path like any other (404).

With --repos N (a GitHub-shaped nested API beside /notes, for syncs of parents and their children):
  --repos N          serve N repos at /repos, 0-100000 (default 0: /repos is a 404 like any other
                     path); with --count or --dir. --seed fixes the data
  --issues K         issues per repo on average, 0-1000 (default 4): each repo has 0 to 2K, drawn
  --comments C       comments per issue on average, 0-1000 (default 3): each issue has 0 to 2C, drawn
  --fixed            every repo has exactly K issues and every issue exactly C comments (ids as ever)
  --latency MS       every response under /repos (errors too) is sent MS ms after its request
                     arrived, 0-60000 (default 0), by a timer; a stop ends the waits (no answer)
  --created-round S  every created of /v1/customers and /v1/invoices rounded down to a multiple of S
                     seconds, 1-31536000 (default 1); 86400 puts many on each day's edge
  GET /repos?page=P&per_page=M
                     the repos by id: [{"id":I,"name":"repo-I","full_name":"octo/repo-I",
                     "owner":{"login":"octo"},"updated_at":T,"issues_url":URL},...], I from 1 to N
  GET /repos/octo/repo-I/issues?page=P&per_page=M&since=T
                     that repo's issues by number: {"id":ID,"number":1..,"title":...,"state":"open",
                     "updated_at":T,"repository_url":URL,"comments_url":URL,"comments":COUNT}, ID
                     1000000 + the issue's running number over all repos; since=T keeps those
                     updated at or after T (RFC 3339 with Z or an offset, a + as %2B; else 400)
  GET /repos/octo/repo-I/issues/N/comments?page=P&per_page=M
                     that issue's comments by id: {"id":ID,"body":...,"updated_at":T,
                     "issue_url":URL}, ID 500000000 + the comment's running number over all issues
  GET /repos/octo/repo-I, GET /repos/octo/repo-I/issues/N
                     the repo, the issue, as the lists serve them
  POST /repos/octo/repo-I/issues/N/touch
                     (for tests) the issue's updated_at becomes a second after the last touch's, the
                     first 2026-01-31T00:00:00Z, after every other; nothing else changes;
                     200 {"id":ID,"updated_at":T}
  Paged as GitHub: page 1 and per_page 30 by default, a per_page over 100 served as 100; Link:
  rel="prev", "next", "last", "first" (next and last while a later page has items, prev and first
  after page 1), absolute URLs that keep the request's other parameters; a page past the end is [].
  T: 2026-01-01T00:00:00Z plus up to 30 days in whole seconds, fixed by the seed. URLs start with the
  printed URL's origin (--url-host). Errors as GitHub's: 404 {"message":"Not Found"} for a repo, issue
  or path that is not there, 405 {"message":...} with Allow for another method, 400 {"message":...}
  for a page or per_page below 1 or no integer, or a bad since. With a token (--token-file or
  NOTES_SERVER_TOKEN) every request needs Authorization: Bearer <token>, else the auth fault's 401.
  No faults act on them; the redirect target does not serve them.
  Stripe-shaped lists of the same data (GET only; the same token rule and --latency; Stripe's paging):
  GET /v1/customers?limit=L&starting_after=ID&created[gte]=S
                     {"object":"list","url":"/v1/customers","has_more":B,"data":[{"id":"cus_I",
                     "object":"customer","name":"Customer I","email":"cI@example.com","created":S},
                     ...]}, I from 1 to N (repo I), in order; S: the repo's updated_at in Unix seconds
                     (rounded down by --created-round)
  GET /v1/invoices?customer=cus_I&limit=L&starting_after=ID&created[lt]=S
                     the same envelope, "url":"/v1/invoices", data that customer's invoices (one per
                     issue of repo I) by id: {"id":"in_ID","object":"invoice","customer":"cus_I",
                     "amount_due":100..100000,"status":"open","created":S}, ID the issue's id, S its
                     first updated_at in Unix seconds (rounded); without customer, every invoice
  limit 10 by default, 1-100; starting_after an id of the list: the items after it; has_more true
  exactly when more follow. created[gte]=S, created[gt]=S, created[lt]=S, created[lte]=S (S Unix
  seconds: an optional - and at most 15 digits; brackets raw or percent-encoded) keep only the items
  whose created meets every bound given, in the same order: starting_after is still any id of the unfiltered list,
  the page the kept items after it, has_more true exactly when more kept ones follow; windows
  [gte, lt) that tile a range serve each item of it once. Errors: 400 {"error":{"type":
  "invalid_request_error","message":...,"param":P}} for a bad limit, a bad bound ('Invalid integer:
  "abc"', P the bound, e.g. created[gte]), a parameter given twice, an unknown customer or
  starting_after ("No such customer: 'cus_0'"); 405 (same form, Allow: GET) for another method.

Per request: ?style=drf or X-Notes-Style: link; ?fault=503@2x1 or X-Notes-Fault: delay:50, 500@3;
?totals=none; ?compress=gzip,br or ?compress=none

Log (stderr): METHOD TARGET STATUS BYTESB MSms [graphql=OPERATION vars=JSON | body=JSON] [fault=SPEC,...]
c=CONNECTION t=MS_SINCE_START
  graphql=: a /graphql request's operation type (query, mutation; - for none), :NAME if it has one, and
  its variables; body=: a Notion-style query's body. JSON compact, spaces as \u0020, secrets REDACTED.

Exit status: 0 after SIGTERM/SIGINT, 64 bad arguments, 65 bad manifest or unusable TLS certificate
or key, 66 unreadable input, 1 other.`;
