@_spi(Benchmarks) import ChronoscopeScreen
import Dispatch

extension InspectorApp {
  /// How a run of the inspector ended.
  package enum RunEnd: Equatable, Sendable {
    /// The user quit (`q`).
    case quit
    /// A signal asked the program to end: shells expect the status 128 + `signal`.
    case interrupted(signal: Int32)
  }

  /// Runs the inspector on `display` until the user quits or a signal arrives: draws a frame
  /// whenever something changed, hands it each key, plays, takes what was prepared in the
  /// background and, with `followed`, each newer read of the file.
  ///
  /// ```swift
  /// let terminal = try TerminalSession()
  /// defer { terminal.stop() }
  /// if case .interrupted(let signal) = app.run(on: terminal) { exit(128 + signal) }
  /// ```
  ///
  /// A frame is drawn only when something changed: paused, the loop waits for a key (or a
  /// resize, or a signal) without waking; playing, it draws 30 times a second; following, it
  /// looks at the file every ``FollowedFile/interval`` milliseconds and draws when the file grew;
  /// while the keyframes and findings are still being made, it looks for them every 50 ms.
  ///
  /// - Parameter followed: The file to follow (`view --follow`), whose state was taken before
  ///   this inspector's replay was read, so that what was written meanwhile is read at the first
  ///   look.
  package mutating func run(
    on display: some InspectorDisplay, following followed: FollowedFile? = nil
  )
    -> RunEnd
  {
    var followed = followed
    if followed != nil { startFollowing() }
    // The inspector learns the size it draws at (a click's place, a too-small screen) from resizes.
    _ = handle(.resize(width: display.width, height: display.height))
    var last = DispatchTime.now().uptimeNanoseconds
    var changed = true
    while true {
      if changed {
        display.draw(
          render(width: display.width, height: display.height, colors: display.hasColors))
      }
      let wasPlaying = state.playing
      let timeout =
        wasPlaying ? 33 : isPreparing ? 50 : followed == nil ? -1 : FollowedFile.interval
      let key = display.readKey(timeoutMilliseconds: timeout)
      if let signal = display.interruption { return .interrupted(signal: signal) }
      let now = DispatchTime.now().uptimeNanoseconds
      tick(elapsed: Int64(clamping: now &- last))
      last = now
      if let key, !handle(key) { return .quit }
      changed = key != nil || wasPlaying
      if takePreparedWork() { changed = true }
      if let replay = followed?.poll() {
        follow(replay)
        changed = true
      }
    }
  }
}
