/// The topic level a client uses under `replies/`: its client id, with anything that cannot stand in a
/// topic level (`/`, `+`, `#`, NUL) replaced, so a user-chosen client id can never widen a filter.
enum ReplyTopic {
    static func level(for clientID: String) -> String {
        let cleaned = String(
            clientID.map { character -> Character in
                character == "/" || character == "+" || character == "#" || character == "\0" ? "_" : character
            })
        return cleaned.isEmpty ? "stepcompass-cli" : cleaned
    }
}
