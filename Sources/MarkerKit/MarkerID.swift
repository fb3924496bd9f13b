/// Byte-exact identity and ordering for marker ids.
///
/// Swift's `String` `==` and `<` follow Unicode canonical equivalence, so `"é"` (U+00E9) and
/// `"e\u{301}"` compare equal. The bus contract orders ties "by id compared as strings (byte
/// order)", and two such ids are distinct bytes on the wire, so MarkerKit compares, hashes and
/// orders ids by their UTF-8 bytes through this wrapper instead.
public struct MarkerID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id text.
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    public var description: String { text }

    public static func == (lhs: MarkerID, rhs: MarkerID) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(text.utf8.count)
    }

    public static func < (lhs: MarkerID, rhs: MarkerID) -> Bool {
        MarkerID.precedesInByteOrder(lhs.text, rhs.text)
    }

    /// True when `lhs` sorts before `rhs` comparing UTF-8 bytes (unsigned), the order the
    /// contract uses to break distance ties. Unlike `lhs < rhs` on `String`, this never
    /// normalizes, so canonically equivalent but different ids still have a strict order.
    public static func precedesInByteOrder(_ lhs: String, _ rhs: String) -> Bool {
        var a = lhs
        var b = rhs
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let n = min(pa.count, pb.count)
                if n > 0, let ba = pa.baseAddress, let bb = pb.baseAddress {
                    let c = memcmpBytes(ba, bb, n)
                    if c != 0 { return c < 0 }
                }
                return pa.count < pb.count
            }
        }
    }
}

@inline(__always)
private func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Int {
    for i in 0..<n where a[i] != b[i] {
        return a[i] < b[i] ? -1 : 1
    }
    return 0
}
