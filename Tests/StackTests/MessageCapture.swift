import Bus
import BusTesting
import Foundation

/// Every message one subscription receives, in delivery order, kept for the checks after a run (what
/// `mosquitto_sub -v > capture.txt` kept for the former shell check). A test waits on it for the message it expects
/// next: events, not sleeps.
///
/// Used by one task: the test that owns it.
final class MessageCapture {
    private let subscription: BusSubscription
    private var ended = false
    /// The messages taken from the subscription so far.
    private(set) var messages: [BusMessage] = []

    init(_ subscription: BusSubscription) {
        self.subscription = subscription
    }

    /// Takes every message the subscription holds now; returns how many have been captured. A message captured after
    /// this returns was delivered after the call (or was on its way).
    @discardableResult
    func drain() async -> Int {
        while subscription.bufferedCount > 0 {
            let batch = await subscription.nextBatch(limit: 4_096)
            if batch.isEmpty { break }
            messages += batch
        }
        return messages.count
    }

    /// The first message from index `start` on that satisfies `condition`, waiting up to `timeout` for it to arrive;
    /// nil when none did. Everything delivered by the deadline is looked at, however late this task runs.
    func first(from start: Int = 0, within timeout: Duration = .seconds(60), where condition: (BusMessage) -> Bool) async -> BusMessage? {
        let deadline = ContinuousClock.now + timeout
        var next = start
        while true {
            while next < messages.count {
                if condition(messages[next]) { return messages[next] }
                next += 1
            }
            if ended { return nil }
            if ContinuousClock.now >= deadline {
                if await drain() > next { continue }  // a last look at what arrived meanwhile
                return nil
            }
            switch await subscription.nextBatch(limit: 4_096, before: deadline) {
            case .messages(let batch): messages += batch
            case .timeout: continue
            case .ended: ended = true
            }
        }
    }

    /// The first message on `topic` from index `start` on that satisfies `condition` (as JSON), waiting as ``first(from:within:where:)``.
    func first(
        on topic: String, from start: Int = 0, within timeout: Duration = .seconds(60), where condition: ([String: Any]) -> Bool = { _ in true }
    ) async -> [String: Any]? {
        let message = await first(from: start, within: timeout) { $0.topic == topic && Self.json($0).map(condition) == true }
        return message.flatMap(Self.json)
    }

    /// The messages whose topic is `topic`.
    func messages(on topic: String) -> [BusMessage] { messages.filter { $0.topic == topic } }

    /// A payload as a JSON object, nil when it is not one.
    static func json(_ message: BusMessage) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: message.payload)) as? [String: Any]
    }

    /// The capture in `mosquitto_sub -v`'s format: `topic payload`, one message a line.
    func mosquittoSubText(excluding topics: Set<String> = []) -> String {
        messages.filter { !topics.contains($0.topic) }.map { "\($0.topic) \($0.text)\n" }.joined()
    }
}
