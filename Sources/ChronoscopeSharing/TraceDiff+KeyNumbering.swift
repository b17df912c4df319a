import ChronoscopeReplay

extension TraceDiff {
  /// Actions that one function scheduled on one queue: matched as one sequence.
  package struct Group: Hashable, Sendable {
    package var queue: String
    package var file: String
    package var function: String
  }

  /// Gives actions their ``ActionKey`` in scheduling order: the one way `diff` and a replay
  /// (`ChronoscopeReplayTesting`) name an action — its queue's label, its call site, and which of the
  /// actions its function scheduled on that queue it is.
  ///
  /// ```swift
  /// var numbering = TraceDiff.KeyNumbering()
  /// numbering.key(queue: "net", site: ("App/Loader.swift", 40, "load()")).key.occurrence  // 1
  /// numbering.key(queue: "net", site: ("App/Loader.swift", 44, "load()")).key.occurrence  // 2
  /// ```
  package struct KeyNumbering: Sendable {
    private var counts: [Group: Int] = [:]

    package init() {}

    /// The key and group of the next action scheduled on `queue` from `site` (file, line,
    /// function; nil when the trace has no call site for it).
    ///
    /// - Complexity: O(1) amortized.
    package mutating func key(queue: String, site: (file: String, line: Int, function: String)?)
      -> (key: ActionKey, group: Group)
    {
      let group = Group(queue: queue, file: site?.file ?? "", function: site?.function ?? "")
      let occurrence = counts[group, default: 0] + 1
      counts[group] = occurrence
      let text = site.map { "\($0.file):\($0.line) \($0.function)" } ?? ""
      return (ActionKey(queue: queue, site: text, occurrence: occurrence), group)
    }
  }
}

extension TraceDiff.ActionReference {
  /// An action named by `key`, its id `id` in its own run, scheduled at `scheduledAt` (ns from
  /// the origin): for runs that are not read from a trace, such as a replay's.
  package init(_ key: TraceDiff.ActionKey, id: ActionID, scheduledAt: Int64) {
    self.init(key: key, id: id, scheduledAt: scheduledAt)
  }
}

extension TraceDiff.RunReference {
  /// Run `run` (from 1) of `action`, begun at `began` (ns from the origin).
  package init(_ action: TraceDiff.ActionReference, run: Int, began: Int64) {
    self.init(action: action, run: run, began: began)
  }
}
