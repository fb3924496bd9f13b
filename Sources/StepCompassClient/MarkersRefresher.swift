public import Bus
public import DashboardKit
import Foundation
public import ServiceRuntime

/// Asks the marker service to fetch its source again (`markers/cmd/refresh`) and follows its status
/// until the fetch has finished.
public struct MarkersRefresher: Sendable {
    public let bus: any MessageBus
    public let topics: Topics
    /// How long to wait for the fetch to finish.
    public var window: Duration

    /// Creates a refresher over a connected bus.
    public init(bus: any MessageBus, topics: Topics, window: Duration = .seconds(10)) {
        self.bus = bus
        self.topics = topics
        self.window = window
    }

    /// How a refresh ended.
    public enum Outcome: Sendable, Hashable {
        /// The service published a status other than `loading` after the request.
        case finished(MarkersView)
        /// No finished status within the window; the last status seen, if any.
        case noAnswer(waited: Duration, last: MarkersView?)

        /// Whether the fetch failed (the service kept its last good markers, if any).
        public var failed: Bool {
            guard case .finished(let view) = self else { return false }
            return view.state == "failed" || view.errorText != nil
        }

        /// The lines to print.
        public var lines: [String] {
            switch self {
            case .finished(let view):
                return [view.statusText] + (view.errorText.map { ["  \($0)"] } ?? [])
            case .noAnswer(let waited, let last):
                var line =
                    "refresh requested, but the marker service published no new status within \(waited.secondsText): is stepcompass-markers running?"
                if let last { line += " (last status: \(last.statusText))" }
                return [line]
            }
        }
    }

    /// Publishes `{}` to `markers/cmd/refresh` (QoS 1) and waits for the resulting status.
    /// - Parameter progress: Called with each intermediate status line (`Markers: loading…`).
    public func refresh(progress: @Sendable (String) -> Void = { _ in }) async throws -> Outcome {
        let subscription = try await bus.subscribe(to: try TopicFilter(topics.markersStatus), qos: .atLeastOnce)
        var last: MarkersView?
        do {
            try await bus.publish(BusMessage(topic: topics.markersRefresh, payload: RefreshCommand.payload, qos: .atLeastOnce))
            let deadline = ContinuousClock.now + window
            while let message = await subscription.next(before: deadline) {
                guard
                    case .markersStatus(let report)? = try? DashboardInput.decode(
                        .markersStatus, device: "", payload: [UInt8](message.payload))
                else { continue }
                let view = MarkersView(status: report, markers: [])
                last = view
                // The replayed retained status is the state before the request.
                guard !message.retain else { continue }
                if report.state == "loading" {
                    progress(view.statusText)
                    continue
                }
                try? await bus.unsubscribe(subscription)
                return .finished(view)
            }
        } catch {
            try? await bus.unsubscribe(subscription)
            throw error
        }
        try? await bus.unsubscribe(subscription)
        return .noAnswer(waited: window, last: last)
    }
}
