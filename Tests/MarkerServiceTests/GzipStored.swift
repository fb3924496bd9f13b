/// Wraps bytes in a gzip member made of stored (uncompressed) deflate blocks: a valid
/// `Content-Encoding: gzip` body built without zlib, to test the client's decompression.
enum GzipStored {
    static func wrap(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            out.append(final)
            out.append(contentsOf: [
                UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF),
            ])
            out.append(contentsOf: data[offset..<(offset + length)])
            offset += length
        } while offset < data.count
        let crc = crc32(data)
        let size = UInt32(truncatingIfNeeded: data.count)
        for value in [crc, size] {
            out.append(contentsOf: [
                UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24),
            ])
        }
        return out
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }
}
