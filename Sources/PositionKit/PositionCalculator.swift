import Foundation

/// Pedestrian dead reckoning in batches of steps, exactly as the bus contract's "Position calculator" section defines it.
///
/// x points north and y east, in metres from where the device was first seen. Each time the step total reaches
/// another multiple of ``stepsPerUpdate``, the position advances by `stepsPerUpdate × stepLength` along the
/// current heading (the last one given to ``applyHeading(_:)``). A batch that falls due before any heading is
/// known waits, and is applied (and published) when the first heading arrives.
///
/// The calculator is a value with no I/O and no clock, so the service owns the timestamps and the bus, and tests
/// drive it directly:
///
/// ```swift
/// var calculator = try PositionCalculator()
/// _ = try calculator.applyHeading(90)
/// for state in try calculator.applySteps(27) { publish(state) }   // two batches east, 7 steps pending
/// ```
///
/// Its whole state is the published ``PositionState`` plus the current heading, so a restarted calculator built
/// with ``init(restoring:currentHeading:stepsPerUpdate:stepLength:)`` from the retained position message carries on
/// exactly: the steps of the partial batch are `steps mod stepsPerUpdate`, and the batches still waiting for a
/// heading are `steps / stepsPerUpdate − updates`.
public struct PositionCalculator: Sendable, Hashable {
    /// Steps per batch (`--steps-per-update`, default 10).
    public let stepsPerUpdate: Int
    /// Metres per step (`--step-length`, default 0.75); with ``estimatesStepLength``, the length of a step whose
    /// message reports no distance.
    public let stepLength: Double
    /// Whether batches advance by the distance the device reports (`--step-length estimated`, the `distance` of the
    /// steps messages) rather than `stepsPerUpdate × stepLength`.
    public let estimatesStepLength: Bool
    /// The state as it would be published now.
    public private(set) var state: PositionState
    /// The heading the next batch will use, in degrees in [0, 360); `nil` until the first heading.
    public private(set) var currentHeading: Double?

    /// A calculator for a device never seen: at (0, 0), with no heading yet.
    ///
    /// - Parameters:
    ///   - stepsPerUpdate: steps per batch, at least 1.
    ///   - stepLength: metres per step, finite and positive.
    /// - Throws: ``PositionError/invalidConfiguration`` for other values.
    ///   - estimatedStepLength: advance by the reported distances (see ``applySteps(_:distance:)``).
    public init(stepsPerUpdate: Int = 10, stepLength: Double = 0.75, estimatedStepLength: Bool = false) throws {
        try Self.validate(stepsPerUpdate: stepsPerUpdate, stepLength: stepLength)
        self.stepsPerUpdate = stepsPerUpdate
        self.stepLength = stepLength
        self.estimatesStepLength = estimatedStepLength
        self.state = .initial
        if estimatedStepLength {
            // A device never seen reports its session's distance from zero, as it does its count.
            state.pendingDistance = 0
            state.sessionDistance = 0
        }
        self.currentHeading = nil
    }

