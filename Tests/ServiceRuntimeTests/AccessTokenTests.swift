import ServiceRuntime
import Testing

@Suite("Access tokens")
struct AccessTokenTests {
    @Test("A token matches only the same bytes, whatever the lengths")
    func comparison() {
        #expect(AccessToken.matches("abcdefghijklmnop", "abcdefghijklmnop"))
        #expect(!AccessToken.matches("abcdefghijklmnop", "abcdefghijklmnoq"))
        #expect(!AccessToken.matches("abcdefghijklmnop", "abcdefghijklmno"))
        #expect(!AccessToken.matches("", "a"))
        #expect(!AccessToken.matches("é", "e\u{301}"))  // the same character, other bytes
        #expect(AccessToken.matches("", ""))
    }
}
