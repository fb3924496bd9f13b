import Bus
import BusTesting
import Foundation
import Testing

@Suite("Subscription routing")
struct SubscriptionRouterTests {
    @Test("messages that arrive before a subscription are held for the first one that matches")
    func heldUntilSubscribed() async throws {
        let router = SubscriptionRouter()
        router.route(BusMessage(topic: "s/d1/steps", text: "1"))
        router.route(BusMessage(topic: "s/d1/imu", text: "2"))
        let steps = router.add([SubscriptionRequest(TopicFilter("s/+/steps"))])
        #expect(await steps.next(timeout: .seconds(1))?.text == "1")
        let imu = router.add([SubscriptionRequest(TopicFilter("s/#"))])
        #expect(await imu.next(timeout: .seconds(1))?.text == "2")
        let later = router.add([SubscriptionRequest(TopicFilter("s/#"))])
        #expect(await later.collect(1, timeout: .milliseconds(100)).isEmpty, "a held message goes to one subscription only")
    }

    @Test("a message matching two filters of one subscription arrives once")
    func oncePerSubscription() async throws {
        let router = SubscriptionRouter()
        let both = router.add([SubscriptionRequest(TopicFilter("a/+")), SubscriptionRequest(TopicFilter("a/#"))])
        router.route(BusMessage(topic: "a/b", text: "x"))
        #expect(await both.collect(2, timeout: .milliseconds(200)).count == 1)
    }

    @Test("a slow subscriber's overflow is dropped and counted, not blocking the network thread")
    func overflowCounted() async throws {
        let router = SubscriptionRouter(streamLimit: 10)
        let subscription = router.add([SubscriptionRequest(TopicFilter("t"))])
        for index in 0..<15 { router.route(BusMessage(topic: "t", text: "\(index)")) }
        #expect(router.droppedCount.slowSubscriber == 5)
        #expect(await subscription.collect(15, timeout: .milliseconds(200)).map(\.text) == (0..<10).map(String.init))
    }

    @Test("the buffer statistics: each subscription's backlog and drops, the held messages, the totals")
    func bufferStatistics() async throws {
        let router = SubscriptionRouter(streamLimit: 4, pendingLimit: 2)
        for index in 0..<3 { router.route(BusMessage(topic: "held/\(index)", text: "\(index)")) }  // one pushed out
        let slow = router.add([SubscriptionRequest(TopicFilter("t"))])
        let fast = router.add([SubscriptionRequest(TopicFilter("t/#"))])
        router.route((0..<6).map { BusMessage(topic: "t", text: "\($0)") })
        #expect(slow.bufferedCount == 4)
        #expect(slow.droppedCount == 2)
        #expect(fast.bufferedCount == 4 && fast.droppedCount == 2)
        #expect(router.bufferStatistics == SubscriptionBufferStatistics(subscriptions: 2, buffered: 8, held: 2, droppedFull: 4, droppedUnmatched: 1))
        _ = await fast.nextBatch(limit: 10)
        #expect(fast.bufferedCount == 0)
        #expect(router.bufferStatistics.buffered == 4)
        router.remove(slow.id)
        #expect(router.bufferStatistics == SubscriptionBufferStatistics(subscriptions: 1, buffered: 0, held: 2, droppedFull: 4, droppedUnmatched: 1))
    }

    @Test("a timed-out wait keeps the subscription usable")
    func timeoutKeepsSubscription() async throws {
        let router = SubscriptionRouter()
        let subscription = router.add([SubscriptionRequest(TopicFilter("t"))])
        #expect(await subscription.next(timeout: .milliseconds(50)) == nil)
        router.route(BusMessage(topic: "t", text: "late"))
        #expect(await subscription.next(timeout: .seconds(1))?.text == "late")
    }

    @Test("removing a subscription reports the filters nobody uses any more")
    func unusedFilters() throws {
        let router = SubscriptionRouter()
        let first = router.add([SubscriptionRequest(TopicFilter("a")), SubscriptionRequest(TopicFilter("b"))])
        _ = router.add([SubscriptionRequest(TopicFilter("b"), qos: .exactlyOnce)])
        #expect(router.activeRequests == [SubscriptionRequest(TopicFilter("a")), SubscriptionRequest(TopicFilter("b"), qos: .exactlyOnce)])
        #expect(router.remove(first.id) == [TopicFilter("a")])
    }

    @Test("a filter shared by two subscriptions has the higher QoS, and No Local only when both ask for it")
    func mergedOptions() throws {
        let router = SubscriptionRouter()
        let quiet = router.add([SubscriptionRequest(TopicFilter("p"), qos: .atLeastOnce, noLocal: true)])
        _ = router.add([SubscriptionRequest(TopicFilter("q"), qos: .atMostOnce, noLocal: true)])
        #expect(router.activeRequests(for: [TopicFilter("p")]) == [SubscriptionRequest(TopicFilter("p"), noLocal: true)])
        _ = router.add([SubscriptionRequest(TopicFilter("p"), qos: .atMostOnce)])
        #expect(router.activeRequests(for: [TopicFilter("p")]) == [SubscriptionRequest(TopicFilter("p"), qos: .atLeastOnce)])
        #expect(
            router.activeRequests == [
                SubscriptionRequest(TopicFilter("p"), qos: .atLeastOnce),
                SubscriptionRequest(TopicFilter("q"), qos: .atMostOnce, noLocal: true),
            ])
        router.remove(quiet.id)
        #expect(router.activeRequests(for: [TopicFilter("p"), TopicFilter("x")]) == [SubscriptionRequest(TopicFilter("p"), qos: .atMostOnce)])
    }
}