    /// A calculator that carries on from a retained position message, so that no step is lost or counted twice.
    ///
    /// Batches already applied are not applied again (`updates` says how many there were); the steps of a partial
    /// batch (`steps mod stepsPerUpdate`) stay pending; batches that were due but not applied
    /// (`steps / stepsPerUpdate − updates`) are applied by ``applyPendingBatches()`` when a heading is known (call it
    /// right after restoring), else by the first heading. `distance` is recomputed as `steps × stepLength`.
    ///
    /// - Parameters:
    ///   - state: the retained state, e.g. decoded from `stepcompass/{device}/position`.
    ///   - currentHeading: the latest heading if the service already knows it (the retained heading message).
    ///     When `nil`, the heading the last batch used (`state.heading`) stands in until a heading arrives, so
    ///     step messages queued while the service was down do not wait when a heading was known before.
    ///   - stepsPerUpdate: steps per batch, at least 1.
    ///   - stepLength: metres per step, finite and positive.
    ///   - estimatedStepLength: advance by reported distances. Then `distance` is kept as retained (it is the sum of
    ///     the estimated lengths), the partial batch's metres come from `pendingDistance` (or `stepLength` per
    ///     pending step when the state has none, e.g. it was written with a fixed length) and the distance baseline
    ///     from `sessionDistance` (unknown without it: the next report then counts `stepLength` per step).
    ///     Without it, both optional fields are dropped, so a fixed-length restore is exactly as before.
    /// - Throws: ``PositionError/invalidConfiguration``, ``PositionError/invalidHeading``, or
    ///   ``PositionError/invalidState`` when the state could not have come from a calculator.
    public init(
        restoring state: PositionState,
        currentHeading: Double? = nil,
        stepsPerUpdate: Int = 10,
        stepLength: Double = 0.75,
        estimatedStepLength: Bool = false
    ) throws {
        try Self.validate(stepsPerUpdate: stepsPerUpdate, stepLength: stepLength)
        guard state.x.isFinite, state.y.isFinite, state.distance.isFinite else {
            throw PositionError.invalidState("x, y and distance must be finite numbers")
        }
        guard state.steps >= 0, state.sessionSteps >= 0, state.updates >= 0 else {
            throw PositionError.invalidState(
                "steps (\(state.steps)), sessionSteps (\(state.sessionSteps)) and updates (\(state.updates)) must not be negative"
            )
        }
        guard state.updates <= state.steps / stepsPerUpdate else {
            throw PositionError.invalidState(
                "\(state.updates) batches of \(stepsPerUpdate) steps cannot have been applied with only \(state.steps) steps"
            )
        }
        var restored = state
        if let heading = state.heading {
            guard heading.isFinite else { throw PositionError.invalidState("heading \(heading) is not finite") }
            restored.heading = Self.normalized(heading)
        }
        if estimatedStepLength {
            guard state.distance >= 0 else { throw PositionError.invalidState("distance \(state.distance) is negative") }
            let pendingSteps = state.steps - state.updates * stepsPerUpdate
            let pending = state.pendingDistance ?? Double(pendingSteps) * stepLength
            guard pending.isFinite, pending >= 0 else {
                throw PositionError.invalidState("pendingDistance \(pending) must be a finite number, not negative")
            }
            restored.pendingDistance = pending
            if let baseline = state.sessionDistance, !(baseline.isFinite && baseline >= 0) {
                throw PositionError.invalidState("sessionDistance \(baseline) must be a finite number, not negative")
            }
        } else {
            restored.distance = Double(state.steps) * stepLength
            restored.pendingDistance = nil
            restored.sessionDistance = nil
        }
        self.stepsPerUpdate = stepsPerUpdate
        self.stepLength = stepLength
        self.estimatesStepLength = estimatedStepLength
        self.state = restored
        if let currentHeading {
            guard currentHeading.isFinite else { throw PositionError.invalidHeading(currentHeading) }
            self.currentHeading = Self.normalized(currentHeading)
        } else {
            self.currentHeading = restored.heading
        }
    }

    /// Batches that are due (the total passed their multiple of ``stepsPerUpdate``) but not applied yet,
    /// because no heading is known.
    public var pendingBatches: Int { state.steps / stepsPerUpdate - state.updates }

    /// Steps counted towards the next batch that is not yet due.
    public var partialSteps: Int { state.steps % stepsPerUpdate }

    /// Takes a heading from `stepcompass/{device}/heading` as the current one.
    ///
    /// - Parameter degrees: compass heading, clockwise from north; normalised into [0, 360).
    /// - Returns: one state per batch that was waiting for a heading and is now applied (usually none),
    ///   each to be published in order.
    /// - Throws: ``PositionError/invalidHeading`` for NaN or infinity; the state is unchanged.
    public mutating func applyHeading(_ degrees: Double) throws -> [PositionState] {
        guard degrees.isFinite else { throw PositionError.invalidHeading(degrees) }
        currentHeading = Self.normalized(degrees)
        return applyDueBatches()
    }

    /// Takes a cumulative step count from `stepcompass/{device}/steps`.
    ///
    /// A count equal to the last one changes nothing. A higher count adds its difference to the total; a lower one
    /// starts a new session and adds the whole count. A first count of 37 means 37 steps.
    ///
    /// - Parameter count: the device's cumulative count for its session.
    /// - Returns: the states to publish, in order: one per completed batch, or one if the state changed but no batch
    ///   was applied (including a new session that starts at 0, whose `sessionSteps` baseline must be retained);
    ///   none for a repeated count. Every state of one message carries the message's new `steps`, `sessionSteps` and
    ///   `distance`; `x`, `y`, `updates` and `heading` advance batch by batch, so the last one is the current state.
    /// - Throws: ``PositionError/negativeStepCount`` or ``PositionError/stepOverflow``; the state is unchanged.
    public mutating func applySteps(_ count: Int) throws -> [PositionState] {
        try applySteps(count, distance: nil)
    }

