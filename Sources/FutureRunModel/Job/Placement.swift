import FutureProcess

/// Where an attempt ran.
package struct Placement: Sendable {
    package let seat: CommandPool.Seat
    /// The connection session it ran over (0: none).
    package var session = 0
    /// The machine's name, for the reports (`nil`: this one, alone).
    package var machine: String?
    /// How its command ran.
    package var path = JobPath.shell

    /// Before an attempt has a seat.
    package static let unplaced = Placement(seat: .init(lane: 0, slot: 0))

    package init(seat: CommandPool.Seat, session: Int = 0, machine: String? = nil, path: JobPath = .shell) {
        self.seat = seat
        self.session = session
        self.machine = machine
        self.path = path
    }
}

/// How an attempt's command ran, as `--json` says.
package enum JobPath: String, Sendable {
    /// Its program exec'd without a shell (``DirectExec``).
    case direct
    /// In its slot's warm shell (``WarmShells``).
    case warm
    /// A shell of its own.
    case shell
    /// Not at all: its end was replayed from the cache (`--cache`).
    case cached
}

/// How an attempt's end counts.
package enum AttemptVerdict: Sendable, Equatable {
    /// As its result says.
    case stands
    /// The system refused its spawn: run it again, after `delay`, as the same attempt.
    case refused(retryAfter: Duration?)
    /// Its machine is gone: run it again elsewhere, as the same attempt.
    case lost
    /// It was ended by this signal, which the launcher saw where the result cannot show it (a
    /// step's task under `srun`, whose exit status is 128 + N either way).
    case signaled(Int32)
    /// Where it ran is gone for good (the Slurm allocation ended): it did not finish, and nothing
    /// new starts.
    case placeEnded
}
