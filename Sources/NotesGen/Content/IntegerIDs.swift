/// The ids of `--id-kind int`: positive integers that rise with gaps, as in a table after deletes.
///
/// Each group of 8 notes takes the next 10 ids, less two "deleted" ones that are never the group's first:
/// group `g` holds ids `10g+1` to `10g+10`, and the seed and `g` choose which two of the last nine are
/// missing. Note 0's id is therefore always 1, ids rise by 1, 2 or 3, and id and index convert in constant
/// time. For seed 42 the first ids are 1, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, ….
///
/// This is the fixture server's rule (`noteId` in `Tools/fixture-server/notes/generated.mjs`), computed the same way,
/// so notes-gen and `notes-server.mjs --count … --id-kind int` give a seed's notes the same ids. The
/// server's hash reads the seed as a 32-bit integer (JavaScript's `ToInt32`), so only the seed's low 32
/// bits choose the gaps: seeds that differ by a multiple of 2³² share ids (and nothing else).
public enum IntegerIDs {
    /// Notes in a group.
    static let groupNotes = 8
    /// Ids a group spans, deleted ones included.
    static let groupIDs = 10

    /// The id of note `index` (0-based) of the run seeded with `seed`.
    /// - Precondition: `index >= 0`.
    public static func id(seed: UInt64, note index: Int) -> UInt64 {
        precondition(index >= 0, "a note index is at least 0")
        let group = index / groupNotes
        let (first, second) = deletedSlots(seed: seed, group: group)
        var slot = index % groupNotes
        if slot >= first { slot += 1 }
        if slot >= second { slot += 1 }
        return UInt64(group) * UInt64(groupIDs) + UInt64(slot) + 1
    }

    /// The two deleted slots of group `group`, from 1 to 9, the smaller first (`deletedSlots` in the
    /// server).
    static func deletedSlots(seed: UInt64, group: Int) -> (Int, Int) {
        let hash = mix32(UInt32(truncatingIfNeeded: seed) ^ 0x1D5E_1D5E, UInt32(truncatingIfNeeded: group))
        let first = 1 + Int(hash % 9)
        var second = 1 + Int((hash >> 8) % 8)
        if second >= first { second += 1 }
        return first < second ? (first, second) : (second, first)
    }

    /// The server's 32-bit hash of a seed and a number (`mix32`): both mixed in, then MurmurHash3's
    /// finalizer, all arithmetic modulo 2³² as `Math.imul` and `| 0` do it.
    static func mix32(_ seed: UInt32, _ value: UInt32) -> UInt32 {
        var hash = value &* 0x9E37_79B9 &+ seed &* 0x85EB_CA6B &+ 0x27D4_EB2F
        hash = (hash ^ (hash >> 16)) &* 0x85EB_CA6B
        hash = (hash ^ (hash >> 13)) &* 0xC2B2_AE35
        return hash ^ (hash >> 16)
    }
}
