public import Foundation

extension Timestamp {
    /// A message's optional `timestamp`: the date it gives, or `received` (now) when it gives none.
    /// - Throws: ``InputError`` for a text that is not an ISO 8601 date.
    public static func date(_ text: String?, received: Date = Date()) throws(InputError) -> Date {
        guard let text else { return received }
        guard let date = parse(text) else { throw InputError("'timestamp' is '\(text.prefix(40))', not an ISO 8601 date") }
        return date
    }
}
