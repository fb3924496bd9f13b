public import Bus
import Foundation
public import ServiceRuntime

/// Sends a ``DeviceCommand`` and, where it has a visible effect, waits briefly for the service to show
/// it: a live (not replayed) update of the retained topic it changes, or the service's error report
/// about the command. When the replayed state already is the one asked for (a walk started while one
/// is on), the service changes nothing and the wait ends at once.
public struct CommandSender: Sendable {
    public let bus: any MessageBus
    public let topics: Topics
    /// How long to wait for the effect; zero sends without waiting.
    public var confirmationWindow: Duration

    /// Creates a sender over a connected bus.
    public init(bus: any MessageBus, topics: Topics, confirmationWindow: Duration = .seconds(2)) {
        self.bus = bus
        self.topics = topics
        self.confirmationWindow = confirmationWindow
    }

    /// Validates and publishes `command` to `device` (QoS 1) and waits for its effect.
    /// - Parameters:
    ///   - command: The command.
    ///   - device: A valid device id.
    /// - Returns: What was sent and whether (and how) the service confirmed it.
    /// - Throws: ``StepCompassClientError/Code/invalidInput`` before sending anything; a `BusError` when
    ///   the publish fails; ``StepCompassClientError/Code/errorReply`` when the service reported that it
    ///   rejected the command.
    public func send(_ command: DeviceCommand, to device: String) async throws -> CommandOutcome {
        do { try command.validate() } catch { throw StepCompassClientError.invalidInput(error.message) }
        if case .walk(_, let name?) = command { try DeviceCommand.validate(walkName: name) }
        do { try DeviceID.validate(device) } catch { throw StepCompassClientError.invalidInput("--device: \(error.message)") }
        let commandTopic = topics.device(device, command.topic)
        let message = BusMessage(topic: commandTopic, payload: command.payload, qos: .atLeastOnce)
        let sent = command.summary(device: device)
        guard let confirmation = command.confirmation, confirmationWindow > .zero else {
            try await bus.publish(message)
            try await bus.flush()
            return CommandOutcome(topic: commandTopic, payload: message.payload, sent: sent, status: .notAwaited)
        }
        let effectTopic = topics.device(device, confirmation.topic)
        let errorTopic = topics.errors(confirmation.service)
        let subscription = try await bus.subscribe(to: [
            SubscriptionRequest(try TopicFilter(effectTopic), qos: .atLeastOnce),
            SubscriptionRequest(try TopicFilter(errorTopic), qos: .atMostOnce),
        ])
        do {
            try await bus.publish(message)
            let status = await awaitEffect(
                confirmation, device: device, effectTopic: effectTopic,
                commandTopic: commandTopic, in: subscription)
            try? await bus.unsubscribe(subscription)
            if case .rejected(let reason) = status {
                throw StepCompassClientError(
                    .errorReply,
                    "the \(confirmation.service) service rejected the command on \(commandTopic): \(reason)")
            }
            return CommandOutcome(topic: commandTopic, payload: message.payload, sent: sent, status: status)
        } catch {
            try? await bus.unsubscribe(subscription)
            throw error
        }
    }

    private func awaitEffect(
        _ confirmation: DeviceCommand.Confirmation, device: String, effectTopic: String, commandTopic: String,
        in subscription: BusSubscription
    ) async -> CommandOutcome.Status {
        let deadline = ContinuousClock.now + confirmationWindow
        let reader = confirmation.reader(device)
        var lastSeen: String?
        while let received = await subscription.next(before: deadline) {
            if received.topic != effectTopic {
                if let report = try? JSONDecoder().decode(ErrorReport.self, from: received.payload),
                    report.topic == commandTopic
                {
                    return .rejected(report.error)
                }
                continue
            }
            // A replayed retained message is the state before the command: it describes, never confirms.
            guard let (text, evidence) = reader.read(received.payload, !received.retain) else { continue }
            switch evidence {
            case .effect: return .confirmed(text)
            case .unchanged: return .unchanged(text)
            case .other: lastSeen = text
            }
        }
        return .unconfirmed(waited: confirmationWindow, service: confirmation.service, lastSeen: lastSeen)
    }
}

/// A service's report of a rejected input (`errors/{service}`).
private struct ErrorReport: Decodable {
    let topic: String
    let error: String
}
