/// A future's work, until it begins: whoever takes it first runs it — the executor's thread it was
/// sent to, or a caller that would otherwise block on the future (help-while-waiting: a read of
/// `value` right after `Future { … }` runs the closure itself instead of waking a thread and waiting
/// to be woken). Either way it runs once.
final class UnstartedWork: Sendable {
    private let work = Locked<(@Sendable () -> Void)?>(nil)

    init() {}

    /// Sets the work; before it is handed to an executor.
    func set(_ work: @escaping @Sendable () -> Void) { self.work.withLock { $0 = work } }

    /// Runs the work on this thread if nobody has taken it; whether this call ran it.
    @discardableResult
    func runIfUnstarted() -> Bool {
        let taken = work.withLock { work in
            defer { work = nil }
            return work
        }
        guard let taken else { return false }
        taken()
        return true
    }
}
