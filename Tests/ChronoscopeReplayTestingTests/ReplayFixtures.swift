import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTestSupport
import Foundation
import XCTest

/// Traces written line by line for the replay tests, and code that schedules from the call
/// sites they name.
enum ReplayFixtures {
  static let ms: Int64 = 1_000_000
  /// The latest time the trace reader takes: 2^62 − 1 ns.
  static let latest: Int64 = (1 << 62) - 1

  static let header =
    #"{"format":"chronoscope-trace","version":1,"clock":"virtual","start":"","process":"p","pid":0,"metadata":{}}"#

  /// The schedulers the fixtures' traces define: 1 `main`, 2 `net`, 3 `db`.
  static let schedulers = [
    #"{"t":0,"e":"thread","th":1,"name":"main"}"#,
    #"{"t":0,"e":"scheduler","q":1,"label":"main","kind":"main","family":"virtual"}"#,
    #"{"t":0,"e":"scheduler","q":2,"label":"net","kind":"concurrent","family":"virtual"}"#,
    #"{"t":0,"e":"scheduler","q":3,"label":"db","kind":"serial","family":"virtual"}"#,
  ]

  /// Call sites 1… `App/App.swift` lines 10, 20, 30… in `load()`, `save()`, `log()`.
  static let functions = ["load()", "save()", "log()"]

  static func site(_ id: Int) -> String {
    #"{"t":0,"e":"site","site":\#(id),"file":"App/App.swift","line":\#(id * 10),"func":"\#(functions[id - 1])"}"#
  }

  static func callSite(_ id: Int) -> CallSite {
    let functions: [StaticString] = ["load()", "save()", "log()"]
    return CallSite(fileID: "App/App.swift", line: UInt(id * 10), function: functions[id - 1])
  }

  static func schedule(
    _ action: Int, scheduler: Int, site: Int, at time: Int64, mode: String = "after"
  )
    -> String
  {
    #"{"t":\#(time),"e":"schedule","a":\#(action),"q":\#(scheduler),"mode":"\#(mode)","delay":0,"due":\#(time),"th":1,"site":\#(site)}"#
  }

  static func begin(_ action: Int, at time: Int64, run: Int = 1) -> String {
    #"{"t":\#(time),"e":"begin","a":\#(action),"th":1,"run":\#(run)}"#
  }

  static func end(_ action: Int, at time: Int64, run: Int = 1) -> String {
    #"{"t":\#(time),"e":"end","a":\#(action),"th":1,"run":\#(run),"dur":0}"#
  }

  /// What ran, with the clock's time (ns) when it ran.
  final class Log: Sendable {
    private let entries = Locked<[String]>([])
    func append(_ entry: String, at time: Duration) {
      entries.withLock { $0.append("\(entry)@\(time.clampedNanoseconds / 1_000_000)ms") }
    }
    var value: [String] { entries.value }
  }
}
