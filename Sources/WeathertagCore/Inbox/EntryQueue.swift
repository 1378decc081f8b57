/// Names waiting to be stamped, in arrival order, each once.
public struct EntryQueue: Sendable {
    private var order: [String] = []
    private var head = 0
    private var members: Set<String> = []

    public init() {}

    public var isEmpty: Bool { self.members.isEmpty }
    public var count: Int { self.members.count }

    public func contains(_ name: String) -> Bool { self.members.contains(name) }

    public mutating func insert(_ name: String) {
        guard self.members.insert(name).inserted else { return }
        self.order.append(name)
    }

    public mutating func insert(contentsOf names: [String]) {
        for name in names { self.insert(name) }
    }

    public mutating func popFirst() -> String? {
        guard self.head < self.order.count else { return nil }
        let name = self.order[self.head]
        self.head += 1
        self.members.remove(name)
        if self.head > 1024 && self.head * 2 > self.order.count {
            self.order.removeFirst(self.head)
            self.head = 0
        }
        return name
    }
}
