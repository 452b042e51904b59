import NotesSync
import Testing

/// Reading a source file: its shape, with the line and column of each mistake, before any request.
@Suite("Source files")
struct SourceFileTests {
    static func read(_ text: String) throws(SourceError) -> SourceFile {
        try SourceFile(bytes: Array(text.utf8), file: "api.yaml")
    }

    /// The error reading `text` gives, as printed.
    static func error(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("A YAML source: base URL, auth from the environment, defaults, resources with their options in order")
    func yaml() throws {
        let source = try Self.read(
            """
            base-url: https://api.example.com/v1/
            auth:
              type: bearer
              token: ${EXAMPLE_TOKEN}
            defaults:
              parallel: 4
            resources:
              - name: projects
                path: projects/
              - name: notes
                path: notes/
                since-path: updated_at
                header:
                  - "Accept: application/json"
                no-title: true
            """)
        #expect(source.baseURL == "https://api.example.com/v1/")
        #expect(source.auth == .bearer(.environment("EXAMPLE_TOKEN")))
        #expect(source.defaults.map(\.key) == ["parallel"])
        #expect(source.resources.map(\.name) == ["projects", "notes"])
        #expect(source.resources.map(\.path) == ["projects/", "notes/"])
        let notes = source.resources[1]
        #expect(notes.options.map(\.key) == ["since-path", "header", "no-title"])
        #expect(
            notes.options.map(\.keyMark) == [
                SourceMark(line: 12, column: 5), .init(line: 13, column: 5), .init(line: 15, column: 5),
            ])
        guard case .scalar("true", plain: true) = notes.options[2].value.value else {
            Issue.record("\(notes.options[2].value.value)")
            return
        }
        #expect(notes.mark == SourceMark(line: 10, column: 5))
    }

    @Test("The same source written as JSON")
    func json() throws {
        let source = try Self.read(
            #"{"base-url": "http://127.0.0.1:8080/", "auth": {"type": "bearer", "token": "@/run/token"}, "resources": [{"name": "notes", "path": "notes", "max-pages": 3}]}"#
        )
        #expect(source.auth == .bearer(.file("/run/token")))
        #expect(source.resources.map(\.name) == ["notes"])
        #expect(source.resources[0].options.map(\.key) == ["max-pages"])
        guard case .scalar("3", plain: true) = source.resources[0].options[0].value.value else {
            Issue.record("\(source.resources[0].options[0].value.value)")
            return
        }
    }

    @Test(
        "Each mistake in the source's own keys is an error naming the file, the line and the column",
        arguments: [
            (
                "base-url: x\nresource:\n  - name: a\n",
                "api.yaml:2:1: unknown key 'resource' in the source (did you mean 'resources'?)"
            ),
            (
                "resources:\n  - name: a\n    path: a\n  - name: a\n    path: b\n",
                "api.yaml:4:5: a second resource named 'a' (the first at line 2)"
            ),
            ("resources:\n  - path: a\n", "api.yaml:2:5: a resource with no 'name'"),
            ("resources:\n  - name: a\n", "api.yaml:2:5: resource 'a' has no 'path'"),
            (
                "resources:\n  - name: Notes\n    path: a\n  - name: notes\n    path: b\n",
                "api.yaml:4:5: a second resource named 'notes' (the first at line 2)"
            ),
            (
                "resources:\n  - name: 1a\n    path: a\n",
                "api.yaml:2:5: '1a' cannot name a resource: letters, digits and _, not starting with a digit, at most 63, not starting with sqlite_ or notes_page_"
            ),
            (
                "resources:\n  - name: notes_page_walks\n    path: a\n",
                "api.yaml:2:5: 'notes_page_walks' cannot name a resource: letters, digits and _, not starting with a digit, at most 63, not starting with sqlite_ or notes_page_"
            ),
            ("resources: []\n", "api.yaml:1:1: no resources: 'resources' lists them, each with a name and a path"),
            ("resources:\n  name: a\n", "api.yaml:2:3: 'resources' is a mapping, not a list"),
            ("- a\n", "api.yaml:1:1: the source is a list, not a mapping of base-url, auth, defaults, resources"),
            (
                "defaults:\n  name: x\nresources:\n  - name: a\n    path: a\n",
                "api.yaml:2:3: 'name' is each resource's own, not a default"
            ),
            (
                "auth:\n  type: bearer\n  token: ghp_secret123\nresources:\n  - name: a\n    path: a\n",
                "api.yaml:3:10: the token is written in the source: give it as ${NAME} (an environment variable) or @path (a file)"
            ),
            (
                "auth:\n  type: digest\nresources:\n  - name: a\n    path: a\n",
                "api.yaml:2:9: 'auth' type 'digest' is not one of bearer, basic, api-key, oauth2-client-credentials, oauth2-refresh-token, aws-sigv4"
            ),
            (
                "auth:\n  type: bearer\n  tokn: ${T}\n",
                "api.yaml:3:3: unknown key 'tokn' in 'auth' of type bearer (did you mean 'token'?)"
            ),
        ])
    func mistakes(_ text: String, _ message: String) {
        #expect(Self.error(text) == message)
    }

