import Foundation
import FuzzSupport
import StepCompassContract

/// libFuzzer target: the contract's one timestamp codec, `Timestamp` (every `timestamp` field, the history request's
/// `from` and `to`, gpsd's `time`).
///
/// Properties: `parse` never traps and, where Foundation's ISO 8601 parser also reads the text, gives the same instant
/// (to a microsecond); `format` writes what Foundation's formatter writes; and a formatted date parses back to the
/// same instant with its milliseconds truncated. The input is read as text, and its first eight bytes (and its text)
/// as a number of seconds since 1970.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        TimestampProperties.parse(text)
        if bytes.count >= 8 {
            let bits = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            TimestampProperties.format(Double(bitPattern: bits))
        }
        if let seconds = Double(text.trimmingCharacters(in: .whitespaces)) {
            TimestampProperties.format(seconds)
        }
    }
}

enum TimestampProperties {
    static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    static let withoutFraction = Date.ISO8601FormatStyle(timeZone: .gmt)

    static func parse(_ text: String) {
        guard let date = Timestamp.parse(text) else {
            _ = try? Timestamp.date(text)
            return
        }
        Fuzz.require(Timestamp.secondsSince1970(text) == date.timeIntervalSince1970, "secondsSince1970 disagrees with parse for \(text)")
        guard let foundation = (try? withFraction.parse(text)) ?? (try? withoutFraction.parse(text)) else { return }
        // To a microsecond, or a few units in the last place of a Double that large.
        let difference = abs(date.timeIntervalSince(foundation))
        Fuzz.require(
            difference <= max(1e-6, 4 * date.timeIntervalSinceReferenceDate.magnitude.ulp),
            "'\(text)' is \(date.timeIntervalSince1970) s, Foundation reads \(foundation.timeIntervalSince1970) s")
    }

    static func format(_ seconds: Double) {
        // Every time a service formats is finite: a phone's clock, the service's own, a parsed timestamp.
        guard seconds.isFinite else { return }
        let date = Date(timeIntervalSince1970: seconds)
        let text = Timestamp.format(date)
        _ = Timestamp.format(secondsSince1970: seconds)
        // Foundation's formatter is the reference the hand-written one must match (for the years both write).
        guard abs(seconds) < 1e12 else { return }
        let reference = Timestamp.formatWithFoundation(date)
        Fuzz.require(text == reference, "\(seconds) s is formatted as \(text), Foundation writes \(reference)")
        // ISO 8601 without an agreement on more digits has the years 0000 to 9999: Foundation writes the others
        // (`-4712-01-01…`, `10000-01-01…`) as no ISO 8601 parser, its own included, reads them back.
        guard (-62_135_596_800..<253_402_300_800).contains(seconds) else { return }
        guard let back = Timestamp.parse(text) else { Fuzz.fail("\(seconds) s was written as \(text), which parse does not read") }
        // The milliseconds are truncated, so the text is at most a millisecond early (allowing for the rounding of
        // a Double of that size).
        let early = date.timeIntervalSince(back)
        let slack = max(1e-6, seconds.magnitude.ulp * 4)
        Fuzz.require(early >= -slack && early < 0.001 + slack, "\(seconds) s was written as \(text), which reads back \(early) s earlier")
    }
}
