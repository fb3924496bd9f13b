import Testing

@testable import JournalKit

@Suite("HTMLText: metadata HTML as plain text")
struct HTMLTextTests {
    @Test("tags go, inline ones without adding spaces, block ones as a space")
    func tags() {
        #expect(HTMLText.plainText(#"<a href="//x" title="a">Jo<b>hn</b></a>"#) == "John")
        #expect(HTMLText.plainText("first<br/>second<p>third</p>") == "first second third")
        #expect(HTMLText.plainText("<span class=\"fn\"></span>") == nil)
        #expect(HTMLText.plainText("   \n ") == nil)
    }

    @Test("a < that opens no tag is text")
    func lessThan() {
        #expect(HTMLText.plainText("I <3 maps, a < b") == "I <3 maps, a < b")
        #expect(HTMLText.plainText("cut <a href=") == "cut")
    }

    @Test("entities are decoded after the tags are removed, so escaped markup stays as text")
    func entities() {
        #expect(
            HTMLText.plainText("&lt;b&gt;bold&lt;/b&gt; &amp; &quot;q&quot; &#39;s&apos; caf&#233; &#xE9;t&#XE9;")
                == "<b>bold</b> & \"q\" 's' café été")
        #expect(HTMLText.plainText("a&nbsp;&nbsp;b") == "a b")
        #expect(HTMLText.plainText("&unknown; &#0; &#xZZ; & alone") == "&unknown; &#0; &#xZZ; & alone")
    }
}
