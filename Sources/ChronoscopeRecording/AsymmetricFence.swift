import CChronoscopeShims
import Synchronization

/// A full memory fence split in two halves of very different cost, for a protocol where one
/// side runs millions of times a second and the other a few hundred: each recorded event, and
/// each pass of the writer.
///
/// The light half, on the hot path, only keeps the compiler from reordering. The heavy half, on
/// the writer, makes every running thread of the process execute a full barrier before it
/// returns (Linux's `membarrier(2)`, `MEMBARRIER_CMD_PRIVATE_EXPEDITED`); a thread that is not
/// running passed one when it was switched out. So after a heavy fence returns, whatever a
/// thread stored before its light fence is visible to the writer — or the thread had not yet
/// reached that light fence when the heavy one began, and everything it does after it happens
/// after the heavy fence began.
///
/// Where `membarrier` is missing (another system, an old kernel, a sandbox that filters it),
/// both halves are full fences, which is what the protocol used everywhere before.
enum AsymmetricFence {
  /// Whether the heavy half is `membarrier`; decided once, when the first recorder starts.
  /// The hot path reads a copy (``ThreadBuffer``), not this lazily made global.
  static let isSplit: Bool = chronoscope_membarrier_register() == 0

  /// The light half (hot path): a compiler barrier, or a full fence where the heavy half is
  /// not available (`split`: ``isSplit``).
  @inline(__always)
  static func light(split: Bool) {
    if split {
      chronoscope_compiler_barrier()
    } else {
      atomicMemoryFence(ordering: .sequentiallyConsistent)
    }
  }

  /// The heavy half (the writer, a few times a second). Once registration has succeeded the
  /// call has no way left to fail (its errors are an unknown command and a process that did
  /// not register), and threads already past their light fences could not be helped by any
  /// fallback, so a failure is a broken precondition.
  static func heavy() {
    if isSplit {
      precondition(chronoscope_membarrier() == 0, "membarrier failed after registering")
    } else {
      atomicMemoryFence(ordering: .sequentiallyConsistent)
    }
  }
}
