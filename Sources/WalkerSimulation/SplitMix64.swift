import RealModule

/// The simulator's own seeded generator, so a seed gives the same walk on every platform and Swift version
/// (the standard library's generator is neither seedable nor stable).
///
/// SplitMix64 (Steele, Lea and Flood, 2014): tiny, fast, and good enough for simulation noise.
package struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// An independent stream for one purpose (gait, GPS, noise...), so switching one source of randomness
    /// off does not change the others.
    package init(seed: UInt64, stream: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next()
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits (the marker benchmarks' generated points).
    package mutating func nextFraction() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// Uniform in (0, 1]: never 0, so it is safe under a logarithm.
    package mutating func nextUnit() -> Double {
        (Double(next() >> 11) + 1) * 0x1p-53
    }

    /// A standard normal sample (Box–Muller, one of the pair).
    package mutating func nextGaussian() -> Double {
        let u1 = nextUnit()
        let u2 = nextUnit()
        return (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * .pi * u2)
    }

    /// A standard normal sample clipped to ±3, for quantities that must stay physical (step lengths, cadences).
    package mutating func nextClippedGaussian() -> Double {
        min(3, max(-3, nextGaussian()))
    }
}
