/// One Sensor Logger phone's state across push messages: the acceleration convention (see
/// ``SensorLoggerConvention``) and its ``PhoneDevicePipeline``. Keep one per device id.
///
/// Until a convention is configured or detected, readings are held (up to ``evidenceWait`` seconds
/// of sample time) so that an iPhone's first batches are not converted with the wrong sign; after
/// that, ``SensorLoggerConvention/android`` is assumed, and replaced if evidence turns up later.
public struct SensorLoggerSession: Sendable {
    /// Where the convention in use came from.
    public enum ConventionSource: Sendable, Hashable {
        /// Given to ``init(convention:evidenceWait:pipeline:)``; never changes.
        case configured
        /// Detected from the readings.
        case detected
        /// No evidence within ``SensorLoggerSession/evidenceWait``: Android assumed.
        case assumed
        /// Still waiting for evidence; readings are held.
        case pending
    }

    /// The convention in use (``SensorLoggerConvention/android`` while pending or assumed).
    public private(set) var convention: SensorLoggerConvention
    /// Where ``convention`` came from.
    public private(set) var conventionSource: ConventionSource
    /// How many seconds of readings to hold while waiting for evidence of the convention.
    public let evidenceWait: Double
    /// The reorder buffer and assembler.
    public private(set) var pipeline: PhoneDevicePipeline

    private var held: [SensorLoggerReading] = []
    private var heldSpan: (first: Int64, last: Int64)?

    /// Creates a session; pass `convention` when the phone's platform is configured.
    public init(convention: SensorLoggerConvention? = nil, evidenceWait: Double = 2.0, pipeline: PhoneDevicePipeline = PhoneDevicePipeline()) {
        self.convention = convention ?? .android
        conventionSource = convention == nil ? .pending : .configured
        self.evidenceWait = evidenceWait
        self.pipeline = pipeline
    }

    /// Converts a message with the session's convention and returns the contract messages now complete.
    public mutating func receive(_ message: SensorLoggerMessage) -> [PhoneOutput] {
        switch conventionSource {
        case .configured, .detected:
            return pipeline.add(message.samples(convention: convention))
        case .assumed:
            if let detected = SensorLoggerConvention.detect(in: message.readings) {
                convention = detected
                conventionSource = .detected
            }
            return pipeline.add(message.samples(convention: convention))
        case .pending:
            held += message.readings
            for reading in message.readings {
                let time = reading.timeNanoseconds
                heldSpan = (min(heldSpan?.first ?? time, time), max(heldSpan?.last ?? time, time))
            }
            if let detected = SensorLoggerConvention.detect(in: message.readings) ?? SensorLoggerConvention.detect(in: held) {
                convention = detected
                conventionSource = .detected
            } else {
                let span = heldSpan.map { Double($0.last - $0.first) / 1_000_000_000 } ?? 0
                guard span >= evidenceWait || held.count >= pipeline.buffer.capacity else { return [] }
                conventionSource = .assumed
            }
            return releaseHeld()
        }
    }

    /// Releases everything still held (end of recording), assuming Android if still undecided.
    public mutating func flush() -> [PhoneOutput] {
        if conventionSource == .pending, !held.isEmpty { conventionSource = .assumed }
        return releaseHeld() + pipeline.flush()
    }

    private mutating func releaseHeld() -> [PhoneOutput] {
        let readings = held
        held = []
        heldSpan = nil
        guard !readings.isEmpty else { return [] }
        return pipeline.add(SensorLoggerReading.samples(readings, convention: convention))
    }
}
