import CChronoscopeSlots
import Foundation
import Synchronization

/// The bridge between the slots' replacements (CChronoscopeSlots) and the bubbles: the callbacks
/// they call on a thread that runs bubble work, and which bubble fires which timer source.
enum BubbleSlots {
  /// Puts the replacements in the slots (again, for libraries loaded since), or says why not.
  static func install() throws(TimeBubbleError) {
    _ = callbacksSet
    let holding = chronoscope_slots_install()
    guard holding >= 0 else {
      throw .unsupported(
        reason:
          "it needs Linux on x86_64 or arm64, with the Swift runtime's libraries loaded as shared objects and libdispatch's entry points found by name"
      )
    }
    // The two without which nothing of the bubble holds.
    for symbol in ["clock_gettime", "dispatch_after_f"] where chronoscope_slots_count(symbol) == 0 {
      throw .unsupported(
        reason:
          "no loaded library of the Swift runtime imports \(symbol) through a slot that could be rewritten (a statically linked runtime, or one built with another layout)"
      )
    }
  }

  /// Which bubble fires each tracked source.
  private static let owners = Mutex<[UInt: Unmanaged<BubbleCore>]>([:])

  /// Tracks `source` for `core`; false if another bubble already fires it.
  static func track(_ source: UnsafeMutableRawPointer, for core: BubbleCore) -> Bool {
    let key = UInt(bitPattern: source)
    let added = owners.withLock { owners -> Bool in
      guard owners[key] == nil else { return false }
      owners[key] = Unmanaged.passUnretained(core)
      return true
    }
    if added { chronoscope_slots_track(source, 1) }
    return added
  }

  static func untrack(_ source: UnsafeMutableRawPointer) {
    owners.withLock { _ = $0.removeValue(forKey: UInt(bitPattern: source)) }
    chronoscope_slots_track(source, 0)
  }

  private static func owner(of source: UnsafeMutableRawPointer) -> BubbleCore? {
    owners.withLock { $0[UInt(bitPattern: source)]?.takeUnretainedValue() }
  }

  private static func core(_ bubble: UnsafeMutableRawPointer?) -> BubbleCore? {
    bubble.map { Unmanaged<BubbleCore>.fromOpaque($0).takeUnretainedValue() }
  }

  private static let callbacksSet: Void = {
    var callbacks = chronoscope_slots_callbacks(
      now: { bubble, clock, time in
        guard let core = core(bubble), let time else { return -1 }
        return core.read(clock, into: &time.pointee)
      },
      work: { bubble, kind, when, queue, group, block, context, function in
        guard let core = core(bubble) else { return 0 }
        return core.take(
          kind: chronoscope_slots_work_kind(rawValue: UInt32(bitPattern: kind)), when: when,
          queue: queue, group: group, block: block, context: context, function: function)
          ? 1 : 0
      },
      set_timer: { bubble, source, start, interval, leeway in
        guard let source, let core = core(bubble) ?? owner(of: source) else { return 0 }
        return core.setTimer(source, start: start, interval: interval, leeway: leeway) ? 1 : 0
      },
      object: { object, operation, block, function in
        guard let object else { return 0 }
        let core = owner(of: object) ?? core(chronoscope_slots_current())
        guard let core else { return 0 }
        switch operation {
        case Int32(chronoscope_slots_event_handler.rawValue):
          if let block { core.setHandler(.block(block), for: object) }
        case Int32(chronoscope_slots_event_handler_function.rawValue):
          if let function { core.setHandler(.function(function), for: object) }
        case Int32(chronoscope_slots_release.rawValue):
          break
        default:
          core.sourceOperation(object, operation)
        }
        // The real call is always made too: the real source's state (active, suspended,
        // cancelled) stays what the code asked for, and its timer is parked for ever.
        return 0
      },
      blocking: { bubble, what, when in
        guard let core = core(bubble) else { return when }
        return core.blocking(what == 0 ? .semaphore : .group, until: when)
      },
      unblocked: { bubble, what, when, timedOut in
        core(bubble)?.unblocked(
          what == 0 ? .semaphore : .group, until: when, timedOut: timedOut != 0)
      })
    chronoscope_slots_set_callbacks(&callbacks)
  }()
}

/// Runs `body` as code of no time bubble, even on a thread that drives one: Chronoscope's own
/// Dispatch work and clock reads, which must not be taken into the bubble they serve.
func outsideAnyBubble<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
  let bubble = chronoscope_slots_set_current(nil)
  defer { if bubble != nil { chronoscope_slots_set_current(bubble) } }
  return try body()
}
