import Synchronization

/// The router of the configuration in force. A reload swaps it while the socket stays open.
public final class CurrentRouter: Sendable {
    private let router: Mutex<APIRouter>

    public init(_ router: APIRouter) {
        self.router = Mutex(router)
    }

    public var value: APIRouter { self.router.withLock { $0 } }

    func replace(with router: APIRouter) {
        self.router.withLock { $0 = router }
    }
}
