import ChronoscopeTraceFormat

/// The schedulers the crafted traces of these tests put their work on: the main scheduler (1), a serial
/// scheduler `db` (2) and a concurrent scheduler `net` (3).
enum CraftedSchedulers {
  static let all: [UInt32: SchedulerRecord] = [
    1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "dispatch", time: 0),
    2: SchedulerRecord(id: 2, label: "db", kind: "serial", family: "dispatch", time: 0),
    3: SchedulerRecord(id: 3, label: "net", kind: "concurrent", family: "dispatch", time: 0),
  ]
}
