/// Everything one phone needs between decoding and publishing: a ``ReorderBuffer`` followed by an
/// ``IMUAssembler``. Keep one per device id.
public struct PhoneDevicePipeline: Sendable {
    /// Puts batches back in time order.
    public private(set) var buffer: ReorderBuffer
    /// Turns the ordered streams into contract messages.
    public private(set) var assembler: IMUAssembler

    /// Creates a pipeline; `reorderDelay` is in seconds of sample time.
    public init(reorderDelay: Double = 1.0, reorderCapacity: Int = 20_000, gravityWindow: Double = 0.5) {
        buffer = ReorderBuffer(delay: reorderDelay, capacity: reorderCapacity)
        assembler = IMUAssembler(gravityWindow: gravityWindow)
    }

    /// Adds decoded samples (any order) and returns the contract messages now complete, in time order.
    public mutating func add(_ samples: [PhoneSample]) -> [PhoneOutput] {
        assembler.add(buffer.insert(samples))
    }

    /// Releases and assembles everything held (end of recording).
    public mutating func flush() -> [PhoneOutput] {
        assembler.add(buffer.flush()) + assembler.flush()
    }
}
