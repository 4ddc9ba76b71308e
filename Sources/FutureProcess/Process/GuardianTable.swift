import FutureCore
import Synchronization
import _CFutureShims

/// The process groups a guardian must stop, in memory this process shares with its guardian.
/// Entry 0 holds how many entries have ever been used; entries from 1 hold a group id, or 0 when
/// free. Recording or clearing a group is one atomic store: no system call and no
/// wake-up of the guardian per job.
///
/// The mapping is as large as ``capacity`` entries but only the pages of entries ever used take
/// memory, and entries are reused smallest first. A table lives as long as its process.
// @unchecked Sendable: the mapped words are only read and written with atomic loads and stores
// (in C, as the guardian process sees them), and the free list is behind a Mutex.
final class GuardianTable: @unchecked Sendable {  // safe: see the comment above
    /// Entries available for groups (one fewer than the mapping holds).
    let capacity: Int
    /// The shared words, for the guardian (``fc_start_guardian``).
    let words: UnsafeMutablePointer<Int32>
    private let entries: Locked<NumberPool>

    /// Creates the table for `capacity` groups. `nil` if the system gives no shared memory.
    init?(capacity: Int = 1 << 20) {
        guard let words = fc_map_shared_anonymous((capacity + 1) * MemoryLayout<Int32>.stride) else { return nil }
        self.capacity = capacity
        self.words = words
        self.entries = Locked(NumberPool(limit: capacity))
    }

    /// Records `group`; returns its entry for ``clear(_:)``, or `nil` when the table is full (that
    /// group is then not guarded). Any thread, never blocks.
    func record(_ group: pid_t) -> Int32? {
        let entry: Int32? = entries.withLock { entries in
            guard let entry = entries.take() else { return nil }
            fc_store_shared(words, Int32(entries.highest))
            return Int32(entry)
        }
        guard let entry else { return nil }
        fc_store_shared(words + Int(entry), group)
        return entry
    }

    /// Clears an entry ``record(_:)`` returned: its group has ended. Any thread, never blocks.
    func clear(_ entry: Int32) {
        fc_store_shared(words + Int(entry), 0)
        entries.withLock { $0.giveBack(Int(entry)) }
    }

    /// The groups recorded and not cleared, as the guardian sees them.
    var groups: [pid_t] {
        let used = min(Int(fc_load_shared(words)), capacity)
        guard used > 0 else { return [] }
        return (1...used).map { fc_load_shared(words + $0) }.filter { $0 > 1 }
    }
}