@Suite("Routing received messages in batches")
struct BatchRoutingTests {
    @Test("a batch reaches each matching subscription in order, unmatched ones are held, as one by one")
    func batchMatchesOneByOne() async throws {
        let topics = ["s/d1/imu", "s/d2/steps", "x/y", "s/d1/steps", "s/d3/imu"]
        let batch = topics.enumerated().map { BusMessage(topic: $0.element, text: "\($0.offset)") }
        let router = SubscriptionRouter()
        let imu = router.add([SubscriptionRequest(TopicFilter("s/+/imu"))])
        let all = router.add([SubscriptionRequest(TopicFilter("s/#")), SubscriptionRequest(TopicFilter("s/+/steps"))])
        router.route(batch)
        #expect(await imu.collect(2, timeout: .seconds(1)).map(\.text) == ["0", "4"])
        #expect(await all.collect(4, timeout: .seconds(1)).map(\.text) == ["0", "1", "3", "4"])
        let late = router.add([SubscriptionRequest(TopicFilter("x/+"))])
        #expect(await late.next(timeout: .seconds(1))?.text == "2", "the unmatched message was held")
    }

    @Test("a batch beyond a subscriber's buffer keeps the first messages and counts the rest")
    func batchOverflow() async throws {
        let router = SubscriptionRouter(streamLimit: 4)
        let subscription = router.add([SubscriptionRequest(TopicFilter("t"))])
        router.route((0..<6).map { BusMessage(topic: "t", text: "\($0)") })
        #expect(router.droppedCount.slowSubscriber == 2)
        #expect(await subscription.collect(6, timeout: .milliseconds(200)).map(\.text) == ["0", "1", "2", "3"])
    }

    @Test("a consumer waiting when a batch arrives receives all of it")
    func waitingConsumerGetsWholeBatch() async throws {
        let router = SubscriptionRouter()
        let subscription = router.add([SubscriptionRequest(TopicFilter("t"))])
        let reader = Task { await subscription.collect(50, timeout: .seconds(2)).map(\.text) }
        try await Task.sleep(for: .milliseconds(50))
        router.route((0..<50).map { BusMessage(topic: "t", text: "\($0)") })
        #expect(await reader.value == (0..<50).map(String.init))
    }

    @Test("a cancelled wait returns nil, and the messages of a later batch stay for the next reader")
    func cancelledWaitKeepsLaterMessages() async throws {
        let channel = MessageChannel(limit: 100)
        let waiting = Task { await channel.next() }
        try await Task.sleep(for: .milliseconds(30))
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(channel.yield(contentsOf: [BusMessage(topic: "t", text: "a"), BusMessage(topic: "t", text: "b")]) == 0)
        #expect(await channel.next()?.text == "a")
        #expect(await channel.next()?.text == "b")
        channel.finish()
        #expect(await channel.next() == nil)
        #expect(channel.yield(contentsOf: [BusMessage(topic: "t", text: "c")]) == 1, "a finished channel drops")
    }
}

@Suite("Taking messages in batches")
struct NextBatchTests {
    @Test("a batch holds what is buffered, up to the limit, in order; the rest stays for the next call")
    func batchesInOrder() async throws {
        let router = SubscriptionRouter()
        let subscription = router.add([SubscriptionRequest(TopicFilter("t"))])
        router.route((0..<5).map { BusMessage(topic: "t", text: "\($0)") })
        #expect(await subscription.nextBatch(limit: 3).map(\.text) == ["0", "1", "2"])
        #expect(await subscription.nextBatch(limit: 3).map(\.text) == ["3", "4"])
        router.route(BusMessage(topic: "t", text: "5"))
        #expect(await subscription.next(timeout: .seconds(1))?.text == "5", "single reads and batches mix")
    }

    @Test("a batch waits for the first message, and a cancelled wait returns empty without losing later ones")
    func waitsAndCancels() async throws {
        let router = SubscriptionRouter()
        let subscription = router.add([SubscriptionRequest(TopicFilter("t"))])
        let waiting = Task { await subscription.nextBatch() }
        try await Task.sleep(for: .milliseconds(30))
        router.route(BusMessage(topic: "t", text: "a"))
        #expect(await waiting.value.map(\.text) == ["a"])
        let cancelled = Task { await subscription.nextBatch() }
        try await Task.sleep(for: .milliseconds(30))
        cancelled.cancel()
        #expect(await cancelled.value.isEmpty)
        router.route(BusMessage(topic: "t", text: "b"))
        #expect(await subscription.nextBatch().map(\.text) == ["b"])
        router.close()
        #expect(await subscription.nextBatch().isEmpty, "an ended subscription gives an empty batch")
    }
}
