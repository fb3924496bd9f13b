/// Turns the bits of HTML that photo services put into metadata (authors, titles, dates) into plain text.
enum HTMLText {
    /// Tags that separate words, so `A<br>B` reads `A B` while `Jo<b>hn</b>` stays `John`.
    private static let separatingTags: Set<String> = [
        "br", "p", "div", "li", "ul", "ol", "tr", "td", "th", "table", "hr", "dd", "dt", "dl", "h1", "h2", "h3", "h4",
        "h5", "h6",
    ]

    /// Named entities decoded; everything else is left as written.
    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ",
    ]

    /// Tags removed, the common entities decoded, whitespace runs collapsed to one space; nil when nothing is left.
    static func plainText(_ html: String) -> String? {
        let text = collapseWhitespace(decodeEntities(stripTags(html)))
        return text.isEmpty ? nil : text
    }

    /// The text without its tags (`<...>`); an unclosed tag and everything after it is dropped.
    static func stripTags(_ html: String) -> String {
        var output = ""
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            let next = html.index(after: index) < html.endIndex ? html[html.index(after: index)] : " "
            // Only `<` opening a tag (`<a`, `</a`, `<!--`, `<?`) starts one; `a < b` and `<3` are text.
            guard character == "<", next.isLetter || next == "/" || next == "!" || next == "?" else {
                output.append(character)
                index = html.index(after: index)
                continue
            }
            guard let close = html[index...].firstIndex(of: ">") else { break }
            let inside = html[html.index(after: index)..<close]
            let name = inside.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber }).lowercased()
            if separatingTags.contains(name) { output.append(" ") }
            index = html.index(after: close)
        }
        return output
    }

    /// `&amp; &lt; &gt; &quot; &apos; &#39; &nbsp;` and numeric references (`&#233;`, `&#xE9;`) decoded.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "&",
                let semicolon = text[index...].prefix(12).firstIndex(of: ";"),
                let decoded = entity(text[text.index(after: index)..<semicolon])
            {
                output += decoded
                index = text.index(after: semicolon)
            } else {
                output.append(character)
                index = text.index(after: index)
            }
        }
        return output
    }

    private static func entity(_ name: Substring) -> String? {
        if let named = namedEntities[String(name)] { return named }
        guard name.first == "#" else { return nil }
        let digits = name.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits, radix: 10)
        }
        guard let value, let scalar = Unicode.Scalar(value), value != 0 else { return nil }
        return String(Character(scalar))
    }

    /// Runs of whitespace (including no-break spaces and newlines) as one space, none at the ends.
    static func collapseWhitespace(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
