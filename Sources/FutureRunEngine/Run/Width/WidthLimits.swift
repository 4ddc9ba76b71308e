import FutureRunModel

/// What may limit how many jobs run at once. Each provider gives a limit of its own; the width is
/// the least of them (``WidthLimits``).
package enum WidthProvider: Int, CaseIterable, Comparable, Sendable {
    /// `-j` (or what `-j FILE` says now), within the descriptor and process limits.
    case jobs
    /// The descriptor and process limits alone, over hosts (where `-j` counts per host).
    case systemLimits
    /// make's jobserver: 1 plus the tokens held.
    case jobserver
    /// `--memfree` and `--memsuspend`: the running jobs plus those the free memory admits.
    case memory
    /// `--load`: the running jobs plus those the load admits.
    case load
    /// The system refused to spawn: fewer at once from then on.
    case spawnRefusal
    /// `--slurm-rate`: the running steps plus those the rate allows now.
    case slurmRate
    /// The Slurm allocation: none while it is being checked, or once it has ended.
    case slurmAllocation

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// How status lines, notices and `--json` (`waited_for`) name it.
    package var name: String {
        switch self {
        case .jobs: "-j"
        case .systemLimits: "limits"
        case .jobserver: "jobserver"
        case .memory: "memory"
        case .load: "load"
        case .spawnRefusal: "refusals"
        case .slurmRate: "slurm-rate"
        case .slurmAllocation: "allocation"
        }
    }
}

/// The limits the width providers give now, and the width they allow together: the least of them.
/// A value: how providers combine is tested without processes (``WidthGovernor`` applies it).
package struct WidthLimits: Equatable, Sendable {
    /// One provider's limit and why.
    package struct Limit: Equatable, Sendable {
        package var width: Int
        /// What a person reads: `2.1 GiB available, --memfree 4 GiB`.
        package var reason: String
    }

    package private(set) var limits: [WidthProvider: Limit] = [:]

    package init() {}

    /// Sets `provider`'s limit (at least 0); `nil` lifts it.
    package mutating func set(_ provider: WidthProvider, _ width: Int?, reason: String = "") {
        limits[provider] = width.map { Limit(width: max(0, $0), reason: reason) }
    }

    package subscript(_ provider: WidthProvider) -> Limit? { limits[provider] }

    /// How many jobs may run at once: the least limit (`Int.max` when none is set).
    package var width: Int { width(excluding: []) }

    /// The least limit but those of `excluded`.
    package func width(excluding excluded: Set<WidthProvider>) -> Int {
        limits.lazy.filter { !excluded.contains($0.key) }.map(\.value.width).min() ?? .max
    }

    /// The provider whose limit is the width, when it holds the width below `-j`'s (the first in
    /// ``WidthProvider``'s order of those tied); `nil` when nothing but `-j` limits it.
    var holder: (provider: WidthProvider, limit: Limit)? {
        let jobs = limits[.jobs]?.width ?? .max
        let width = self.width
        guard width < jobs else { return nil }
        return limits.filter { $0.value.width == width }.min { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
