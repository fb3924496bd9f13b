@_exported public import WalkerSimulation

/// The project's one seeded generator (the simulator's SplitMix64), for tests whose random cases must be the same
/// on every run and platform: `var random = SeededGenerator(seed: 7)`, then `Double.random(in:using:)`,
/// `random.nextGaussian()`.
package typealias SeededGenerator = SplitMix64
