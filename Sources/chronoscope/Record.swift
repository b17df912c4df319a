import ArgumentParser
import ChronoscopeCore
import ChronoscopeFatalSignals
@_spi(Benchmarks) import ChronoscopeRecording
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTraceFormat
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `chronoscope record [options] -- PROGRAM ARGS…`: runs a program with recording switched on
/// through the preload library, passes its exit status through, and says where its traces are.
struct Record: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a program with recording switched on and say where its traces are.",
    discussion: """
      The program runs unchanged: the preload library (found beside chronoscope) records what it \
      asks of Dispatch and of Swift's executors. Each process of its tree that loads the library \
      writes its own trace (%p in the path becomes its process id; without %p the first gets \
      the path and the others, and what a process execs into, one-PID.trace and \
      one-PID-exec1.trace beside it). The exit status is the \
      program's (128+N when signal N ended it; 127 when there is no such program, 126 when it \
      cannot run); SIGINT and SIGTERM are passed on to it. Linux only (the library is preloaded \
      with LD_PRELOAD into glibc programs): on other systems record says so and exits with 2.
      """
  )

  @Option(
    name: .shortAndLong,
    help: "Where to write the traces; %p becomes each process's id (default: PROGRAM-%p.trace).")
  var output: String?

  @Option(help: "Keep only this long in memory (e.g. 30s), written at exit, on SIGUSR1 or a crash.")
  var flight: String?

  @Option(help: "Rotate a trace past this size (e.g. 64M).")
  var maxBytes: String?

  @Option(help: "With --max-bytes: how many older files to keep.")
  var keep: Int?

  @Argument(parsing: .postTerminator, help: "The program and its arguments, after --.")
  var command: [String] = []

  func validate() throws {
    guard !command.isEmpty else {
      throw ValidationError("name the program after --: chronoscope record -- ./MyApp")
    }
    if let flight, RecordingLaunch.seconds(flight) == nil {
      throw ValidationError("--flight must be a duration such as 30s")
    }
    // What CHRONOSCOPE_TRACE_MAX_BYTES takes: digits and an optional binary K, M or G.
    if let maxBytes {
      let digits =
        maxBytes.last.map { "KMGkmg".contains($0) } == true
        ? maxBytes.dropLast() : Substring(maxBytes)
      guard !digits.isEmpty, digits.allSatisfy(\.isASCII), Int(digits).map({ $0 > 0 }) == true
      else {
        throw ValidationError("--max-bytes must be a size such as 64M (K, M, G are binary)")
      }
    }
    if let keep, keep < 0 {
      throw ValidationError("--keep must be 0 or more")
    }
  }

  func run() throws {
    #if os(Linux)
      try record()
    #else
      standardError(Self.needsLinux)
      throw ExitCode(Self.needsLinuxStatus)
    #endif
  }

  /// What `record` says on a system other than Linux, and the status it then ends with (as for
  /// a missing preload library: `record` could not start the program).
  static let needsLinux =
    "chronoscope: record needs Linux: it switches recording on in an unchanged program by "
    + "preloading a library into it (LD_PRELOAD, glibc), which this system does not do; link "
    + "ChronoscopeRecording into the program instead (README, \"Recording and inspecting\")"
  static let needsLinuxStatus: Int32 = 2

  #if os(Linux)
    private func record() throws {
      guard let library = RecordingLaunch.preloadLibrary() else {
        standardError(
          "chronoscope: the preload library is not installed beside chronoscope (looked in "
            + RecordingLaunch.libraryCandidates().map(\.path).joined(separator: ", ")
            + "); in a checkout, swift build builds it; elsewhere, install both with "
            + "scripts/install.sh, or name it in \(RecordingLaunch.libraryVariable)"
        )
        throw ExitCode(2)
      }
      let program = command[0]
      let template = output ?? "\(URL(fileURLWithPath: program).lastPathComponent)-%p.trace"
      let stream = RecordingLaunch.streamKind(at: template)
      if maxBytes != nil, let stream {
        // The recorder would refuse too, in each process; saying it once, before the program
        // runs, is clearer.
        standardError(
          "chronoscope: --max-bytes rotates files by renaming and deleting them, and \(template) is \(stream): record to it without --max-bytes, or name a file"
        )
        throw ExitCode(2)
      }
      if stream == nil, let reason = RecordingLaunch.unwritableFolder(of: template) {
        // Every process's recorder would refuse it and run unrecorded; the program need not
        // run for that.
        standardError("chronoscope: cannot open \(template) for writing: \(reason)")
        throw ExitCode(2)
      }
      var environment = ProcessInfo.processInfo.environment
      environment["LD_PRELOAD"] = ([library.path] + (environment["LD_PRELOAD"].map { [$0] } ?? []))
        .joined(separator: ":")
      // Resolved now, against record's own working directory: the recorder opens the file
      // inside the program, after any `chdir` it made, and in children it started elsewhere.
      environment["CHRONOSCOPE_TRACE"] = RecordingLaunch.absolute(template)
      if let flight, let seconds = RecordingLaunch.seconds(flight) {
        // The variable takes whole seconds; a window is never shorter than asked for.
        environment["CHRONOSCOPE_TRACE_FLIGHT"] = String(Int(seconds.rounded(.up)))
      }
      if let maxBytes { environment["CHRONOSCOPE_TRACE_MAX_BYTES"] = maxBytes }
      // Plain files are spooled while the program runs, and converted below when it ends: the
      // recorder's writer then keeps up with programs that keep every core busy (see
      // `TraceSpool`). A stream is read as it comes, and a rotating file or a flight window is
      // written as lines anyway.
      if stream == nil, maxBytes == nil, flight == nil {
        environment[RecordingSchedulerFactory.spoolVariable] = "1"
      }
      if let keep { environment["CHRONOSCOPE_TRACE_KEEP"] = String(keep) }
      // Another run may write traces by the same template in the same folder at the same time:
      // this run's carry its token in their headers.
      let session = UUID().uuidString
      environment[RecordSession.variable] = session
      let status = RecordingLaunch.run(command, environment: environment)
      let traces = RecordingLaunch.traces(matching: template, session: session)
      if let stream {
        standardError(
          "chronoscope: \(template) is \(stream): what the recorder wrote there is not checked or symbolized (it says above if it could not write)"
        )
      } else if traces.isEmpty {
        standardError(
          "chronoscope: no trace was written (\(template)): the program is not a Swift or Dispatch program, its recorder could not start (said above), or it ended first"
        )
      }
      RecordingLaunch.convertSpools(traces)
      RecordingLaunch.symbolize(traces)
      for trace in traces {
        standardError("chronoscope: trace written to \(trace)")
        if let dropped = RecordingLaunch.droppedEvents(in: trace), dropped > 0 {
          standardError(
            "chronoscope: \(trace): the recorder dropped \(dropped) event(s): work came faster than it wrote (validate says where)"
          )
        }
      }
      throw ExitCode(status)
    }
  #endif
}

