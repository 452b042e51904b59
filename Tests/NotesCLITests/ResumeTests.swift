import ArgumentParsing
import Foundation
import NotesFetch
import NotesStore
import TestSupport
import Testing

@testable import NotesCLI
@testable import NotesStore

/// `fetch --state` in process, against a ``FakeAPI``: a run killed at every step of every page's commit,
/// then resumed, must fetch each page it had not committed once more and no other, and end with every
/// note exactly once.
@Suite("Resume after a kill, in process")
struct ResumeTests {
    static let api = FakeAPI(pages: 3, size: 4)

    static func arguments(_ scratch: Scratch) -> [String] {
        ["--all", "-o", scratch.path("out.ndjson"), "--state", scratch.path("state.json")]
    }

    @Test(
        "Killed after any step of any page's commit, then resumed: each page once, the output exact",
        arguments: [CommitStep.output, .journal, .state], 1...3
    )
    func killedAtEveryStep(step: CommitStep, page: Int) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = Self.api.transport()
        let killed = try await InProcessRun(
            Self.arguments(scratch), transport: first, kill: SimulatedKill(page: page, step: step))
        #expect(killed.status == .ioError)
        #expect(
            killed.messages.hasPrefix("Error: page \(page) (\(page == 1 ? "the first page" : "cursor c\(page)")): "))
        #expect(killed.stderr.contains("simulated kill after the \(step) step"))
        #expect(first.requests.map(\.url) == (1...page).map(FakeAPI.url))

        // What a kill in the middle of the next writes leaves behind: a torn line, a torn journal record,
        // a half-written temporary state file. None of it is committed.
        try scratch.append(#"{"id":"torn","ti"#, to: "out.ndjson")
        try scratch.append("P\u{7F}\u{05}tor", to: "state.json.journal")
        try Files.write("{\"version\": 1, \"ur", to: scratch.path("state.json.tmp"))

        // The page whose state was saved is committed; any other step leaves it to be fetched again.
        let committed = step == .state ? page : page - 1
        let second = Self.api.transport()
        let resumed = try await InProcessRun(Self.arguments(scratch), transport: second)
        #expect(resumed.status == .success, "\(resumed.stderr)")
        #expect(second.requests.map(\.url) == (committed + 1..<4).map(FakeAPI.url))
        if committed == 3 {
            #expect(resumed.messages == "Already complete: 12 notes in 3 pages.\n")
        } else {
            #expect(resumed.messages.hasPrefix("12 notes, 3 pages, "), "\(resumed.stderr)")
        }
        #expect(try scratch.read("out.ndjson") == Self.api.ndjson(1...3))

        let third = Self.api.transport()
        let again = try await InProcessRun(Self.arguments(scratch), transport: third)
        #expect(again.status == .success)
        #expect(third.requests.isEmpty)
        #expect(again.messages == "Already complete: 12 notes in 3 pages.\n")
    }

    @Test("A resumed run cuts the output and the journal back to the last committed page before writing")
    func cutBack() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let killed = try await InProcessRun(
            Self.arguments(scratch), transport: Self.api.transport(), kill: SimulatedKill(page: 2, step: .journal))
        #expect(killed.status == .ioError)
        let state = try #require(try SavedState.load(scratch.path("state.json")))
        #expect(state.checkpoint.pages == 1)
        #expect(state.outputBytes == Self.api.ndjson(1...1).utf8.count)
        // Page 2 reached the output and the journal, but not the state.
        #expect(try scratch.size("out.ndjson") == Self.api.ndjson(1...2).utf8.count)
        #expect(try scratch.size("state.json.journal") > state.journalBytes)

        let parsed = try ParsedArguments(Self.arguments(scratch) + [FakeAPI.endpoint], spec: FetchCommand.spec)
        let command = try FetchCommand(parsed, environment: [:])
        let session = try FetchSession(command: command, afterStep: { _ throws(CommitStop) in })
        #expect(try scratch.size("out.ndjson") == state.outputBytes)
        #expect(try scratch.size("state.json.journal") == state.journalBytes)
        #expect(session.state == state.checkpoint)
        #expect(session.walk.ids.count == 4)
    }

    @Test("Uniqueness holds across a resume: a page after it that repeats an id before it is refused")
    func uniquenessAcrossResume() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var api = FakeAPI(pages: 2, size: 4)
        let stopped = try await InProcessRun(
            Self.arguments(scratch) + ["--max-pages", "1"], transport: api.transport())
        #expect(stopped.status == .success)
        #expect(try SavedState.load(scratch.path("state.json"))?.checkpoint.next == .cursor("c2"))

        api.pages[1][2] = "p1-3"
        let second = api.transport()
        let resumed = try await InProcessRun(Self.arguments(scratch), transport: second)
        #expect(resumed.status == .dataError)
        #expect(second.requests.map(\.url) == [FakeAPI.url(page: 2)])
        let firstLine = resumed.messages.split(separator: "\n").first.map(String.init)
        #expect(
            firstLine
                == #"Error: page 2 (cursor c2): duplicate id "p1-3", seen on page 1 (note 2, byte 98)"#)
        #expect(try scratch.read("out.ndjson") == api.ndjson(1...1))
    }

    @Test("Cycles are caught across a resume: a next page visited before the resume ends the run")
    func cycleAcrossResume() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var api = FakeAPI(pages: 3, size: 2)
        let stopped = try await InProcessRun(
            Self.arguments(scratch) + ["--max-pages", "2"], transport: api.transport())
        #expect(stopped.status == .success)

        api.nextCursors[3] = "c2"
        let second = api.transport()
        let resumed = try await InProcessRun(Self.arguments(scratch), transport: second)
        #expect(resumed.status == .dataError)
        #expect(second.requests.map(\.url) == [FakeAPI.url(page: 3)])
        #expect(
            resumed.messages.hasPrefix(
                "Error: page 3 (cursor c3): the server sent a next page already visited in this run (a cursor cycle)\n"
            ))
        #expect(try scratch.read("out.ndjson") == api.ndjson(1...2))
    }

    @Test("The state of another endpoint is refused before any request")
    func otherEndpoint() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try await InProcessRun(Self.arguments(scratch), transport: Self.api.transport())
        #expect(first.status == .success)
        let other = Self.api.transport()
        let run = try await InProcessRun(
            Self.arguments(scratch), transport: other, endpoint: "http://127.0.0.1:9/other")
        #expect(run.status == .ioError)
        #expect(
            run.messages
                == "Error: '\(scratch.path("state.json"))' is the state of another run (\(FakeAPI.endpoint))\n"
        )
        #expect(other.requests.isEmpty)
    }
}
