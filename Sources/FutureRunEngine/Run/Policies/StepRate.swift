import FutureRunModel

/// `--slurm-rate N`: a token bucket of N step creations a second, N at most saved up. A value,
/// tested with made-up instants; the ``SlurmLauncher`` keeps the pool's width to what it allows.
package struct StepRate: Sendable {
    let perSecond: Int
    private var tokens: Double
    private var last: ContinuousClock.Instant

    package init(perSecond: Int, now: ContinuousClock.Instant) {
        self.perSecond = max(1, perSecond)
        tokens = Double(self.perSecond)
        last = now
    }

    /// Steps that may start now.
    package mutating func available(at now: ContinuousClock.Instant) -> Int {
        refill(now)
        return Int(tokens)
    }

    /// A step starts.
    package mutating func take(at now: ContinuousClock.Instant) {
        refill(now)
        tokens -= 1
    }

    /// How long until the next step may start (zero if one may now).
    package mutating func wait(at now: ContinuousClock.Instant) -> Duration {
        refill(now)
        return tokens >= 1 ? .zero : .seconds((1 - tokens) / Double(perSecond))
    }

    private mutating func refill(_ now: ContinuousClock.Instant) {
        tokens = min(Double(perSecond), tokens + max(0, (now - last).seconds) * Double(perSecond))
        last = now
    }
}
