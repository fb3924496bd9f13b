import Foundation

/// Fixed-point number formatting for query strings and XML (never an exponent, never a locale's comma).
enum DecimalText {
    /// `value` with exactly `places` decimals (`52.520008` with 6); minus zero is written `0.000…`.
    static func fixed(_ value: Double, places: Int) -> String {
        let scale = pow(10, Double(places))
        let rounded = (value * scale).rounded() / scale
        return String(format: "%.\(places)f", rounded == 0 ? 0 : rounded)
    }

    /// `value` with at most `places` decimals, trailing zeros dropped (`34.5`, `12`).
    static func trimmed(_ value: Double, places: Int) -> String {
        var text = fixed(value, places: places)
        guard text.contains(".") else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
