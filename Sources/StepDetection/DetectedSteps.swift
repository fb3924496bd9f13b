/// The steps one sample released: usually none, one when walking, a handful at once when walking is confirmed
/// (the steps that led to the confirmation are counted retroactively).
///
/// Fixed capacity (``capacity``), stored inline: building, returning and iterating it never allocates.
public struct DetectedSteps: Sendable, RandomAccessCollection {
    /// The most steps one value holds (the largest allowed ``StepDetectorConfiguration/confirmationSteps``).
    public static let capacity = 8

    private typealias Storage = (
        DetectedStep, DetectedStep, DetectedStep, DetectedStep,
        DetectedStep, DetectedStep, DetectedStep, DetectedStep
    )
    private var storage: Storage
    /// How many steps are held.
    public private(set) var count: Int

    /// No steps.
    public init() {
        let empty = DetectedStep(time: 0, length: 0)
        storage = (empty, empty, empty, empty, empty, empty, empty, empty)
        count = 0
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The step at `position` (0 ..< count).
    public subscript(position: Int) -> DetectedStep {
        precondition(position >= 0 && position < count, "DetectedSteps index out of range")
        return element(at: position)
    }

    /// The last step held, if any.
    public var last: DetectedStep? { count == 0 ? nil : element(at: count - 1) }

    /// Adds `step` at the end; when full, the oldest step is dropped to make room.
    mutating func append(_ step: DetectedStep) {
        if count == Self.capacity {
            for index in 1..<Self.capacity { set(element(at: index), at: index - 1) }
            count -= 1
        }
        set(step, at: count)
        count += 1
    }

    /// Keeps only the last `keeping` steps.
    mutating func dropAllButLast(_ keeping: Int) {
        let keep = Swift.max(0, Swift.min(keeping, count))
        let first = count - keep
        for index in 0..<keep { set(element(at: first + index), at: index) }
        count = keep
    }

    /// Removes the oldest step.
    mutating func removeOldest() { dropAllButLast(count - 1) }

    /// Removes every step.
    mutating func removeAll() { count = 0 }

    private func element(at index: Int) -> DetectedStep {
        switch index {
        case 0: storage.0
        case 1: storage.1
        case 2: storage.2
        case 3: storage.3
        case 4: storage.4
        case 5: storage.5
        case 6: storage.6
        default: storage.7
        }
    }

    private mutating func set(_ step: DetectedStep, at index: Int) {
        switch index {
        case 0: storage.0 = step
        case 1: storage.1 = step
        case 2: storage.2 = step
        case 3: storage.3 = step
        case 4: storage.4 = step
        case 5: storage.5 = step
        case 6: storage.6 = step
        default: storage.7 = step
        }
    }
}
