import AllocationCounter
import Foundation
import NotesPage
import YajlNoop

/// What one in-process run did, as the child reports it to the parent.
struct WorkloadResult: Codable {
    /// Seconds of the measured part only (input already in memory).
    var seconds: Double
    var notes: Int
    var bytes: Int
    /// The process's high-water mark of resident memory (`VmHWM`), in bytes.
    var peakResident: Int = 0
    /// Heap allocations during the measured part, where the platform can count them.
    var allocations: Int?
}

/// Times `body` (which returns the notes it made of `bytes` bytes) and counts its heap allocations, where
/// the platform can.
func measured(bytes: Int, _ body: () -> Int) -> WorkloadResult {
    let allocated = notes_allocations()
    let start = now()
    let notes = body()
    let seconds = now() - start
    let allocations = allocated < 0 ? nil : notes_allocations() - allocated
    return WorkloadResult(seconds: seconds, notes: notes, bytes: bytes, allocations: allocations)
}

/// This process's `VmHWM` from `/proc/self/status`, in bytes. (`ru_maxrss` from `wait4` will not do: a
/// child started with `posix_spawn` inherits the parent's high-water mark at `execve`.)
func peakResidentOfThisProcess() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

/// The benchmarks that run inside a child process, over a page already read into memory.
enum Workload: String, CaseIterable {
    case yajlNoop = "yajl-noop"
    case jsonDecoder = "jsondecoder"
    case typed = "typed"
    case typed64K = "typed-64k"
    /// ``typed64K`` over the same notes with integer ids (``Inputs/integerPagePath``).
    case typed64KIntegerIDs = "typed-64k-int"
    case typed1K = "typed-1k"
    case passThrough = "passthrough-64k"
    case idSet = "idset"

    /// Runs over `page` (already in memory); `pageBytes` sizes the id set workload, which needs no page.
    func run(page: [UInt8], pageBytes: Int) -> WorkloadResult {
        switch self {
        case .yajlNoop: return Self.yajl(page, chunk: 0)
        case .jsonDecoder: return Self.foundation(page)
        case .typed: return Self.decode(page, chunk: page.count, keepsJSON: false)
        case .typed64K, .typed64KIntegerIDs: return Self.decode(page, chunk: 64 << 10, keepsJSON: false)
        case .typed1K: return Self.decode(page, chunk: 1 << 10, keepsJSON: false)
        case .passThrough: return Self.decode(page, chunk: 64 << 10, keepsJSON: true)
        case .idSet: return Self.ids(count: pageBytes)
        }
    }

    /// The page the workload reads: the integer-id page for ``typed64KIntegerIDs``, the string-id page
    /// for every other.
    func input(_ inputs: Inputs) -> String {
        self == .typed64KIntegerIDs ? inputs.integerPagePath : inputs.pagePath
    }

    private static func yajl(_ page: [UInt8], chunk: Int) -> WorkloadResult {
        measured(bytes: page.count) {
            let events = page.withUnsafeBufferPointer { yajl_noop_parse($0.baseAddress, $0.count, chunk) }
            precondition(events > 0, "yajl rejected the page")
            return 0
        }
    }

    /// What the naive client does: JSONDecoder into `[Note]`, then a `Set<String>` of ids.
    private static func foundation(_ page: [UInt8]) -> WorkloadResult {
        struct Page: Decodable {
            struct Note: Decodable {
                var id: String
                var title: String
            }
            var notes: [Note]
        }
        let data = Data(page)
        return measured(bytes: page.count) {
            let decoded = try! JSONDecoder().decode(Page.self, from: data)
            var ids = Set<String>()
            for note in decoded.notes { precondition(ids.insert(note.id).inserted, "duplicate id") }
            return decoded.notes.count
        }
    }

    private static func decode(_ page: [UInt8], chunk: Int, keepsJSON: Bool) -> WorkloadResult {
        var configuration = PageConfiguration()
        configuration.limits.maxDocumentBytes = Int.max
        configuration.maxPageNotes = Int.max
        configuration.keepsJSON = keepsJSON
        let ids = IDSet()
        var decoder = PageDecoder(configuration: configuration, ids: ids)
        var notes: [Note] = []
        return measured(bytes: page.count) {
            var count = 0
            page.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + chunk)
                    try! decoder.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), into: &notes)
                    count += notes.count
                    notes.removeAll(keepingCapacity: true)
                    offset = end
                }
            }
            _ = try! decoder.finish(into: &notes)
            return count + notes.count
        }
    }

    /// The id set alone: as many ids as the page has bytes / 177 (a note's average size).
    private static func ids(count bytes: Int) -> WorkloadResult {
        let total = max(1, bytes / 177)
        let ids = IDSet()
        // The ids are written before the clock starts: what is measured is the set, not their formatting.
        let width = "note-0000000000000000".utf8.count
        var all = [UInt8](repeating: 0, count: total * width)
        for index in 0..<total {
            var value = index
            all.replaceSubrange(index * width..<index * width + 5, with: "note-".utf8)
            for position in stride(from: width - 1, through: 5, by: -1) {
                all[index * width + position] = UInt8(ascii: "0") &+ UInt8(value % 10)
                value /= 10
            }
        }
        return measured(bytes: total * width) {
            all.withUnsafeBytes { buffer in
                for index in 0..<total {
                    _ = ids.insert(UnsafeRawBufferPointer(rebasing: buffer[index * width..<(index + 1) * width]))
                }
            }
            return total
        }
    }
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
