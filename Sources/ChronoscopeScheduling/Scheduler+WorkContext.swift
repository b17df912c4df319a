extension Scheduler {
  /// ``async(fileID:line:function:_:)`` for work named `name`, with `values` (see
  /// ``WorkContext``).
  ///
  /// ```swift
  /// results.async(name: "show \(query)") { render(items) }
  /// ```
  @discardableResult
  public func async(
    name: String, _ values: [String: String] = [:], fileID: StaticString = #fileID,
    line: UInt = #line, function: StaticString = #function,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    WorkContext.with(name: name, values) {
      scheduleAsync(from: CallSite(fileID: fileID, line: line, function: function), work)
    }
  }

  /// ``after(_:fileID:line:function:_:)`` for work named `name`, with `values` (see
  /// ``WorkContext``).
  @discardableResult
  public func after(
    _ delay: Duration, name: String, _ values: [String: String] = [:],
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    WorkContext.with(name: name, values) {
      scheduleAfter(delay, from: CallSite(fileID: fileID, line: line, function: function), work)
    }
  }

  /// ``every(_:firstAfter:fileID:line:function:_:)`` for work named `name`, with `values` (see
  /// ``WorkContext``).
  @discardableResult
  public func every(
    _ interval: Duration, firstAfter firstDelay: Duration? = nil, name: String,
    _ values: [String: String] = [:], fileID: StaticString = #fileID, line: UInt = #line,
    function: StaticString = #function, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    WorkContext.with(name: name, values) {
      scheduleRepeating(
        every: interval, firstAfter: firstDelay ?? interval,
        from: CallSite(fileID: fileID, line: line, function: function), work)
    }
  }

  /// ``at(_:fileID:line:function:_:)`` for work named `name`, with `values` (see
  /// ``WorkContext``).
  @discardableResult
  public func at(
    _ deadline: SchedulerInstant, name: String, _ values: [String: String] = [:],
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    WorkContext.with(name: name, values) {
      scheduleAt(deadline, from: CallSite(fileID: fileID, line: line, function: function), work)
    }
  }

  /// ``sync(fileID:line:function:_:)`` for work named `name`, with `values` (see
  /// ``WorkContext``).
  public func sync<T>(
    name: String, _ values: [String: String] = [:], fileID: StaticString = #fileID,
    line: UInt = #line, function: StaticString = #function, _ work: () throws -> T
  ) rethrows -> T {
    try WorkContext.with(name: name, values) {
      try scheduleSync(from: CallSite(fileID: fileID, line: line, function: function), work)
    }
  }
}
