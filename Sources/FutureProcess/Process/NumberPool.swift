import FutureCore

/// Numbers from 1, smallest free first: a number given back is the next one taken. GNU parallel's
/// job slots (`{%}`) in ``CommandPool``, entries of the ``GuardianTable``.
struct NumberPool {
    /// Numbers given back, smallest last; those above ``highest`` were never taken.
    private var returned: [Int] = []
    /// The largest number ever taken.
    private(set) var highest = 0
    /// The largest number there is.
    let limit: Int

    init(limit: Int = .max) { self.limit = limit }

    /// The smallest free number, or `nil` when all up to ``limit`` are taken.
    mutating func take() -> Int? {
        if let number = returned.popLast() { return number }
        guard highest < limit else { return nil }
        highest += 1
        return highest
    }

    mutating func giveBack(_ number: Int) {
        let index = returned.firstIndex { $0 < number } ?? returned.endIndex
        returned.insert(number, at: index)
    }
}
