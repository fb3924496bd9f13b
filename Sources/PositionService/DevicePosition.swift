import Bus
import Foundation
import Metrics
import PositionKit
import ServiceRuntime
import StepCompassContract

/// One device's dead reckoning: its ``PositionKit/PositionCalculator`` and the heading it knows.
///
/// A value in the service's device table, changed in place on the service's actor: the service hands it the
/// device's messages one at a time, in the broker's order, and publishes the states it returns. (It was an actor of
/// its own; a hop to it and back for every message cost more than the dead reckoning itself.) A device starts *unrestored*: a retained `position` may still restore it. It becomes *live* at its
/// first restore, or at its first step, heading or reset message once the service's settle window has passed;
/// from then on a retained position is ignored (the service's own state is newer).
struct DevicePosition {
    /// What the device's messages produced: states to publish (in order) and inputs to reject.
    enum Outcome {
        case publish([PositionState], timestamp: Date)
        case reject(String)
        case nothing
    }

    let device: String
    private let configuration: PositionConfiguration
    private var calculator: PositionCalculator?
    /// The latest heading seen before the calculator exists (a retained heading arrives before or after the
    /// retained position, in no fixed order).
    private var knownHeading: Double?
    /// The timestamp of the device's last heading or steps message (its own clock).
    private var lastInputTime: Date?
    /// The timestamp of the last steps message applied, or of the retained position restored (the device's clock):
    /// a lower count stamped no later than it is an old message delivered again, not a new session.
    private var lastStepsTime: Date?
    /// Counts the batches applied (moves of `stepsPerUpdate` steps).
    private let batches: Counter?

    init(device: String, configuration: PositionConfiguration, batches: Counter? = nil) {
        self.device = device
        self.configuration = configuration
        self.batches = batches
    }

    /// Counts the batches `after` applied since `before`.
    private func countBatches(from before: PositionCalculator, to after: PositionCalculator) {
        let applied = after.state.updates - before.state.updates
        if applied > 0 { batches?.increment(by: applied) }
    }

    /// Whether the device has a calculator (restored or started).
    var isLive: Bool { calculator != nil }

    /// Restores the device from its retained position, unless it is already live; batches it completes are
    /// published with `timestamp` (the service's clock). `stateTime` is the retained message's own timestamp.
    mutating func restore(from state: PositionState, timestamp: Date, stateTime: Date?) -> Outcome {
        guard calculator == nil else { return .nothing }
        lastStepsTime = stateTime
        do {
            var restored = try PositionCalculator(
                restoring: state, currentHeading: knownHeading,
                stepsPerUpdate: configuration.stepsPerUpdate, stepLength: configuration.stepLength,
                estimatedStepLength: configuration.estimatedStepLength)
            let pending = restored.applyPendingBatches()
            if !pending.isEmpty { batches?.increment(by: pending.count) }
            calculator = restored
            return pending.isEmpty ? .nothing : .publish(pending, timestamp: timestamp)
        } catch {
            return .reject("the retained position cannot be restored: \(error)")
        }
    }

    /// Takes a heading; creates the calculator only when `start` is true (after the settle window), so that a
    /// retained heading does not pre-empt a retained position that arrives after it.
    mutating func heading(_ degrees: Double, timestamp: Date, start: Bool) -> Outcome {
        lastInputTime = timestamp
        guard var current = calculator ?? (start ? makeCalculator() : nil) else {
            knownHeading = degrees
            return .nothing
        }
        do {
            let before = current
            let states = try current.applyHeading(degrees)
            countBatches(from: before, to: current)
            calculator = current
            return states.isEmpty ? .nothing : .publish(states, timestamp: timestamp)
        } catch {
            return .reject("\(error)")
        }
    }

    /// Takes a cumulative step count, and the session distance the message reported (used with estimated step
    /// lengths only).
    ///
    /// A count lower than the last one starts a new session, unless the message is stamped no later than the last
    /// steps message applied (or the retained position restored): then it is an old message the broker delivered
    /// again (a broker that crashed redelivers what it had queued at its last save, some of it already handled) and
    /// changes nothing. Read as a new session, it would add its whole count again.
    mutating func steps(_ count: Int, distance: Double? = nil, timestamp: Date) -> Outcome {
        if let lastStepsTime, let calculator,
            StepCountOrder.isRedelivery(
                count: Int64(count), at: timestamp.timeIntervalSince1970, lastCount: Int64(calculator.state.sessionSteps),
                lastTime: lastStepsTime.timeIntervalSince1970)
        {
            return .nothing
        }
        lastInputTime = timestamp
        guard var current = calculator ?? makeCalculator() else { return .nothing }
        do {
            let before = current
            let states = try current.applySteps(count, distance: distance)
            countBatches(from: before, to: current)
            calculator = current
            lastStepsTime = max(lastStepsTime ?? timestamp, timestamp)
            return states.isEmpty ? .nothing : .publish(states, timestamp: timestamp)
        } catch {
            return .reject("\(error)")
        }
    }

    /// Handles `cmd/reset-position`: the reset position is stamped with the device's last input time (its own clock),
    /// `now` (the service's clock) when it has sent none. A device whose clock is not the service's (the simulator at
    /// 4x, a replayed recording) keeps its positions in time order: a reset stamped with the service's date would be
    /// ahead of every later position, and readers that keep the newest (the journal's route) would skip the walk's rest.
    mutating func reset(now: Date) -> Outcome {
        guard var current = calculator ?? makeCalculator() else { return .nothing }
        let state = current.reset()
        calculator = current
        return .publish([state], timestamp: lastInputTime ?? now)
    }

    private func makeCalculator() -> PositionCalculator? {
        guard
            var fresh = try? PositionCalculator(
                stepsPerUpdate: configuration.stepsPerUpdate, stepLength: configuration.stepLength,
                estimatedStepLength: configuration.estimatedStepLength)
        else { return nil }
        if let knownHeading { _ = try? fresh.applyHeading(knownHeading) }
        return fresh
    }
}