/// Finding the preload library and running a program under it.
enum RecordingLaunch {
  /// The preload library's file name.
  static let libraryName = "libChronoscopePreload.so"

  /// The variable that names the library, for an installation that keeps it elsewhere.
  static let libraryVariable = "CHRONOSCOPE_PRELOAD"

  /// Where the library may be: where `CHRONOSCOPE_PRELOAD` says, beside the executable (a build
  /// folder, `swift run`), then in `lib/chronoscope/` under the prefix the executable is
  /// installed in.
  static func libraryCandidates() -> [URL] {
    let named = ProcessInfo.processInfo.environment[libraryVariable].flatMap {
      $0.isEmpty ? nil : URL(fileURLWithPath: $0)
    }
    guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else {
      return named.map { [$0] } ?? []
    }
    let folder = executable.deletingLastPathComponent()
    return (named.map { [$0] } ?? []) + [
      folder.appendingPathComponent(libraryName),
      folder.deletingLastPathComponent().appendingPathComponent("lib/chronoscope/\(libraryName)"),
    ]
  }

  /// `path` as an absolute path: itself when it starts with `/`, else under the working
  /// directory (a `%p` in it stays).
  static func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
  }

  /// Why no trace can be made in the folder `template` names (no such folder, not a folder, not
  /// writable), as the system says it; nil when it can, or when `%p` in the folder's own path
  /// makes it one folder per process.
  static func unwritableFolder(of template: String) -> String? {
    let folder = (absolute(template) as NSString).deletingLastPathComponent
    guard !folder.contains("%p") else { return nil }
    var status = stat()
    guard stat(folder, &status) == 0 else { return String(cString: strerror(errno)) }
    guard status.st_mode & S_IFMT == S_IFDIR else { return String(cString: strerror(ENOTDIR)) }
    guard access(folder, W_OK | X_OK) == 0 else { return String(cString: strerror(errno)) }
    return nil
  }

  static func preloadLibrary() -> URL? {
    libraryCandidates().first { FileManager.default.isReadableFile(atPath: $0.path) }
  }

  /// The trace files this run's processes wrote for `template`: those whose header carries
  /// `session`, oldest first. `%p` stands for each process image's name (`TraceProcessNames`);
  /// a template without it names the first image's file, and the others' beside it.
  static func traces(matching template: String, session: String) -> [String] {
    let url = URL(fileURLWithPath: template)
    let folder = url.deletingLastPathComponent().path
    let pattern = url.lastPathComponent
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
      return []
    }
    let patterns =
      pattern.contains("%p") ? [pattern] : [pattern, TraceProcessNames.othersTemplate(pattern)]
    let matching = names.filter { name in patterns.contains { matches(name, $0) } }
    let dated = matching.compactMap { name -> (path: String, modified: Date)? in
      // Paths as the template spells them: relative when it is.
      let path = template.contains("/") ? (folder as NSString).appendingPathComponent(name) : name
      // Only regular files: opening a FIFO to read its header would wait for a writer.
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
        attributes[.type] as? FileAttributeType == .typeRegular,
        let modified = attributes[.modificationDate] as? Date,
        header(of: path)?.metadata[RecordSession.metadataKey] == session
      else { return nil }
      return (path, modified)
    }
    return dated.sorted { $0.modified < $1.modified }.map(\.path)
  }

  /// Whether the file named `name` belongs to a recording whose file name is `pattern`: the
  /// file of each image (`%p`: its name), and each's older files (`--max-bytes`: `r.1.trace`
  /// for `r.trace`, by the recorder's rule).
  private static func matches(_ name: String, _ pattern: String) -> Bool {
    let parts = pattern.components(separatedBy: "%p")
    guard parts.count > 1 else {
      return TraceRotationNames.generation(of: name, base: pattern) != nil
    }
    guard name.hasPrefix(parts[0]), name.hasSuffix(parts[parts.count - 1]),
      name.count >= parts[0].count + parts[parts.count - 1].count
    else { return false }
    let middle = name.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count)
    return parts.count == 2 ? TraceProcessNames.isFileName(middle) : true
  }

  /// What `path` is when it names a device, FIFO or socket ("a character device"…), which the
  /// recorder writes in place, possibly through a link (`/dev/stdout`); nil for a regular file,
  /// nothing, or a template with `%p`.
  static func streamKind(at path: String) -> String? {
    path.contains("%p") ? nil : TraceReader.streamKind(of: path)
  }

  /// The header of the trace at `path`, as the trace reader reads its first line (at most 64 KiB
  /// of the file), or nil when it has none.
  static func header(of path: String) -> TraceHeader? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    var start = (try? handle.read(upToCount: 1 << 16)) ?? Data()
    // A spool's header line follows its first line.
    if start.starts(with: TraceSpool.magic) { start = start.dropFirst(TraceSpool.magic.count) }
    let line = Array(start.prefix { $0 != UInt8(ascii: "\n") }) + [UInt8(ascii: "\n")]
    return TraceReader.parse(line, file: path).trace?.header
  }

  /// The events the recorder dropped, from the trace's `close` line (its last), if it has one:
  /// the reader reads that line after the header.
  static func droppedEvents(in path: String) -> Int64? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    let start = (try? handle.read(upToCount: 1 << 16)) ?? Data()
    let size = (try? handle.seekToEnd()) ?? 0
    try? handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
    let tail = (try? handle.readToEnd()) ?? Data()
    guard let last = tail.split(separator: UInt8(ascii: "\n")).last else { return nil }
    let lines =
      Array(start.prefix { $0 != UInt8(ascii: "\n") }) + [UInt8(ascii: "\n")] + Array(last)
      + [UInt8(ascii: "\n")]
    return TraceReader.parse(lines, file: path).trace?.closing?.dropped
  }

  /// Whether the process that wrote the trace at `path` (its header's `pid`) is still running: a
  /// child the program left behind may still be writing it.
  static func isStillWritten(_ path: String) -> Bool {
    guard let pid = header(of: path)?.pid, pid > 0, pid <= Int64(Int32.max) else { return false }
    return kill(pid_t(pid), 0) == 0 || errno == EPERM
  }

  /// Gives the traces' call sites functions and source lines (see `SiteSymbolization`), saying
  /// once what could not be done. Nothing here changes `record`'s status: a failure is a note,
  /// and a crash (a trap, a fault the trace reader's guard does not mend) ends `record` with the
  /// status of the program `run` ran, and a note (see `ExitOnCrash`).
  /// Converts the spools among `traces` into their traces, in place (see `TraceSpool`). A process
  /// still running keeps its spool, which every command reads and `convert` converts later.
  static func convertSpools(_ traces: [String]) {
    ExitOnCrash.while(status: programStatus.load(ordering: .relaxed)) {
      for trace in traces {
        if isStillWritten(trace) {
          standardError(
            "chronoscope: \(trace): its process is still running: left as a spool, which every command reads (chronoscope convert converts it once the process ends)"
          )
          continue
        }
        do throws(TraceSpoolConversion.ConversionError) {
          for diagnostic in try TraceSpoolConversion.convertInPlace(path: trace) ?? [] {
            standardError("chronoscope: \(TextWidth.sanitized(diagnostic.description))")
          }
        } catch {
          standardError(
            "chronoscope: \(trace): left as a spool, which every command reads: \(error.description)"
          )
        }
      }
    }
  }

  static func symbolize(_ traces: [String]) {
    guard !traces.isEmpty else { return }
    ExitOnCrash.while(status: programStatus.load(ordering: .relaxed)) {
      symbolizeEach(traces)
    }
  }

  private static func symbolizeEach(_ traces: [String]) {
    guard let tools = SiteSymbolization.Tools.find() else {
      standardError(
        "chronoscope: llvm-symbolizer is not on PATH: call sites stay as module and offset")
      return
    }
    let directory = FileManager.default.currentDirectoryPath
    for trace in traces {
      if isStillWritten(trace) {
        standardError(
          "chronoscope: \(trace): its process is still running: call sites not symbolized")
        continue
      }
      do {
        let outcome = try SiteSymbolization.symbolize(
          path: trace, tools: tools, relativeTo: directory)
        for note in outcome.notes { standardError("chronoscope: \(trace): \(note)") }
      } catch {
        standardError("chronoscope: \(trace): call sites not symbolized: \(error)")
      }
    }
  }

  /// `30s`, `500ms`, `2m` as seconds; nil when it is none.
  static func seconds(_ text: String) -> Double? {
    let units: [(String, Double)] = [("ms", 1e-3), ("s", 1), ("m", 60)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
      guard let value = Double(text.dropLast(suffix.count)), value.isFinite, value > 0 else {
        return nil
      }
      return value * scale
    }
    return nil
  }

  #if os(Linux)
    /// Runs `command` with `environment`, spawned directly (found on `PATH` as a shell finds it),
    /// and returns the status to exit with: its own, 128+N after signal N, 127 when there is no
    /// such program, 126 when it cannot run (not executable, a folder). The status is kept for
    /// `symbolize(_:)`, which exits with it if it crashes.
    static func run(_ command: [String], environment: [String: String]) -> Int32 {
      let status = spawnAndWait(command, environment: environment)
      programStatus.store(status, ordering: .relaxed)
      return status
    }

    /// Spawns `command` and waits for it: `run(_:environment:)`, but for keeping the status.
    ///
    /// The program runs in this process's group, as it would from the shell: it stays in the
    /// terminal's foreground (a program reading the terminal reads it), and Ctrl-C, Ctrl-\ and a
    /// hangup reach it from the terminal itself. Those signals do not end `record` meanwhile, and
    /// are passed on only when another process sent them to `record` alone (`kill PID`):
    /// forwarding one the terminal sent to the whole group would deliver it twice.
    private static func spawnAndWait(_ command: [String], environment: [String: String]) -> Int32 {
      let passedOn = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
      var previous: [Int32: sigaction] = [:]
      for number in passedOn {
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = passOn
        action.sa_flags = SA_SIGINFO | SA_RESTART
        sigemptyset(&action.sa_mask)
        var old = sigaction()
        sigaction(number, &action, &old)
        previous[number] = old
      }
      // A mask inherited blocked (a parent that spawned `record` from a thread blocking them, as
      // Dispatch's workers do) would hold these signals pending for ever: this thread takes them.
      var handled = sigset_t()
      sigemptyset(&handled)
      for number in passedOn { sigaddset(&handled, number) }
      pthread_sigmask(SIG_UNBLOCK, &handled, nil)
      defer {
        runningChild.store(0, ordering: .releasing)
        for (number, old) in previous {
          var restored = old
          sigaction(number, &restored, nil)
        }
      }
      var attributes = posix_spawnattr_t()
      posix_spawnattr_init(&attributes)
      defer { posix_spawnattr_destroy(&attributes) }
      // The child starts with every signal unblocked and these at their defaults, whatever this
      // process's threads block or catch.
      var none = sigset_t()
      sigemptyset(&none)
      posix_spawnattr_setsigmask(&attributes, &none)
      posix_spawnattr_setsigdefault(&attributes, &handled)
      posix_spawnattr_setflags(
        &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
      let variables = environment.map { "\($0.key)=\($0.value)" }
      var child: pid_t = 0
      // Spawned directly, found on PATH as a shell finds it (a name with a slash is a path):
      // through `env`, a path holding `=` (`./build=debug/app`) was a variable to set, and the
      // program never ran.
      var spawned = withCStrings(command) { argv in
        withCStrings(variables) { envp in
          posix_spawnp(&child, command[0], nil, &attributes, argv, envp)
        }
      }
      // A file the kernel cannot run (a script without a `#!` line) is run by the shell, as
      // shells and `execvp` (and so `env`) run it.
      if spawned == ENOEXEC, let path = executable(command[0], path: environment["PATH"]) {
        spawned = withCStrings(["/bin/sh", path] + command.dropFirst()) { argv in
          withCStrings(variables) { envp in
            posix_spawn(&child, "/bin/sh", nil, &attributes, argv, envp)
          }
        }
      }
      guard spawned == 0 else {
        standardError(
          "chronoscope: cannot run \(command[0]): \(String(cString: strerror(spawned)))")
        // As a shell says it: 127 when there is no such program, 126 when it cannot run.
        return spawned == ENOENT || spawned == ENOTDIR ? 127 : 126
      }
      runningChild.store(child, ordering: .sequentiallyConsistent)
      // A signal that came before the program's id was known (it can print and be interrupted
      // before posix_spawn returns here) is passed on now: exactly one of the handler and this
      // takes it (see `passOn`).
      let early = pendingSignal.exchange(0, ordering: .sequentiallyConsistent)
      if early != 0 { kill(child, early) }
      var status: Int32 = 0
      while waitpid(child, &status, 0) < 0 {
        guard errno == EINTR else { return 127 }
      }
      // The wait status: the signal in the low seven bits, else the exit status above them.
      let signal = status & 0x7F
      return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// The file `name` names: itself when it holds a slash, else the first executable regular
    /// file of that name in a folder of `path` (an empty entry is the working directory), as
    /// `posix_spawnp` searches; glibc's default when there is no `PATH`.
    private static func executable(_ name: String, path: String?) -> String? {
      if name.contains("/") { return name }
      for folder in (path ?? "/bin:/usr/bin").split(
        separator: ":", omittingEmptySubsequences: false)
      {
        let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + name
        var status = stat()
        if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
          access(candidate, X_OK) == 0
        {
          return candidate
        }
      }
      return nil
    }

    /// `strings` as a NULL-terminated array of C strings, for `body`.
    private static func withCStrings<R>(
      _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
    ) -> R {
      let pointers = strings.map { strdup($0) } + [nil]
      defer { for pointer in pointers { free(pointer) } }
      return pointers.withUnsafeBufferPointer { buffer in
        // Never empty: it holds at least the terminating nil.
        guard let base = buffer.baseAddress else { preconditionFailure("an array of one or more") }
        return body(base)
      }
    }
  #endif
}

/// The status the program `record` ran ended with, once it has: what a crash while symbolizing
/// exits with.
private let programStatus = Atomic<Int32>(0)

#if os(Linux)
  /// The program `record` runs, while it runs (0 otherwise), and a signal to pass on to it not
  /// passed on yet: the signal handler's state.
  private let runningChild = Atomic<pid_t>(0)
  private let pendingSignal = Atomic<Int32>(0)

  /// Passes a signal on to the program when a process sent it to `record` (`kill`, `si_code` 0 or
  /// below); one the kernel sent (the terminal's Ctrl-C, to the whole foreground group) reached
  /// the program already. Only async-signal-safe calls: atomics and `kill`.
  private let passOn:
    @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?)
      -> Void = { number, info, _ in
        guard let info, info.pointee.si_code <= 0 else { return }
        // Noted first, then taken by whoever sees the program's id: this handler, or `run` right
        // after the spawn; the exchange lets only one of them send it.
        pendingSignal.store(number, ordering: .sequentiallyConsistent)
        let child = runningChild.load(ordering: .sequentiallyConsistent)
        if child > 0, pendingSignal.exchange(0, ordering: .sequentiallyConsistent) != 0 {
          kill(child, number)
        }
      }
