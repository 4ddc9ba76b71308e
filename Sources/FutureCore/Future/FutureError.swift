/// Failures that FutureCore itself produces.
public enum FutureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `timeout(after:)` elapsed before the future resolved.
    case timedOut(Duration)
    /// ``Eventual/firstSuccess(_:)`` or ``Eventual/any(_:)`` was given no futures.
    case noFutures

    public var description: String {
        switch self {
        case .timedOut(let limit): "the future did not resolve within \(limit)"
        case .noFutures: "no futures were given"
        }
    }
}
