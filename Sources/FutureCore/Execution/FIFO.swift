/// A first-in first-out queue that lets go of each element as it is taken: a taken element is
/// released at once, not when the storage is next compacted (a job's ticket holds its output, spill
/// files included, which must not outlive its printing). Amortized O(1) append and removal.
package struct FIFO<Element> {
    /// Taken elements are `nil`; `items[head...]` are the queued ones.
    private var items: [Element?] = []
    private var head = 0

    package init() {}

    package var count: Int { items.count - head }
    package var isEmpty: Bool { head == items.count }

    package mutating func append(_ element: Element) {
        items.append(element)
    }

    /// Queues `element` before the oldest queued element that satisfies `goesAfter` (at the end if
    /// none does), for a queue kept in the predicate's order (if the newest does not satisfy it,
    /// none does). O(1) when elements come in order; else O(queued).
    package mutating func insert(_ element: Element, before goesAfter: (Element) -> Bool) {
        if head == items.count || !goesAfter(items[items.count - 1]!) { return items.append(element) }
        guard let index = items[head...].firstIndex(where: { goesAfter($0!) }) else { return items.append(element) }
        items.insert(element, at: index)
    }

    /// Queues `element` first: one just taken goes back where it was.
    package mutating func prepend(_ element: Element) {
        guard head > 0 else { return items.insert(element, at: 0) }
        head -= 1
        items[head] = element
    }

    /// Takes the oldest element, if any.
    package mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head].take()
        head += 1
        if head > 64, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Takes the oldest element that satisfies `predicate`, if any.
    package mutating func remove(where predicate: (Element) -> Bool) -> Element? {
        guard let index = items[head...].firstIndex(where: { predicate($0!) }) else { return nil }
        return items.remove(at: index)
    }

    /// Takes every element, oldest first.
    package mutating func removeAll() -> [Element] {
        defer { self = FIFO() }
        return items[head...].map { $0! }
    }
}

extension FIFO: Sendable where Element: Sendable {}
