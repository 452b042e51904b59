import Dispatch
import Foundation
import NotesPage
import Synchronization
import TestSupport
import Testing

@testable import NotesFetch

/// Query parameters set over bytes: what `URLComponents` reads back from the URL built, and no setter of
/// its that traps on names it did not encode itself.
@Suite("A page's URL: query parameters set over bytes")
struct PageCostTests {
    /// The query's pairs as `URLComponents` reads them (decoded), the oracle for what was set.
    func readBack(_ url: String) -> [String: [String]] {
        var pairs: [String: [String]] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] {
            pairs[item.name, default: []].append(item.value ?? "")
        }
        return pairs
    }

    @Test(
        "Each parameter set once, with its value; the others kept, in their place; any URL shape",
        arguments: [
            "http://127.0.0.1:8080/notes", "http://127.0.0.1:8080/notes?limit=2",
            "https://api.example/v1/notes?cursor=old&limit=2", "https://api.example/notes?a=1&cursor=x&b=2&cursor=y",
            "https://api.example/notes?flag&cursor", "https://api.example/n%20otes?q=a%2Bb",
            "http://user@host:9/notes?limit=10#top", "http://host/notes?", "http://host/notes?a=1&&b=2",
            "http://host/notes?page%5Boffset%5D=100&page%5Blimit%5D=100",
        ])
    func setting(url: String) throws {
        for parameters in [
            [("cursor", "q+/=x y")], [("offset", "20"), ("limit", "10")], [("cursor", "ünï")],
            [("page[offset]", "200"), ("page[limit]", "100")], [("filter[x y]", "a&b")],
        ] {
            let built = PageLocator.setting(parameters.map { (name: $0.0, value: $0.1) }, on: url)
            // Empty pairs (`&&`) are dropped.
            var expected = readBack(url).filter { !$0.key.isEmpty }
            for (name, value) in parameters { expected[name] = [value] }
            #expect(readBack(built) == expected, "\(url) \(parameters): \(built)")
            #expect(URL(string: built) != nil, "\(built)")
            // The parts around the query are untouched.
            let before = url.prefix { $0 != "?" && $0 != "#" }
            #expect(built.hasPrefix(before + "?"), "\(built)")
            if url.contains("#") { #expect(built.hasSuffix("#top"), "\(built)") }
            // What comes first keeps its place.
            if let first = URLComponents(string: url)?.queryItems?.first,
                !parameters.contains(where: { $0.0 == first.name }),
                !first.name.isEmpty
            {
                #expect(URLComponents(string: built)?.queryItems?.first?.name == first.name, "\(built)")
            }
        }
    }

    @Test("A bracketed name keeps the server's spelling, raw or encoded; a new one is percent-encoded")
    func brackets() {
        #expect(
            PageLocator.setting([("page[offset]", "200")], on: "http://h/n?page%5Blimit%5D=100&page%5Boffset%5D=100")
                == "http://h/n?page%5Blimit%5D=100&page%5Boffset%5D=200")
        #expect(
            PageLocator.setting([("page[number]", "3")], on: "http://h/n?page[number]=2") == "http://h/n?page[number]=3"
        )
        #expect(PageLocator.setting([("page[number]", "1")], on: "http://h/n") == "http://h/n?page%5Bnumber%5D=1")
        // A stray % is itself, not an escape.
        #expect(PageLocator.setting([("a%", "1")], on: "http://h/n?a%=0&a%25=9") == "http://h/n?a%=1")
    }

    @Test("A cursor's bytes are percent-encoded, all but letters, digits and - . _ ~ (a base64 + is not a space)")
    func cursorEncoded() {
        #expect(
            PageLocator.setting([("cursor", "+/8h=ü ~-._")], on: "http://h/notes")
                == "http://h/notes?cursor=%2B%2F8h%3D%C3%BC%20~-._")
        #expect(PageLocator.percentEncode("a+b/c==") == "a%2Bb%2Fc%3D%3D")
    }

    @Test("Field names are compared without case, and only ASCII letters fold")
    func fieldNames() {
        let head = HTTPResponseHead(status: 200, headers: [HTTPHeader("content-TYPE", "a"), HTTPHeader("X-[", "b")])
        #expect(head.value(of: "Content-Type") == "a")
        #expect(head.value(of: "content-typ") == nil)
        #expect(head.value(of: "X-{") == nil, "'[' and '{' differ only in the bit that folds letters")
        #expect(head.values(of: "x-[") == ["b"])
    }
}