    /// Takes a cumulative step count and, optionally, the cumulative distance (metres) the device reports for its
    /// session (the `distance` of a steps message: a bridge's step-length model, or CMPedometer's).
    ///
    /// With a fixed step length (the default) `distance` is ignored and this is ``applySteps(_:)``. With
    /// ``estimatesStepLength`` the steps a message adds are worth the increase of the reported distance since the
    /// last report (a new session's whole distance), and each batch advances by the metres of its steps (the
    /// pending metres shared evenly among the pending steps, exact when they came in one message); `distance` is
    /// the sum. A message without a (finite, non-negative, non-decreasing) distance, or one after such a message,
    /// counts `stepLength` per added step.
    public mutating func applySteps(_ count: Int, distance reported: Double?) throws -> [PositionState] {
        guard count >= 0 else { throw PositionError.negativeStepCount(count) }
        guard count != state.sessionSteps else { return [] }
        let newSession = count < state.sessionSteps
        let added = newSession ? count : count - state.sessionSteps
        let (total, overflow) = state.steps.addingReportingOverflow(added)
        guard !overflow else { throw PositionError.stepOverflow(total: state.steps, adding: added) }
        state.steps = total
        state.sessionSteps = count
        if estimatesStepLength {
            var increase = Double(added) * stepLength
            var baseline: Double?
            if let reported, reported.isFinite, reported >= 0 {
                baseline = reported
                if newSession {
                    increase = reported
                } else if let before = state.sessionDistance, reported >= before {
                    increase = reported - before
                }
            }
            state.sessionDistance = baseline
            state.pendingDistance = (state.pendingDistance ?? 0) + increase
            state.distance += increase
        } else {
            state.distance = Double(total) * stepLength
        }
        let batches = applyDueBatches()
        return batches.isEmpty ? [state] : batches
    }

    /// Applies the batches that are due but were not applied, with the current heading, and returns their states.
    ///
    /// In normal operation there are none: due batches are applied as soon as a heading is known. After
    /// ``init(restoring:currentHeading:stepsPerUpdate:stepLength:)`` there can be some, when the retained message was
    /// one of several published for one step message (the service stopped between them). Call this right after
    /// restoring and publish what it returns; the redelivered step message is then a repeat and changes nothing.
    public mutating func applyPendingBatches() -> [PositionState] {
        applyDueBatches()
    }

    /// Handles `cmd/reset-position`: back to (0, 0) with steps, distance and updates at 0.
    ///
    /// A partial batch (and any batch waiting for a heading) is dropped. `sessionSteps` stays as the baseline, so the
    /// next count adds only its difference; the current heading and the last batch's heading are kept.
    ///
    /// - Returns: the state to publish, so the retained message shows the reset.
    @discardableResult
    public mutating func reset() -> PositionState {
        state.x = 0
        state.y = 0
        state.steps = 0
        state.distance = 0
        state.updates = 0
        if estimatesStepLength { state.pendingDistance = 0 }
        return state
    }

    // MARK: - Private

    /// Applies every due batch with the current heading, returning one state per batch.
    private mutating func applyDueBatches() -> [PositionState] {
        guard let heading = currentHeading else { return [] }
        let due = state.steps / stepsPerUpdate
        guard due > state.updates else { return [] }
        let batchLength = Double(stepsPerUpdate) * stepLength
        let radians = heading * .pi / 180
        var published: [PositionState] = []
        published.reserveCapacity(due - state.updates)
        while state.updates < due {
            var length = batchLength
            if estimatesStepLength {
                // The pending metres shared evenly among the pending steps (exact when they came in one message).
                let pendingSteps = state.steps - state.updates * stepsPerUpdate
                let pending = state.pendingDistance ?? Double(pendingSteps) * stepLength
                length = pendingSteps == stepsPerUpdate ? pending : pending * Double(stepsPerUpdate) / Double(pendingSteps)
                state.pendingDistance = pendingSteps == stepsPerUpdate ? 0 : max(0, pending - length)
            }
            state.x += length * cos(radians)
            state.y += length * sin(radians)
            state.updates += 1
            state.heading = heading
            published.append(state)
        }
        return published
    }

    private static func validate(stepsPerUpdate: Int, stepLength: Double) throws {
        guard stepsPerUpdate >= 1 else {
            throw PositionError.invalidConfiguration("steps per update must be at least 1, not \(stepsPerUpdate)")
        }
        guard stepLength.isFinite, stepLength > 0 else {
            throw PositionError.invalidConfiguration("step length must be a finite positive number of metres, not \(stepLength)")
        }
    }

    /// Maps any finite angle into [0, 360).
    static func normalized(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        return value >= 360 ? 0 : value
    }
}
