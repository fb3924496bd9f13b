/// One Sensor Logger phone's state across push messages: the convention it was recognised by (kept
/// once found, see ``SensorLoggerConvention``) and its ``PhoneDevicePipeline``.
public struct SensorLoggerSession: Sendable {
    /// The convention in use: the configured one, else the first detected, else ``SensorLoggerConvention/android``.
    public private(set) var convention: SensorLoggerConvention
    /// Whether ``convention`` was configured or detected (rather than assumed).
    public private(set) var conventionIsKnown: Bool
    /// The reorder buffer and assembler.
    public private(set) var pipeline: PhoneDevicePipeline

    /// Creates a session; pass `convention` when the phone's platform is configured (it then never changes).
    public init(convention: SensorLoggerConvention? = nil, pipeline: PhoneDevicePipeline = PhoneDevicePipeline()) {
        self.convention = convention ?? .android
        conventionIsKnown = convention != nil
        self.pipeline = pipeline
    }

    /// Converts a message with the session's convention (detecting it on first evidence) and returns
    /// the contract messages now complete.
    public mutating func receive(_ message: SensorLoggerMessage) -> [PhoneOutput] {
        if !conventionIsKnown, let detected = SensorLoggerConvention.detect(in: message.readings) {
            convention = detected
            conventionIsKnown = true
        }
        return pipeline.add(message.samples(convention: convention))
    }

    /// Releases everything still held.
    public mutating func flush() -> [PhoneOutput] {
        pipeline.flush()
    }
}