/// Tokens read where they live, at every request.
@Suite("Token providers")
struct TokenProviderTests {
    @Test("A token file is read at every request: its first line, trimmed; none while it cannot be read")
    func file() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "token-\(UInt64.random(in: 0...UInt64.max))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let provider = FileToken(path: path)
        #expect(provider.currentToken() == nil)
        try Files.write("first \n second\n", to: path)
        #expect(provider.currentToken()?.value == "first")
        try Files.write("rotated", to: path)
        #expect(provider.currentToken()?.value == "rotated")
        try Files.write(String(repeating: "x", count: FetchLimits.maxTokenFileBytes + 1), to: path)
        #expect(provider.currentToken() == nil, "a file over the limit gives no token")
    }

    @Test("A token file is opened closed on exec: a child the host process starts meanwhile never holds it")
    func fileClosedOnExec() throws {
        // A FIFO holds the provider inside its read, with the file open, until the test has looked.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "token-fifo-\(UInt64.random(in: 0...UInt64.max))"
        ).path
        try #require(mkfifo(path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let provider = FileToken(path: path)
        let read = DispatchSemaphore(value: 0)
        let token = Mutex<String?>(nil)
        Thread.detachNewThread {
            token.withLock { $0 = provider.currentToken()?.value }
            read.signal()
        }
        var writer: Int32 = -1
        for _ in 0..<500 where writer < 0 {  // ENXIO until the provider has opened its end
            writer = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if writer < 0 { usleep(10_000) }
        }
        try #require(writer >= 0, "the provider never opened the file")
        // The provider returns from open(2) a moment after the writer got in: wait for its descriptor.
        var readers: [Bool] = []
        for _ in 0..<500 where readers.isEmpty {
            readers = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name -> Bool? in
                guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == path,
                    let line = try Files.text("/proc/self/fdinfo/\(name)").split(separator: "\n").first(where: {
                        $0.hasPrefix("flags:")
                    }),
                    let flags = Int(line.dropFirst(6).filter { $0 != " " && $0 != "\t" }, radix: 8),
                    flags & Int(O_ACCMODE) == Int(O_RDONLY)
                else { return nil }
                return flags & 0o2000000 != 0
            }
            if readers.isEmpty { usleep(10_000) }
        }
        _ = "tok\n".utf8CString.withUnsafeBytes { write(writer, $0.baseAddress, 4) }
        close(writer)
        #expect(read.wait(timeout: .now() + 10) == .success)
        #expect(readers == [true], "the provider's one descriptor of the file is closed on exec")
        #expect(token.withLock { $0 } == "tok")
    }

    @Test("An environment variable is read at every request")
    func environment() {
        // An environment of the test's own: setenv in this process would race the children other tests
        // start meanwhile (Foundation's Process copies environ while setenv reallocates it).
        let environment = Mutex([String: String]())
        let provider = EnvironmentToken(variable: "NOTES_TOKEN") { name in environment.withLock { $0[name] } }
        #expect(provider.currentToken() == nil)
        environment.withLock { $0["NOTES_TOKEN"] = " abc\n" }
        #expect(provider.currentToken()?.value == "abc")
        environment.withLock { $0["NOTES_TOKEN"] = nil }
        #expect(provider.currentToken() == nil)
        #expect(
            EnvironmentToken(variable: "NOTES_TEST_SURELY_UNSET_\(UInt32.random(in: 0...UInt32.max))").currentToken()
                == nil)
    }
}

/// Which heads carry a body that a client must undo (an early exchange with one is refused).
@Suite("A head's codings")
struct CodingTests {
    func coded(_ fields: [(String, String)]) -> Bool {
        HTTPResponseHead(status: 200, headers: fields.map { HTTPHeader($0.0, $0.1) }).hasCoding
    }

    @Test("Every Content-Encoding and Transfer-Encoding field and value counts; identity and chunked do not")
    func codings() {
        #expect(!coded([]))
        #expect(!coded([("Content-Encoding", "identity"), ("Transfer-Encoding", "chunked")]))
        #expect(!coded([("content-encoding", " Identity ")]))
        #expect(coded([("Content-Encoding", "gzip")]))
        #expect(coded([("Content-Encoding", "identity"), ("Content-Encoding", "br")]))
        #expect(coded([("Content-Encoding", "identity, deflate")]))
        #expect(coded([("Transfer-Encoding", "gzip, chunked")]))
    }
}

/// The next value read off a page's last bytes, before the decoder gets there.
@Suite("The next value, guessed from the bytes")
struct NextValuePeekTests {
    func guess(_ text: String, key: String = "next_cursor") -> String? {
        Array(text.utf8).withUnsafeBytes { NextValuePeek.value(after: Array(key.utf8), in: $0) }
    }

    @Test("A string or number after the key at the end of the document is read; braces and spaces may follow")
    func read() {
        #expect(guess(#"{"notes":[],"next_cursor":"c2=="}"#) == "c2==")
        #expect(guess(#"{"notes":[] , "next_cursor" : 17 }"# + "\n") == "17")
        #expect(guess(#"{"notes":[],"meta":{"next_cursor":"x"}}"#) == "x")
        #expect(guess(#"{"next_cursor":"héllo"}"#) == "héllo")
        #expect(
            guess(#"{"notes":[],"next":"https://api.example/n?after=9"}"#, key: "next")
                == "https://api.example/n?after=9")
    }

    @Test("Anything else gives no guess: null, an escape, another key, a value not at the end, a cut document")
    func none() {
        #expect(guess(#"{"notes":[],"next_cursor":null}"#) == nil)
        #expect(guess(#"{"notes":[],"next_cursor":"a\/b"}"#) == nil)
        #expect(guess(#"{"notes":[],"cursor":"c"}"#) == nil)
        #expect(guess(#"{"next_cursor":"c","notes":[]}"#) == nil)
        #expect(guess(#"{"notes":[],"next_cursor":"c"#) == nil)
        #expect(guess(#"{"notes":[],"next_cursor":"c"],"#) == nil)
        #expect(guess(#"["next_cursor":"c"}"#) == nil, "a key follows { or ,")
        #expect(guess(#"}"#) == nil)
        #expect(guess(#"{"notes":[],"next_cursor":e5}"#) == nil, "a number starts with a digit or a minus")
        #expect(guess(#"{"notes":[],"next_cursor":-}"#) == nil)
        #expect(guess("") == nil)
    }
}

@Suite("The Accept header")
struct AcceptTests {
    @Test("JSON first and anything else at a lower quality, unless the caller sends an Accept of its own")
    func accept() {
        #expect(HTTPRequest(url: "http://h/n").accept == "application/json, */*;q=0.8")
        #expect(
            HTTPRequest(url: "http://h/n", headers: [HTTPHeader("accept", "application/vnd.api+json")]).accept == nil)
    }
}
