import FutureCore
import Glibc

/// The engine's deadlines: timeouts, the KILL after a grace period, the drain period of a child
/// whose pipes outlive it, `wait4` polls where there is no pidfd, and retries of output that waits
/// for spill space. Engine thread only.
extension ProcessEngine {
    /// How often a stream that waits for spill space tries again.
    static let spaceRetryPeriod: Duration = .milliseconds(100)

    func fireDueDeadlines(_ buffer: UnsafeMutableRawBufferPointer) {
        let now = ContinuousClock.now
        while let action = deadlines.withLock({ $0.popDue(now: now) }) {
            switch action {
            case .timeout(let id):
                guard let child = processes.withLock({ $0[id] }), !child.hasExited, !child.timedOut else { continue }
                child.timedOut = true
                stop(child)
            case .kill(let id):
                guard let child = processes.withLock({ $0[id] }), !child.hasExited else { continue }
                child.signalGroup(SIGKILL)
            case .drain(let id):
                guard let child = processes.withLock({ $0[id] }) else { continue }
                // Output that waits for spill space is not a straggler's: wait with it.
                if child.stdout.isWaitingForSpace || child.stderr.isWaitingForSpace {
                    schedule(.drain(id), at: .now + Self.drainPeriod)
                    continue
                }
                child.signalGroup(SIGKILL)
                finish(child)
            case .spaceRetry(let id, let isStdout):
                guard let child = processes.withLock({ $0[id] }) else { continue }
                let stream: ChildProcess.Stream = isStdout ? .stdout : .stderr
                (isStdout ? child.stdout : child.stderr).retryAfterSpaceShortage()
                readStream(child, stream, buffer)
            case .poll(let id):
                guard let child = processes.withLock({ $0[id] }), !child.hasExited else { continue }
                if child.reap() {
                    afterExit(child, buffer)
                } else {
                    schedule(.poll(id), at: .now + .milliseconds(10))
                }
            }
        }
    }
}
