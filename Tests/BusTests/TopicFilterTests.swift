import Bus
import Testing

@Suite("Topic filters and names")
struct TopicFilterTests {
    @Test(arguments: [
        ("a/+/c", "a/b/c", true), ("a/+/c", "a/b/d", false), ("a/+", "a/b/c", false), ("a/+", "a/", true),
        ("a/#", "a", true), ("a/#", "a/b/c", true), ("a/#", "ab", false), ("#", "a/b", true),
        ("+/+", "/a", true), ("#", "$SYS/x", false), ("+/x", "$y/x", false), ("$SYS/#", "$SYS/x", true),
        ("a/b", "a/b", true), ("a/b", "a/b/", false),
    ])
    func matching(filter: String, topic: String, expected: Bool) throws {
        #expect(try TopicFilter(filter).matches(topic) == expected)
    }

    @Test(arguments: ["a/#/b", "a#", "a/b+", "", "+a"])
    func invalidFilters(_ filter: String) {
        #expect(throws: BusError.self) { try TopicFilter(filter) }
    }

    @Test(arguments: ["a/+/b", "a/#", "", "a\u{0}b"])
    func invalidTopicNames(_ topic: String) {
        #expect(throws: BusError.self) { try TopicName.validate(topic) }
    }
}
