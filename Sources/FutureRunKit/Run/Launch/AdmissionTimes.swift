/// What admission (`--memfree`, `--memsuspend`, `--load`) cost one attempt: how long it waited to
/// start while the memory or the load held starts back, and how long it was suspended.
struct AdmissionTimes: Sendable, Equatable {
    /// Time it was next in line, with `-j` allowing it, while admission held starts back.
    var waited: Duration = .zero
    /// What held it: `memory` or `load` (empty when it did not wait).
    var waitedFor = ""
    /// Time it was suspended (`--memsuspend`).
    var suspended: Duration = .zero

    static let none = AdmissionTimes()
}
