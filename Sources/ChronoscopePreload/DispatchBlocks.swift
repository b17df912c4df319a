// Linux only, as `chronoscope record` is: interposing through LD_PRELOAD on glibc and ELF. On
// other systems the library is empty (README, "What builds where").
#if os(Linux)
  import CChronoscopePreload
  import ChronoscopeRecording
  import Glibc
  import Synchronization

  /// Blocks as the program hands them to Dispatch, and the program's work inside them.
  ///
  /// Most are plain blocks: the recorder hands Dispatch its own work in their place (a block, or a
  /// function and context for the `_f` form of the call) that records the run and calls the
  /// program's. Some are made by `dispatch_block_create` (a `DispatchWorkItem`,
  /// `async(qos:flags:)`, `async(flags: .barrier)`): Dispatch reads their flags, quality of service
  /// and cancellation from the block itself, so a block around one would run a barrier as plain
  /// work or a cancelled item anyway. Such a block is handed on as it came; the program's work it
  /// holds (its private data's `dbpd_block`) is replaced by the recording block, which calls it.
  ///
  /// That private data is libdispatch's, not its API: its layout is checked by its magic number
  /// before it is touched, and a block whose layout does not check out is neither recorded nor
  /// changed (the work runs as it would, unrecorded).
  enum DispatchBlocks {
    /// The invoke function of blocks made by `dispatch_block_create`: libdispatch exports it as a
    /// constant pointer.
    private static let specialInvoke: UInt =
      dlsym(nil, "_dispatch_block_special_invoke")
      .map { UInt(bitPattern: $0.load(as: UnsafeRawPointer?.self)) } ?? 0

    // The block ABI: isa, flags, reserved, invoke (at 16), descriptor; captured values from 32.
    private static let invokeOffset = 16
    // libdispatch's `dispatch_block_private_data_s`, captured first: its magic, then flags,
    // atomic flags, performed, priority, voucher, and the work block (at 32 + 40).
    private static let magicOffset = 32
    private static let magic: UInt = 0xD159_B10C
    private static let workOffset = 72
    // Its atomic flags (at 32 + 16), whose lowest bit says it was cancelled.
    private static let flagsOffset = 48
    private static let cancelledFlag: UInt32 = 1

    /// Whether `block` was made by `dispatch_block_create`: Dispatch reads its meaning from it.
    static func isMadeByDispatch(_ block: @escaping Block) -> Bool {
      isSpecial(unsafeBitCast(block, to: UnsafeRawPointer.self))
    }

    /// Whether `block` can be recorded: a plain block, or one made by `dispatch_block_create`
    /// whose private data has the layout this knows.
    static func isRecordable(_ block: @escaping Block) -> Bool {
      let raw = unsafeBitCast(block, to: UnsafeRawPointer.self)
      guard isSpecial(raw) else { return true }
      return raw.load(fromByteOffset: magicOffset, as: UInt.self) == magic
        && raw.load(fromByteOffset: workOffset, as: UnsafeRawPointer?.self) != nil
    }

    /// The block to hand Dispatch for `block` (``isRecordable(_:)`` said yes), which calls `run`
    /// with the program's work each time Dispatch runs it.
    static func wrap(_ block: @escaping Block, _ run: @escaping (Block) -> Void) -> Block {
      let raw = unsafeBitCast(block, to: UnsafeMutableRawPointer.self)
      guard isSpecial(UnsafeRawPointer(raw)),
        let work = raw.load(fromByteOffset: workOffset, as: UnsafeMutableRawPointer?.self)
      else {
        return { run(block) }
      }
      // The recording block takes over the private data's reference to the work: it holds its
      // own (captured), and the one the private data held is given back.
      let program = unsafeBitCast(work, to: Block.self)
      let recording: Block = { run(program) }
      let copied = blockCopy(unsafeBitCast(recording, to: UnsafeRawPointer.self))
      raw.storeBytes(of: copied, toByteOffset: workOffset, as: UnsafeMutableRawPointer?.self)
      blockRelease(UnsafeRawPointer(work))
      return block
    }

    /// ``wrap(_:_:)`` recording each run as one of `action`'s. A block made by
    /// `dispatch_block_create` can be cancelled through itself (`DispatchWorkItem.cancel()`): until
    /// it runs, such a cancel is recorded as `action`'s.
    static func recorded(
      _ block: @escaping Block, _ recorder: ForeignWorkRecorder,
      _ action: ForeignWorkRecorder.Action
    ) -> Block {
      let raw = UInt(bitPattern: unsafeBitCast(block, to: UnsafeRawPointer.self))
      guard isSpecial(UnsafeRawPointer(bitPattern: raw)) else {
        // One closure, not `wrap`'s two: this is every plain `async`'s path.
        return { runRecorded(recorder, action, block) }
      }
      // Cancelled before it was handed over: Dispatch will drop it unrun.
      let flags = UnsafeRawPointer(bitPattern: raw)?.load(
        fromByteOffset: flagsOffset, as: UInt32.self)
      if let flags, flags & cancelledFlag != 0 {
        recorder.cancel(action, started: false)
      } else {
        pending.withLock { $0[raw] = (recorder, action) }
      }
      return wrap(block) { work in
        pending.withLock { _ = $0.removeValue(forKey: raw) }
        runRecorded(recorder, action, work)
      }
    }

    /// Records a cancel of the work `block` holds, if it was handed to Dispatch and has not run.
    static func cancelled(_ block: UnsafeRawPointer) {
      guard
        let (recorder, action) = pending.withLock({
          $0.removeValue(forKey: UInt(bitPattern: block))
        })
      else { return }
      recorder.cancel(action, started: false)
    }

    /// Blocks made by `dispatch_block_create` handed to Dispatch and not run yet, by address.
    private static let pending = Mutex<[UInt: (ForeignWorkRecorder, ForeignWorkRecorder.Action)]>(
      [:])

    private static func isSpecial(_ raw: UnsafeRawPointer?) -> Bool {
      guard let raw else { return false }
      return specialInvoke != 0
        && raw.load(fromByteOffset: invokeOffset, as: UInt.self) == specialInvoke
    }
  }

  // The blocks runtime's copy and release, which Swift does not spell for raw pointers.
  private let blockCopy = nextDefinition(
    "_Block_copy", as: (@convention(c) (UnsafeRawPointer) -> UnsafeMutableRawPointer?).self)
  private let blockRelease = nextDefinition(
    "_Block_release", as: (@convention(c) (UnsafeRawPointer) -> Void).self)

  private let realBlockCancel = nextDefinition(
    "dispatch_block_cancel", as: (@convention(c) (UnsafeRawPointer?) -> Void).self)

  @_cdecl("dispatch_block_cancel")
  package func interposedBlockCancel(_ block: UnsafeRawPointer?) {
    if let block, Preload.isRecording, chronoscope_preload_enter() != 0 {
      DispatchBlocks.cancelled(block)
      chronoscope_preload_leave()
    }
    realBlockCancel(block)
  }
#endif
