import CompassKit
import ServiceRuntime

/// What a restarted service takes back from its own retained messages: the bearing lock and the north setting
/// (the calibration comes back through ``DeviceCompass/restore(_:)``).
extension DeviceCompass {
    /// Puts a retained bearing lock back in place.
    /// - Returns: Whether a lock was restored (an unlocked message restores nothing; the device is unlocked anyway).
    /// - Throws: ``InputError`` for a locked message without a finite bearing or with a threshold outside 0...180.
    func restoreLock(_ message: BearingLockMessage) throws(InputError) -> Bool {
        guard message.locked else { return false }
        guard let given = message.bearing else { throw InputError("a locked 'bearing-lock' needs a 'bearing'") }
        let bearing = try FieldCheck.finite(given, "bearing")
        let threshold = try message.threshold.map { value throws(InputError) in
            try FieldCheck.finite(value, "threshold", in: 0...180)
        }
        lock.lock(at: bearing, threshold: threshold ?? BearingLock.defaultThreshold)
        // What is retained stays the reference: the next heading republishes only past the dead band.
        publishedLock = BearingLockMessage(
            locked: true, bearing: lock.bearing, deviation: nil, threshold: lock.threshold, exceeded: false)
        return true
    }

    /// Takes back the north setting from a retained heading, when it was the device's setting: `north` says which,
    /// and only a non-null `trueHeading` shows the setting was in effect (without a location, `north` is magnetic
    /// whatever the setting).
    /// - Returns: Whether the setting was restored.
    /// - Throws: ``InputError`` for a `north` that is neither `true` nor `magnetic`.
    func restoreNorth(_ message: HeadingMessage) throws(InputError) -> Bool {
        guard let text = message.north else { return false }
        guard let reference = NorthReference(rawValue: text) else {
            throw InputError("'north' is '\(text.prefix(40))'; expected true or magnetic")
        }
        guard message.trueHeading != nil else { return false }
        north = reference
        return true
    }

    /// Takes a retained heading as the reference of the dead band, as the bearing lock's retained message is: a
    /// restarted service publishes a heading again only when it differs from the retained one (past the dead band, or
    /// in status, north, calibration, interference or declination). Without it, the restarted filter's first heading,
    /// a hair from the retained one, was published, and the position service moved on it. A walking direction the
    /// retained heading had is not taken as gone while the restarted service has not estimated its own yet (it needs
    /// the next fixes): that too published the first heading.
    ///
    /// An angle outside [0, 360) (another writer's, or an older build's) is not taken: the reference is repeated in
    /// messages (``standing(_:reference:in:)``), and the first heading of this run then replaces it.
    func restoreReference(_ message: HeadingMessage) {
        guard publishedSummary == nil else { return }
        var summary = HeadingSummary(message)
        summary.heading = summary.heading.flatMap(Self.contractAngle)
        summary.walkingDirection = summary.walkingDirection.flatMap(Self.contractAngle)
        publishedSummary = summary
        awaitsRestoredWalkingDirection = summary.walkingDirection != nil
    }

    /// The angle when it is one the contract allows (finite, in [0, 360)), else nil.
    static func contractAngle(_ degrees: Double) -> Double? {
        degrees.isFinite && degrees >= 0 && degrees < 360 ? degrees : nil
    }
}
