import Foundation
import StepCompassTesting

/// The faults of one chaos run, drawn from a seed (the same seed, the same plan): which service is SIGKILLed when and
/// for how long, and when the broker goes down (SIGKILL or SIGTERM) and for how long.
///
/// Every service is killed once before any is killed twice; a service is never killed again while it is down; broker
/// outages do not overlap, and the first one falls while the first killed service is down.
struct ChaosPlan: Sendable {
    enum Fault: Sendable, Equatable {
        /// SIGKILL the service, restart it after the outage.
        case killService(String)
        /// Stop the broker (SIGKILL, or SIGTERM when false), start it again after the outage.
        case stopBroker(sigkill: Bool)
    }

    /// One fault: when (seconds after the walk starts), what, and how long until the restart.
    struct Event: Sendable, CustomStringConvertible {
        let at: Double
        let fault: Fault
        let outage: Double
        var end: Double { at + outage }

        var description: String {
            let when = String(format: "+%.2f s", at)
            let back = String(format: "back after %.2f s", outage)
            switch fault {
            case .killService(let service): return "\(when) SIGKILL \(service), \(back)"
            case .stopBroker(let sigkill): return "\(when) \(sigkill ? "SIGKILL" : "SIGTERM") the broker, \(back)"
            }
        }
    }

    struct PlanError: Error, CustomStringConvertible {
        let description: String
    }

    /// The events in time order.
    let events: [Event]

    /// Draws the plan.
    /// - Parameters:
    ///   - seed: The seed.
    ///   - services: The services that may be killed.
    ///   - serviceKills: How many SIGKILLs.
    ///   - brokerRestarts: How many broker outages (alternately SIGKILL and SIGTERM, the first drawn).
    ///   - window: Seconds after the walk starts in which every fault begins and ends.
    ///   - serviceOutage: The range of a killed service's outage, seconds.
    ///   - brokerOutage: The range of a broker outage, seconds.
    init(
        seed: UInt64, services: [String], serviceKills: Int, brokerRestarts: Int, window: ClosedRange<Double>,
        serviceOutage: ClosedRange<Double> = 0.5...5, brokerOutage: ClosedRange<Double> = 0.5...3
    ) throws {
        var random = SeededGenerator(seed: seed)
        var order: [String] = []
        while order.count < serviceKills, !services.isEmpty { order += services.shuffled(using: &random) }
        var events: [Event] = []

        /// A start and an outage inside the window that keep `margin` seconds from every event `clashes` says it may
        /// not overlap.
        func draw(_ fault: Fault, outage range: ClosedRange<Double>, margin: Double, clashes: (Event) -> Bool) throws -> Event {
            for _ in 0..<1_000 {
                let outage = Double.random(in: range, using: &random)
                guard window.upperBound - outage > window.lowerBound else { break }
                let at = Double.random(in: window.lowerBound...(window.upperBound - outage), using: &random)
                let overlaps = events.contains { other in
                    clashes(other) && at < other.end + margin && other.at < at + outage + margin
                }
                if !overlaps { return Event(at: at, fault: fault, outage: outage) }
            }
            throw PlanError(
                description:
                    "cannot fit \(serviceKills) service kills and \(brokerRestarts) broker outages in \(window.lowerBound)...\(window.upperBound) s: make --duration longer"
            )
        }

        for service in order.prefix(serviceKills) {
            events.append(try draw(.killService(service), outage: serviceOutage, margin: 0.5) { $0.fault == .killService(service) })
        }
        let sigkillFirst = Bool.random(using: &random)
        for index in 0..<brokerRestarts {
            let fault = Fault.stopBroker(sigkill: (index % 2 == 0) == sigkillFirst)
            if index == 0, let first = events.first {
                // The first broker outage begins while the first killed service is down.
                let outage = min(Double.random(in: brokerOutage, using: &random), window.upperBound - first.at - 0.1 * first.outage)
                events.append(Event(at: first.at + 0.1 * first.outage, fault: fault, outage: max(brokerOutage.lowerBound, outage)))
                continue
            }
            events.append(
                try draw(fault, outage: brokerOutage, margin: 1.5) { other in
                    if case .stopBroker = other.fault { return true }
                    return false
                })
        }
        self.events = events.sorted { $0.at < $1.at }
    }

    /// How many events are service kills, SIGKILLs and SIGTERMs of the broker.
    var counts: (serviceKills: Int, brokerKills: Int, brokerTerms: Int) {
        var counts = (0, 0, 0)
        for event in events {
            switch event.fault {
            case .killService: counts.0 += 1
            case .stopBroker(let sigkill): if sigkill { counts.1 += 1 } else { counts.2 += 1 }
            }
        }
        return counts
    }
}