    @Test(
        "What YAML can do but a source may not, and what is not YAML, are errors with the place",
        arguments: [
            ("a: &x 1\nb: *x\n", "api.yaml:1:4: an anchor (&name): anchors and aliases are not read"),
            ("a: *x\n", "api.yaml:1:4: an alias (*name): anchors and aliases are not read, write the value again"),
            (
                "a: !!python/object 1\n",
                "api.yaml:1:4: a tag (!…): values are read as written, with no tags"
            ),
            ("a: 1\nb: \u{7}\n", "api.yaml:2:4: not YAML or JSON: control characters are not allowed"),
            ("a: 1\na: 2\n", "api.yaml:2:1: 'a' again in the same mapping (first at line 1)"),
            ("a: 1\n---\nb: 2\n", "api.yaml:2:1: a second document: a source file is one document"),
            ("", "api.yaml: the file holds no document"),
            (
                "a: [1, 2\n",
                "api.yaml:2:1: not YAML or JSON: did not find expected ',' or ']' while parsing a flow sequence"
            ),
            ("? [a]\n: 1\n", "api.yaml:1:3: a key that is a list: keys are names"),
        ])
    func notASource(_ text: String, _ message: String) {
        #expect(Self.error(text) == message)
    }

    @Test("Nesting past the limit, and more values than the limit, are refused at the place")
    func limits() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(Self.error(deep) == "api.yaml:1:33: nested deeper than 32 levels")
        let many = "[" + Array(repeating: "1", count: 100_001).joined(separator: ",") + "]"
        #expect(Self.error(many)?.hasSuffix(": more than 100000 values") == true)
        // A mapping of 40,000 keys is read whole (then its first key is unknown).
        let keys = "{" + (0..<40_000).map { "k\($0): 1" }.joined(separator: ", ") + "}"
        #expect(Self.error(keys)?.hasPrefix("api.yaml:1:2: unknown key 'k0' in the source") == true)
        let long = "a: " + String(repeating: "x", count: 70_000)
        #expect(Self.error(long) == "api.yaml:1:4: a value longer than 65536 bytes")
    }

    @Test("A key a letter off names the one it is close to; one far from all lists the keys")
    func suggestions() {
        #expect(SourceFile.closest(to: "max-page", in: ["max-pages", "max-notes"]) == "max-pages")
        #expect(SourceFile.closest(to: "zzzz", in: ["max-pages", "max-notes"]) == nil)
        #expect(
            SourceFile.unknown("zzzz", known: ["a", "b"], in: "the source")
                == "unknown key 'zzzz' in the source; known: a, b")
    }

    @Test("${NAME} is replaced by the variable's value; one not set, or a '${' left open, is an error")
    func expand() throws {
        let environment = ["TOKEN": "t0k", "EMPTY": ""]
        #expect(try SourceSecret.expand("Bearer ${TOKEN}", from: environment) == "Bearer t0k")
        #expect(try SourceSecret.expand("$5 and ${TOKEN}${TOKEN}", from: environment) == "$5 and t0kt0k")
        #expect(try SourceSecret.expand("plain", from: environment) == "plain")
        #expect(throws: SourceSecret.ExpansionError.self) { try SourceSecret.expand("${MISSING}", from: environment) }
        #expect(throws: SourceSecret.ExpansionError.self) { try SourceSecret.expand("${EMPTY}", from: environment) }
        #expect(throws: SourceSecret.ExpansionError.self) { try SourceSecret.expand("${TOKEN", from: environment) }
    }
}
