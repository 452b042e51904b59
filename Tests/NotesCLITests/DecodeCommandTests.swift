import Foundation
import TestSupport
import Testing

@Suite("notes-page decode, end to end")
struct DecodeCommandTests {
    @Test("A valid page: each note's exact JSON on stdout, the cursor and a summary on stderr")
    func validPage() async throws {
        let run = try await Run(["decode", "valid-page.json"])
        #expect(run.status == 0)
        #expect(
            run.stdout == """
                {"id":"n1","title":"Groceries","pinned":true,"rank":1.50e3}
                {"id":"n2","title":"Café \\"quotes\\" \\\\ back/slash","tags":["a","b"],"meta":{"created":"2026-11-30T06:49:28Z","edits":null}}
                {"id":"n3","title":"日本語 😀 😀","big":-9223372036854775808,"tiny":1e-400,"ctrl":"tab\\there\\u0001"}

                """
        )
        #expect(run.stderr.hasPrefix("next cursor: c2\n3 notes, 377 bytes, "))
    }

    @Test("Standard input, ids format")
    func stdinIDs() async throws {
        let page = try Files.data(Run.fixtures.appendingPathComponent("cursor-first.json"))
        let run = try await Run(["decode", "--format", "ids", "-"], stdin: page)
        #expect(run.status == 0)
        #expect(run.stdout == "a\nb\n")
        #expect(run.stderr.hasPrefix("next cursor: b64:Y3Vyc29yPTI=\n2 notes, "))
    }

    @Test("An empty page is a success that says No notes")
    func emptyPage() async throws {
        let run = try await Run(["decode", "empty-page.json"])
        #expect(run.status == 0)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("next cursor: none (last page)\nNo notes, 35 bytes, "))
    }

    @Test("Other paths, validate only")
    func paths() async throws {
        let run = try await Run([
            "decode", "--items-path", "results", "--next-path", "next", "--format", "none", "drf-page.json",
        ])
        #expect(run.status == 0)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("next cursor: http://127.0.0.1:8080/notes?cursor=cD0y\n1 note, "))
    }

    @Test(
        "A page that breaks the contract exits 65 naming what and where",
        arguments: [
            (["missing-id.json"], "Error: missing-id.json: note has no 'id' (note 1, byte 65)\n", 1),
            (
                ["html-body.html"],
                "Error: html-body.html: invalid JSON: lexical error: invalid char in json text. (byte 1)\n", 0
            ),
            (
                ["--max-string-bytes", "64", "string-over-cap.json"],
                "Error: string-over-cap.json: string longer than 64 bytes (byte 98)\n", 0
            ),
            (
                ["duplicate-id.json"],
                "Error: duplicate-id.json: duplicate id \"dup\", seen earlier on this page (note 2, byte 87)\n", 2
            ),
        ]
    )
    func contractErrors(_ arguments: [String], stderr: String, notesBefore: Int) async throws {
        let run = try await Run(["decode"] + arguments)
        #expect(run.status == 65)
        #expect(run.stderr == stderr)
        #expect(run.stdout.split(separator: "\n").count == notesBefore)
    }

    @Test(
        "Usage errors exit 64 with the command's help hint",
        arguments: [
            (
                ["decode", "--max-depth", "x"],
                "Error: Invalid value 'x' for '--max-depth': expected an integer from 2 to 100000\n"
            ),
            (
                ["decode", "--format", "xml"],
                "Error: Invalid value 'xml' for '--format': expected one of ndjson, ids, none\n"
            ),
            (
                ["decode", "--items-path", "a", "--next-path", "a.b"],
                "Error: Invalid paths: the items path 'a' and the next path 'a.b' overlap\n"
            ),
            (["decode", "a", "b"], "Error: Unexpected argument 'b'\n"),
        ]
    )
    func usageErrors(_ arguments: [String], stderr: String) async throws {
        let run = try await Run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr == stderr + "See 'notes-page decode --help' for more information.\n")
        #expect(run.stdout == "")
    }

    @Test("Help and unknown subcommands")
    func help() async throws {
        let help = try await Run(["decode", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: Decode one page"))
        for section in ["USAGE: notes-page decode [<file>] [<options>]", "ARGUMENTS:", "OPTIONS:", "  -h, --help"] {
            #expect(help.stdout.contains(section))
        }
        let root = try await Run(["--help"])
        #expect(root.status == 0)
        #expect(
            root.stdout.hasSuffix(
                """
                SUBCOMMANDS:
                  fetch         Fetch notes from an endpoint: one page, or every page with --all.
                  decode        Decode one page from a file or standard input.
                  sync          Walk every resource of a source file, each into a table or a file of its own.

                  See 'notes-page help <subcommand>' for detailed help.

                """))
        let unknown = try await Run(["nope"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "Error: Unknown subcommand 'nope'\nSee 'notes-page --help' for more information.\n")
    }

    @Test("A missing file exits 66")
    func missingFile() async throws {
        let run = try await Run(["decode", "no-such-page.json"])
        #expect(run.status == 66)
        #expect(run.stderr == "Error: cannot open 'no-such-page.json': No such file or directory\n")
    }
}
