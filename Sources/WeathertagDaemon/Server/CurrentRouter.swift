import Synchronization

/// The router of the configuration in force. A reload swaps it while the socket stays open.
package final class CurrentRouter: Sendable {
    private let router: Mutex<APIRouter>
    /// The router's answer cache, apart: a cached answer costs one retain under the lock, not a copy of the router.
    private let currentCache: Mutex<ResponseCache>

    package init(_ router: APIRouter) {
        self.router = Mutex(router)
        self.currentCache = Mutex(router.cache)
    }

    package var value: APIRouter { self.router.withLock { $0 } }

    var cache: ResponseCache { self.currentCache.withLock { $0 } }

    func replace(with router: APIRouter) {
        self.router.withLock { $0 = router }
        self.currentCache.withLock { $0 = router.cache }
    }
}
