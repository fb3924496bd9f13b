import Bus
import CMosquitto

/// The process-wide libmosquitto initialisation, behind a once-guard.
///
/// `mosquitto_lib_init` is not thread safe and must run exactly once per process before any client is
/// created; a Swift `static let` initialiser runs once under `swift_once`, which gives exactly that
/// without exposing a global to users.
package enum MosquittoLibrary {
    private static let calls = LockedValue(0)

    private static let initialization: Int32 = {
        calls.withLock { $0 += 1 }
        return mosquitto_lib_init()
    }()

    /// Initialises libmosquitto if this process has not done so yet.
    static func ensureInitialized() {
        _ = initialization
    }

    /// How many times `mosquitto_lib_init` has run in this process (1 once any client exists).
    package static var initializationCount: Int { calls.withLock { $0 } }

    /// The linked libmosquitto version, e.g. "2.0.11".
    public static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