#endif

/// Ends `record` with the program's status, and a note, when it crashes while it symbolizes:
/// symbolizing is extra work on files that may be hostile or truncated under it, and must not
/// turn the program's status into a crash's. What was being written is left in its temporary
/// file beside the trace, and the trace as it was.
///
/// A callback in the process's one chain of crash handlers (`ChronoscopeFatalSignals`): async-signal-safe,
/// the note made before anything can crash.
private enum ExitOnCrash {
  /// What the callback writes and exits with; made before registering, never freed while
  /// registered.
  private struct Context {
    var status: Int32
    var before: UnsafeRawBufferPointer
    var after: UnsafeRawBufferPointer
  }

  private static let before = StaticString("chronoscope: symbolizing call sites crashed (")
  private static let after = StaticString(
    "); the trace being rewritten is left as it was, and the status is the program's\n")

  /// Runs `body`; a crash in it exits with `status`.
  static func `while`(status: Int32, _ body: () -> Void) {
    let context = UnsafeMutablePointer<Context>.allocate(capacity: 1)
    context.initialize(
      to: Context(
        status: status,
        before: UnsafeRawBufferPointer(start: before.utf8Start, count: before.utf8CodeUnitCount),
        after: UnsafeRawBufferPointer(start: after.utf8Start, count: after.utf8CodeUnitCount)))
    let registration = FatalSignals.register(context: UnsafeMutableRawPointer(context), exit)
    defer {
      FatalSignals.unregister(registration)
      context.deallocate()
    }
    body()
  }

  /// Writes the note naming the signal and exits with the program's status.
  private static let exit: FatalSignals.Callback = { signal, raw in
    let context = raw.assumingMemoryBound(to: Context.self).pointee
    let name = FatalSignals.name(of: signal)
    _ = write(2, context.before.baseAddress, context.before.count)
    _ = write(2, name.utf8Start, name.utf8CodeUnitCount)
    _ = write(2, context.after.baseAddress, context.after.count)
    _exit(context.status)
  }
}
