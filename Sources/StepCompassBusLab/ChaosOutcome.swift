import Foundation
import StepCompassContract

/// What a chaos run left behind, read back from the bus the way a user would: every device's retained `position`, its
/// step history total (the activity service's `activity/history`), its journal walk's photo points (`journal/walks`),
/// and the services' exit statuses on SIGTERM.
struct ChaosOutcome: Sendable {
    /// The figures of a retained `position` the comparison looks at.
    struct Position: Sendable, Equatable {
        let x: Double
        let y: Double
        let steps: Int
        let updates: Int

        /// Nil for a message without its steps or updates.
        init?(_ message: PositionMessage) {
            guard let steps = message.steps, let updates = message.updates else { return nil }
            (x, y, self.steps, self.updates) = (message.x, message.y, steps, updates)
        }

        var description: String { "x \(x), y \(y), steps \(steps), updates \(updates)" }
    }

    /// A journal walk's photo points: each point's number and the id of its photo (nil: none found).
    struct JournalWalk: Sendable, Equatable {
        let points: [Int]
        let photos: [String?]

        /// Photo ids that appear more than once.
        var repeatedPhotos: [String] {
            var seen = Set<String>()
            return photos.compactMap { $0 }.filter { !seen.insert($0).inserted }
        }
    }

    /// Each device's last cumulative step count, as the walker published it.
    var finalSteps: [String: Int] = [:]
    var positions: [String: Position] = [:]
    var historyTotals: [String: Int64] = [:]
    var journals: [String: JournalWalk] = [:]
    /// Each service's exit status on SIGTERM at the end (nil: not within 5 s).
    var exits: [String: Int32?] = [:]
    /// Messages the walker published (its log's count).
    var published = 0

    /// Where this run is wrong on its own: a position or history total that is not the walker's step count, a photo
    /// twice, a service that did not exit 0 within 5 s of SIGTERM.
    var ownErrors: [String] {
        var errors: [String] = []
        for (device, steps) in finalSteps.sorted(by: { $0.key < $1.key }) {
            if let position = positions[device] {
                if position.steps != steps { errors.append("\(device): position has \(position.steps) steps, the walker took \(steps)") }
            } else {
                errors.append("\(device): no retained position")
            }
            if let total = historyTotals[device] {
                if total != Int64(steps) { errors.append("\(device): step history holds \(total) steps, the walker took \(steps)") }
            } else {
                errors.append("\(device): no step history")
            }
            if let journal = journals[device] {
                let repeated = journal.repeatedPhotos
                if !repeated.isEmpty { errors.append("\(device): journal photo twice: \(repeated.joined(separator: ", "))") }
            } else {
                errors.append("\(device): no journal walk")
            }
        }
        for (service, status) in exits.sorted(by: { $0.key < $1.key }) where status != 0 {
            errors.append("\(service) did not exit 0 within 5 s of SIGTERM (\(status.map { "status \($0)" } ?? "still running"))")
        }
        return errors
    }

    /// Where this run differs from `clean`: positions (x and y to 1e-9, steps and updates exactly), step history
    /// totals, journal photo points.
    func differences(from clean: ChaosOutcome) -> [String] {
        var differences: [String] = []
        for device in Set(clean.finalSteps.keys).union(finalSteps.keys).sorted() {
            if clean.finalSteps[device] != finalSteps[device] {
                differences.append("\(device): the walker took \(show(finalSteps[device])) steps, \(show(clean.finalSteps[device])) in the clean run")
            }
            switch (positions[device], clean.positions[device]) {
            case (let chaos?, let clean?):
                if abs(chaos.x - clean.x) > 1e-9 || abs(chaos.y - clean.y) > 1e-9 || chaos.steps != clean.steps
                    || chaos.updates != clean.updates
                {
                    differences.append("\(device): position \(chaos.description); clean run \(clean.description)")
                }
            case (let chaos, let clean):
                differences.append("\(device): position \(chaos?.description ?? "missing"); clean run \(clean?.description ?? "missing")")
            }
            if historyTotals[device] != clean.historyTotals[device] {
                differences.append(
                    "\(device): step history \(show(historyTotals[device])); clean run \(show(clean.historyTotals[device]))")
            }
            if journals[device]?.points != clean.journals[device]?.points {
                differences.append(
                    "\(device): journal points \(journals[device]?.points.count ?? 0); clean run \(clean.journals[device]?.points.count ?? 0)")
            }
        }
        return differences
    }

    private func show<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "missing" }
}
