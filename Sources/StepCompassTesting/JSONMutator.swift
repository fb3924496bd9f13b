/// Mutates valid payloads into the broken ones a network, a buggy app or an attacker sends, for fuzz tests of the
/// decoders: bytes deleted, inserted (JSON's own characters most often), replaced, slices duplicated or cut short.
/// Seeded, so a failing case is the same on every run and its seed and round are enough to find it again.
package struct JSONMutator {
    private var random: SeededGenerator
    /// Characters that change a JSON document's structure or numbers, tried more often than random bytes.
    private static let significant = Array("{}[]\":,-+.0123456789eE \\ntrufalse".utf8) + [0, 0xC3, 0xA9, 0xFF, 0x80]

    package init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    /// `seed` changed by one to four mutations.
    package mutating func mutate(_ seed: [UInt8]) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes.remove(at: position)
            case 1:
                bytes.insert(byte(), at: position)
            case 2 where !bytes.isEmpty:
                bytes[position] = byte()
            case 3 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 4:
                bytes = Array(bytes.prefix(position))
            default:
                if !bytes.isEmpty { bytes.swapAt(position, Int.random(in: 0..<bytes.count, using: &random)) }
            }
        }
        return bytes
    }

    private mutating func byte() -> UInt8 {
        Bool.random(using: &random) ? Self.significant.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
    }
}
