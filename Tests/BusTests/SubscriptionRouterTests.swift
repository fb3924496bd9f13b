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
}
