import Bus
import Testing

/// The byte-walking matcher in ``TopicFilter`` against the plain reading of MQTT §4.7 (split both at '/',
/// compare level by level), on many random filters and topics built from levels that exercise the edge
/// cases: empty levels, leading and trailing '/', `$` topics, `+` and `#` in every position they may take.
@Suite("Topic matching agrees with the specification's reading")
struct TopicMatchingAgreementTests {
    /// The reference: MQTT 3.1.1 / 5 §4.7 as written, with the byte-wise comparison brokers use.
    static func referenceMatch(filter: String, topic: String) -> Bool {
        let filterLevels = filter.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
        let topicLevels = topic.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
        if topic.utf8.first == UInt8(ascii: "$"), filterLevels[0] == [UInt8(ascii: "+")] || filterLevels[0] == [UInt8(ascii: "#")] {
            return false
        }
        for (index, level) in filterLevels.enumerated() {
            if level == [UInt8(ascii: "#")] { return true }
            guard index < topicLevels.count else { return false }
            if level != [UInt8(ascii: "+")] && level != topicLevels[index] { return false }
        }
        return filterLevels.count == topicLevels.count
    }

    /// A small deterministic generator, so a failure can be reproduced.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    static let topicLevels = ["", "a", "b", "ab", "$SYS", "$x", "é", "a$", "imu", "load-1"]

    static func randomTopic(_ random: inout Generator) -> String {
        (0...random.next(4)).map { _ in topicLevels[random.next(topicLevels.count)] }.joined(separator: "/")
    }

    static func randomFilter(_ random: inout Generator) -> String {
        let count = 1 + random.next(4)
        var levels = (0..<count).map { _ -> String in
            let choice = random.next(10)
            return choice < 3 ? "+" : topicLevels[random.next(topicLevels.count)]
        }
        if random.next(3) == 0 { levels[count - 1] = "#" }
        let filter = levels.joined(separator: "/")
        return filter.isEmpty ? "+" : filter
    }

    @Test("random filters and topics: the fast matcher and the reference agree", arguments: [1, 2, 3, 4] as [UInt64])
    func agreesOnRandomCases(seed: UInt64) throws {
        var random = Generator(state: seed)
        var matched = 0
        for _ in 0..<5_000 {
            let filter = Self.randomFilter(&random)
            let topic = Self.randomTopic(&random)
            let expected = Self.referenceMatch(filter: filter, topic: topic)
            #expect(try TopicFilter(filter).matches(topic) == expected, "filter '\(filter)' topic '\(topic)'")
            if expected { matched += 1 }
        }
        // Both outcomes must be well represented, or the comparison proves little.
        #expect(matched > 500 && matched < 4_500)
    }

    @Test(
        "edge cases around empty levels, '#' and '$'",
        arguments: [
            ("/", "/", true), ("+/+", "/", true), ("+", "", true), ("#", "", true), ("a/", "a", false), ("a", "a/", false),
            ("a/#", "a/", true), ("a/+/#", "a", false), ("a/+/#", "a/", true), ("/#", "/", true), ("+/#", "$SYS", false),
            ("$SYS/+", "$SYS/", true), ("#", "$", false), ("+", "$", false), ("x/#", "x$/y", false), ("é/+", "é/1", true),
        ])
    func edgeCases(filter: String, topic: String, expected: Bool) throws {
        #expect(Self.referenceMatch(filter: filter, topic: topic) == expected)
        #expect(try TopicFilter(filter).matches(topic) == expected)
    }

    @Test("a topic that is not native UTF-8 storage (bridged from a substring) matches the same way")
    func nonContiguousTopic() throws {
        let text = "zz/s/d1/imu"
        let topic = String(text.dropFirst(3))
        #expect(TopicFilter("s/+/imu").matches(topic))
        #expect(!TopicFilter("s/+/steps").matches(topic))
    }

    @Test("filters compare by their text, as before")
    func equality() throws {
        #expect(try TopicFilter(String("a/+")) == TopicFilter(String("a/+")))
        #expect(TopicFilter("a/+") != TopicFilter("a/#"))
        #expect(Set([TopicFilter("a/+"), try TopicFilter(String("a/+"))]).count == 1)
        #expect(TopicFilter("a/+").hasWildcards && !TopicFilter("a/b").hasWildcards)
    }
}
