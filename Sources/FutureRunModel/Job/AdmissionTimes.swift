/// What admission (`--memfree`, `--memsuspend`, `--load`) cost one attempt: how long it waited to
/// start while the memory or the load held starts back, and how long it was suspended.
package struct AdmissionTimes: Sendable, Equatable {
    /// Time it was next in line, with `-j` allowing it, while admission held starts back.
    package var waited: Duration = .zero
    /// What held it: `memory` or `load` (empty when it did not wait).
    package var waitedFor = ""
    /// Time it was suspended (`--memsuspend`).
    package var suspended: Duration = .zero

    package static let none = AdmissionTimes()

    package init(waited: Duration = .zero, waitedFor: String = "", suspended: Duration = .zero) {
        self.waited = waited
        self.waitedFor = waitedFor
        self.suspended = suspended
    }
}
