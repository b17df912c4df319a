import ChronoscopeTraceFormat
import Foundation
import XCTest

/// How Perfetto's JSON importer (trace processor v52) reads an export's slices and flow events,
/// for tests that check what a user would see: which slice nests in which, and which slices an
/// arrow joins.
///
/// The rules, from its sources (`trace_sorter.h`, `slice_tracker.cc`, `json_trace_parser`):
/// - events are read in time order; at one time `X` slices come longest first, then everything
///   else (instants, flow ends), each group in file order;
/// - each thread track keeps a stack of slices. When a slice is read, those on top that ended
///   before it began are popped — and those that ended as it began, unless both last 0 ns, in
///   which case the new one stacks on the other. A slice that begins inside the top one and ends
///   after it is dropped; one that fits is drawn as the top one's child;
/// - a flow end (`s`, or `f` with `bp: "e"`) binds to the slice on top of its track's stack when
///   it is read, without popping anything first: the slice that began last, even one that has
///   already ended;
/// - instants with `"s": "t"` (or no scope) are 0-ns slices on the thread's track; with `"p"` or
///   `"g"` they go to tracks of their own.
struct PerfettoImportModel {
  /// A slice as the viewer keeps it.
  struct Slice {
    var index: Int
    var track: String
    var start: Int64
    var duration: Int64
    var action: Int?
    var mode: String?
    var run: Int?
    /// The recorded duration: `args.duration_ns` where it is given, else `dur`.
    var recordedDuration: Int64
  }

  /// Slices by index in the export's events.
  private(set) var slices: [Int: Slice] = [:]
  /// For each slice drawn inside another, the index of that other (its parent in the viewer).
  private(set) var parents: [Int: Int] = [:]
  /// Slices the viewer drops because they overlap the one they begin in.
  private(set) var dropped: [Int] = []
  /// For each flow id, the slices its `s` and `f` bind to (nil: bound to nothing).
  private(set) var flows: [Int: (out: Int?, into: Int?)] = [:]

  /// Nanoseconds from a JSON microseconds value written with three decimals.
  static func nanoseconds(_ value: Any?) -> Int64? {
    guard let number = value as? Double else { return nil }
    return Int64((number * 1_000).rounded())
  }

  init(_ events: [[String: Any]]) {
    struct Item {
      var index: Int
      var time: Int64
      var order: Int64
    }
    var byTrack: [String: [Item]] = [:]
    for (index, event) in events.enumerated() {
      let phase = event["ph"] as? String ?? ""
      let scope = event["s"] as? String ?? "t"
      let onThread = phase == "X" || phase == "s" || phase == "f" || (phase == "i" && scope == "t")
      guard onThread, let time = Self.nanoseconds(event["ts"]) else { continue }
      let track = "\(event["pid"] ?? 0).\(event["tid"] ?? 0)"
      var order = Int64.max
      if phase == "X" || phase == "i" {
        let duration = phase == "X" ? Self.nanoseconds(event["dur"]) ?? 0 : 0
        let args = event["args"] as? [String: Any] ?? [:]
        slices[index] = Slice(
          index: index, track: track, start: time, duration: duration,
          action: args["action"] as? Int, mode: args["mode"] as? String, run: args["run"] as? Int,
          recordedDuration: (args["duration_ns"] as? Int).map(Int64.init) ?? duration)
        if phase == "X" { order = -duration }
      }
      byTrack[track, default: []].append(Item(index: index, time: time, order: order))
    }
    for (_, items) in byTrack {
      var stack: [Int] = []
      for item in items.sorted(by: { ($0.time, $0.order, $0.index) < ($1.time, $1.order, $1.index) }
      ) {
        let event = events[item.index]
        if let slice = slices[item.index] {
          while let top = stack.last.flatMap({ slices[$0] }) {
            let end = top.start + top.duration
            let endsSame = end == slice.start && !(top.duration == 0 && slice.duration == 0)
            guard end < slice.start || endsSame else { break }
            stack.removeLast()
          }
          if let top = stack.last.flatMap({ slices[$0] }) {
            if slice.start + slice.duration > top.start + top.duration {
              dropped.append(item.index)
              continue
            }
            parents[item.index] = top.index
          }
          stack.append(item.index)
        } else if let id = event["id"] as? Int {
          var flow = flows[id] ?? (nil, nil)
          if event["ph"] as? String == "s" { flow.out = stack.last } else { flow.into = stack.last }
          flows[id] = flow
        }
      }
    }
  }
}

/// What a trace says about its actions, for checking an export against it.
struct TraceFacts {
  /// Each action's parent and the time it was scheduled, by action id.
  var schedules: [Int: (parent: Int?, time: Int64)] = [:]

  init(_ trace: Trace) {
    for event in trace.events where event.kind == .schedule {
      schedules[Int(event.action)] = (event.parent.map(Int.init), event.time)
    }
  }
}
