import Bus
public import Configuration

/// Remembers every configuration value that was present but could not be read as its type.
///
/// swift-configuration's `double(forKey:default:)` and friends fall back to the default when a value
/// cannot be converted, so `SPEED=fast` would quietly run at the default speed. The runner installs
/// this reporter and refuses to start while it holds anything, naming the key and the value's source.
public final class MalformedSettingRecorder: AccessReporter, Sendable {
    private let failures = LockedValue<[String]>([])

    public init() {}

    public func report(_ event: AccessEvent) {
        // A provider that holds the value but cannot parse it (the environment's "fast" for a number)
        // fails its lookup; a value that the reader itself cannot convert sets `conversionError`.
        var failure: (source: String?, error: any Error)?
        for result in event.providerResults {
            if case .failure(let error) = result.result {
                failure = (result.providerName, error)
                break
            }
        }
        if failure == nil, let error = event.conversionError {
            let source = event.providerResults.first { result in
                if case .success(let lookup) = result.result { return lookup.value != nil }
                return false
            }?.providerName
            failure = (source, error)
        }
        guard let (source, error) = failure else { return }
        let key = event.metadata.key.components.joined(separator: ".")
        let variable = event.metadata.key.components.joined(separator: "_").uppercased()
        var text = "the setting '\(key)' (flag --\(key.replacingDots()), environment \(variable))"
        if let source { text += " from \(source)" }
        text += " is not a valid \(event.metadata.valueType): \(error)"
        failures.withLock { list in
            if !list.contains(text) { list.append(text) }
        }
    }

    /// Every malformed setting read so far, in words.
    public var messages: [String] { failures.withLock { $0 } }
}

extension String {
    fileprivate func replacingDots() -> String { String(map { $0 == "." ? "-" : $0 }) }
}
