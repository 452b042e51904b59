import NotesFetch
import NotesPage
import NotesSync
import Testing

/// A child's request made from its parent's record: each placeholder's value addresses nothing but that
/// parent's child, and a field that cannot fill one is an error naming the record and the field.
@Suite("Parent placeholders")
struct ParentTemplateTests {
    static func parent(_ json: String, key: String = "7") throws -> ParentRecord {
        try ParentRecord(resource: "issues", key: key, json: Array(json.utf8))
    }

    static func url(_ template: String, _ json: String) throws -> String {
        try ParentTemplate(template).url(
            for: try parent(json), folder: "https://api.example.com/v1/", origin: Origin("https://api.example.com/v1/"))
    }

    static func error(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "A value in a path is one segment: slashes, queries, escapes, dots and newlines are data",
        arguments: [
            ("../admin", "..%2Fadmin"), ("a/b?x=1#f", "a%2Fb%3Fx%3D1%23f"), ("%2e%2e", "%252e%252e"),
            ("..", "%2E%2E"), (".", "%2E"), ("a.b", "a.b"), ("x\ny", "x%0Ay"), ("é ~-_", "%C3%A9%20~-_"),
        ])
    func pathSegment(value: String, encoded: String) throws {
        var escaped = ""
        for scalar in value.unicodeScalars {
            escaped += scalar == "\n" ? "\\n" : String(scalar)
        }
        let url = try Self.url("repos/{parent.name}/issues", "{\"name\": \"\(escaped)\"}")
        #expect(url == "https://api.example.com/v1/repos/\(encoded)/issues")
        #expect(PageLocator.urlProblem(url) == nil)
    }

    @Test("A value in the query is one value; numbers as written; a JSON Pointer reads keys with dots and slashes")
    func query() throws {
        #expect(
            try Self.url(
                "comments?issue={parent.number}&by={parent.login}",
                #"{"number": 12345678901234567890, "login": "a&b=c"}"#)
                == "https://api.example.com/v1/comments?issue=12345678901234567890&by=a%26b%3Dc")
        #expect(
            try Self.url("x/{parent./a.b~1c}", #"{"a.b/c": true}"#) == "https://api.example.com/v1/x/true")
        #expect(try Self.url("/x/{parent.user.id}", #"{"user": {"id": 3}}"#) == "https://api.example.com/v1/x/3")
    }

    @Test("A whole URL in the template keeps its own host: a placeholder there is refused")
    func hostFromParent() throws {
        #expect(
            try Self.url("https://api.example.com/x/{parent.a}", #"{"a": "b"}"#) == "https://api.example.com/x/b")
        for template in [
            "https://api.example.com{parent.a}/x", "https://{parent.a}/x", "http://api.example.com{parent.a}",
            // A scheme is read without regard to case.
            "HTTPS://{parent.a}/x", "htTp://{parent.a}",
        ] {
            #expect(
                Self.error { try Self.url(template, #"{"a": ".evil.example"}"#) }
                    == "resource 'issues' record 7: a placeholder in the host of a child's URL, which the parent would choose"
            )
        }
    }

    @Test("A path that is one placeholder is a URL the parent holds: on the source's origin, and a valid URL")
    func wholeURL() throws {
        #expect(
            try Self.url(
                "{parent.comments_url}", #"{"comments_url": "https://api.example.com/repos/o/r/issues/1/comments"}"#)
                == "https://api.example.com/repos/o/r/issues/1/comments")
        #expect(
            Self.error { try Self.url("{parent.comments_url}", #"{"comments_url": "https://evil.example/x"}"#) }
                == "resource 'issues' record 7, field comments_url: the URL 'https://evil.example/x' is not on the source's origin; children are fetched from it only"
        )
        #expect(
            Self.error { try Self.url("{parent.u}", #"{"u": "http://api.example.com:443/x"}"#) }?.contains(
                "not on the source's origin") == true)
        #expect(
            Self.error { try Self.url("{parent.u}", #"{"u": "file:///etc/passwd"}"#) }
                == "resource 'issues' record 7, field u: the URL has scheme file; only http and https are followed")
        #expect(
            Self.error { try Self.url("{parent.u}", #"{"u": "https://api.example.com/a b"}"#) }?.contains(
                "is not a valid URL (RFC 3986)") == true)
    }

    @Test(
        "A field missing, null, not a value, empty or too long: an error naming the record and the field",
        arguments: [
            (#"{"b": 1}"#, "resource 'issues' record 7: field a is missing"),
            (#"{"a": null}"#, "resource 'issues' record 7: field a is null"),
            (#"{"a": {"b": 1}}"#, "resource 'issues' record 7: field a is not a value (a string, number or boolean)"),
            (#"{"a": [1]}"#, "resource 'issues' record 7: field a is not a value (a string, number or boolean)"),
            (#"{"a": ""}"#, "resource 'issues' record 7: field a is empty"),
            (
                "{\"a\": \"\(String(repeating: "x", count: 2049))\"}",
                "resource 'issues' record 7: field a is 2049 bytes, over the 2048 a placeholder takes"
            ),
        ])
    func unusable(json: String, message: String) {
        #expect(Self.error { try Self.url("x/{parent.a}", json) } == message)
    }

    @Test("A record that is not a JSON object is refused as a parent; a '{parent.' left open is an error")
    func malformed() {
        #expect(Self.error { try Self.parent("[1]") } == "resource 'issues' record 7: not a JSON object")
        #expect(Self.error { try Self.parent("{") }?.hasPrefix("resource 'issues' record 7: ") == true)
        #expect(Self.error { try ParentTemplate("x/{parent.id") } == "'{parent.' with no '}'")
        #expect(Self.error { try ParentTemplate("x/{parent.a..b}") }?.contains("a key is empty") == true)
        #expect((try? ParentTemplate("x/{id}/{parent}"))?.hasPlaceholders == false)
    }

    @Test("A header's value takes the field as it is, and refuses a control character")
    func header() throws {
        let template = try ParentTemplate("tenant-{parent.slug}")
        #expect(try template.headerValue(for: try Self.parent(#"{"slug": "a b/c"}"#)) == "tenant-a b/c")
        #expect(
            Self.error { try template.headerValue(for: try Self.parent(#"{"slug": "a\r\nX-Evil: 1"}"#)) }
                == "resource 'issues' record 7, field slug: a control character, which a header cannot hold")
    }

    @Test("In JSON a placeholder fills a string's content; one filling a whole string takes the field's own value")
    func json() throws {
        let parent = try Self.parent(#"{"id": 42, "name": "a\"b\\c", "ok": false}"#)
        #expect(
            try ParentTemplate.json(
                #"{"customer": "{parent.id}", "q": "name:{parent.name}", "{parent.id}": ["{parent.ok}", 1]}"#,
                for: parent) == #"{"customer":42,"q":"name:a\"b\\c","{parent.id}":[false,1]}"#)
        #expect(
            Self.error { try ParentTemplate.json(#"{"a": "{parent.missing}"}"#, for: parent) }?.contains("missing")
                == true)
    }

    @Test("An included field is a column: a string's content, another value's JSON, nothing when missing or null")
    func column() throws {
        let parent = try Self.parent(#"{"id": 42, "name": "n", "tags": ["a"], "gone": null}"#)
        #expect(parent.column(at: FieldPath("id")) == "42")
        #expect(parent.column(at: FieldPath("name")) == "n")
        #expect(parent.column(at: FieldPath("tags")) == #"["a"]"#)
        #expect(parent.column(at: FieldPath("gone")) == nil)
        #expect(parent.column(at: FieldPath("nope")) == nil)
    }
}
