import ChronoscopeTraceFormat
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns call sites recorded as code addresses (by `chronoscope record`, whose preload library
/// captures return addresses and leaves their meaning for later) into functions and source
/// lines, with the toolchain's `llvm-symbolizer` and `swift-demangle`, rewriting the trace's
/// `site` lines in place and nothing else.
///
/// A site is resolved only from the very module that ran: a module whose build id differs from
/// the one recorded (rebuilt since) is left as it was, and said so. A site whose code turns out
/// to be library code compiled into the program (a generic function of the standard library,
/// specialized there, with no source line of the program's) is shown as the frame that called it
/// when the trace has that frame.
package enum SiteSymbolization {
  /// What symbolizing a file did.
  package struct Outcome: Sendable, Equatable {
    /// Sites given a function and source line.
    package var resolved = 0
    /// Sites left as module and offset.
    package var unresolved = 0
    /// Why, one line per module.
    package var notes: [String] = []

    /// Nothing done yet.
    package init() {}
  }

  /// The tools it runs.
  package struct Tools: Sendable, Equatable {
    /// `llvm-symbolizer`.
    package var symbolizer: String
    /// `swift-demangle`, if found: function names stay mangled without it.
    package var demangler: String?

    /// Makes the set.
    package init(symbolizer: String, demangler: String?) {
      self.symbolizer = symbolizer
      self.demangler = demangler
    }

    /// The tools of the Swift toolchain on `PATH` (beside `swift`), else any on `PATH`; nil
    /// without an `llvm-symbolizer`.
    package static func find(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> Tools?
    {
      let folders = (path ?? "").split(separator: ":").map(String.init)
      let toolchain = folders.compactMap { folder -> String? in
        let swift = folder + "/swift"
        guard FileManager.default.isExecutableFile(atPath: swift) else { return nil }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: swift))
          .map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: folder)).path }
          .map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? folder
      }
      func first(_ name: String) -> String? {
        (toolchain + folders).map { $0 + "/" + name }
          .first { FileManager.default.isExecutableFile(atPath: $0) }
      }
      guard let symbolizer = first("llvm-symbolizer") else { return nil }
      return Tools(symbolizer: symbolizer, demangler: first("swift-demangle"))
    }
  }

  /// Why a trace was left as it was; the caller names the trace.
  package struct Failure: Error, Sendable, CustomStringConvertible {
    package let description: String

    /// Another process truncated or rewrote the trace while it was read.
    static let changed = Failure(
      description:
        "the file changed while it was read (another process truncated or rewrote it); it is left as it is"
    )
  }

  /// Resolves the code-address sites of the trace at `path`, writing it back atomically when
  /// any changed; source paths under `directory` are written relative to it.
  ///
  /// - Throws: ``Failure`` when the trace is not a regular file or changes while it is read
  ///   (it is then left as it is); `OutputFile`'s failure when it cannot be written back; the
  ///   tools' when they cannot be run.
  package static func symbolize(path: String, tools: Tools, relativeTo directory: String?) throws
    -> Outcome
  {
    // Mapped, not read: a trace of hundreds of megabytes is copied to its new file in pieces.
    // The mapping is the trace reader's, guarded as its is: a file another process truncates
    // meanwhile (an app restarting on the same path) reads as zeros past its new end, where a
    // plain mapping killed `record` with SIGBUS, and is then left alone.
    guard let mapped = MappedTraceFile(path: path) else {
      // It maps no empty file, which has no sites either.
      var status = stat()
      if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size == 0 {
        return Outcome()
      }
      throw Failure(description: "not a regular file, or it cannot be read")
    }
    return try mapped.withBytes { bytes in
      try symbolize(bytes, path: path, tools: tools, relativeTo: directory) { mapped.changed }
    }
  }

  /// ``symbolize(path:tools:relativeTo:)`` on the trace's mapped `bytes`; `changed` says
  /// whether the file lost bytes since it was mapped.
  private static func symbolize(
    _ bytes: UnsafeBufferPointer<UInt8>, path: String, tools: Tools, relativeTo directory: String?,
    changed: () -> Bool
  ) throws -> Outcome {
    // Site lines are few in a file of millions: they are found by searching the bytes, not by
    // splitting every line.
    var pending: [(lines: Range<Int>, time: Int64, record: CallSiteRecord, code: CodeLocation)] =
      []
    for range in codeSiteLines(in: bytes) {
      if let (time, record) = parseSite(bytes[range]), let code = record.code {
        pending.append((range, time, record, code))
      }
    }
    // Truncated under the search, the file read as zeros from there: what was found is part of
    // another file's worth.
    guard !changed() else { throw Failure.changed }
    var outcome = Outcome()
    guard !pending.isEmpty else { return outcome }
    let byModule = Dictionary(grouping: pending.indices) { pending[$0].code.module }
    var resolvedNames: [Int: (file: String, line: Int, function: String)] = [:]
    for (module, indices) in byModule.sorted(by: { $0.key < $1.key }) {
      let recorded = pending[indices[0]].code.buildID
      guard let onDisk = ELFBuildID.read(path: module) else {
        outcome.unresolved += indices.count
        outcome.notes.append(
          "\(module): cannot read it; \(indices.count) site(s) left as addresses")
        continue
      }
      guard recorded.isEmpty || onDisk == recorded else {
        outcome.unresolved += indices.count
        outcome.notes.append(
          "\(module): rebuilt since it ran (build id \(onDisk), recorded \(recorded)); \(indices.count) site(s) left as addresses"
        )
        continue
      }
      var offsets: [UInt64] = []
      for index in indices {
        let code = pending[index].code
        offsets.append(code.offset)
        if let caller = code.callerOffset { offsets.append(caller) }
      }
      let frames = try lookUp(Array(Set(offsets)).sorted(), in: module, tools: tools)
      for index in indices {
        let code = pending[index].code
        let chosen = bestFrame(
          own: frames[code.offset], caller: code.callerOffset.flatMap { frames[$0] })
        guard let chosen, !chosen.function.isEmpty, chosen.function != "??" else {
          outcome.unresolved += 1
          continue
        }
        // Without a line (no debug information there), the function's name still says where:
        // the file stays the module's.
        let file = chosen.line > 0 ? chosen.file : pending[index].record.file
        resolvedNames[index] = (file, chosen.line, chosen.function)
      }
    }
    let demangled = try demangle(resolvedNames.values.map(\.function), tools: tools)
    var replacements: [(lines: Range<Int>, bytes: [UInt8])] = []
    for (index, names) in resolvedNames {
      var record = pending[index].record
      record.file = relative(names.file, to: directory)
      record.line = names.line
      record.function = demangled[names.function] ?? names.function
      var encoder = TraceEncoder()
      encoder.callSite(record, time: pending[index].time)
      replacements.append((pending[index].lines, Array(encoder.bytes.dropLast())))
      outcome.resolved += 1
    }
    guard !replacements.isEmpty else { return outcome }
    let file = try OutputFile(path: path)
    let all = UnsafeRawBufferPointer(bytes)
    do throws(OutputFile.Failure) {
      var copied = 0
      for replacement in replacements.sorted(by: { $0.lines.lowerBound < $1.lines.lowerBound }) {
        try file.write(
          UnsafeRawBufferPointer(rebasing: all[copied..<replacement.lines.lowerBound]))
        try file.write(replacement.bytes)
        copied = replacement.lines.upperBound
      }
      try file.write(UnsafeRawBufferPointer(rebasing: all[copied...]))
    } catch {
      file.abandon()
      throw error
    }
    // Truncated while it was copied, the copy holds zeros for what was lost: it replaces nothing.
    guard !changed() else {
      file.abandon()
      throw Failure.changed
    }
    try file.commit()
    return outcome
  }

  // MARK: - Reading site lines

  /// The byte ranges (without their newlines) of the `site` lines that carry a `module`.
  private static func codeSiteLines(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
    let marker = Array(#""e":"site""#.utf8)
    let module = Array(#""module":"#.utf8)
    let buffer = UnsafeRawBufferPointer(bytes)
    guard let base = buffer.baseAddress else { return [] }
    var found: [Range<Int>] = []
    var from = 0
    while from < buffer.count, let at = find(marker, in: buffer, from: from, to: buffer.count) {
      var start = at
      while start > 0, buffer[start - 1] != UInt8(ascii: "\n") { start -= 1 }
      let end =
        memchr(base + at, Int32(UInt8(ascii: "\n")), buffer.count - at)
        .map { base.distance(to: UnsafeRawPointer($0)) } ?? buffer.count
      if find(module, in: buffer, from: start, to: end) != nil { found.append(start..<end) }
      from = end + 1
    }
    return found
  }

  /// Where `needle` first occurs in `buffer[from..<to]`: memchr finds each candidate for its
  /// first byte, memcmp checks the rest.
  private static func find(_ needle: [UInt8], in buffer: UnsafeRawBufferPointer, from: Int, to: Int)
    -> Int?
  {
    guard let base = buffer.baseAddress, let first = needle.first else { return nil }
    var at = from
    while to - at >= needle.count {
      guard let hit = memchr(base + at, Int32(first), to - at - needle.count + 1) else {
        return nil
      }
      let position = base.distance(to: UnsafeRawPointer(hit))
      if memcmp(base + position, needle, needle.count) == 0 { return position }
      at = position + 1
    }
    return nil
  }

  /// A site line as the trace reader reads it (its checks of every field included), with its
  /// time, which the writer puts first (`{"t":N,`): a line written otherwise is left alone.
  private static func parseSite(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> (
    Int64, CallSiteRecord
  )? {
    let prefix = Array(#"{"t":"#.utf8)
    guard line.starts(with: prefix),
      let time = Int64(
        String(
          decoding: line.dropFirst(prefix.count).prefix { $0 != UInt8(ascii: ",") }, as: UTF8.self))
    else { return nil }
    let bytes = siteHeader + Array(line) + [UInt8(ascii: "\n")]
    guard let record = TraceReader.parse(bytes, file: "site").trace?.callSites.values.first
    else { return nil }
    return (time, record)
  }

  /// A header for reading one site line on its own.
  private static let siteHeader = Array(
    (#"{"format":"chronoscope-trace","version":1,"clock":"host"}"# + "\n").utf8)

  // MARK: - The tools

  /// One frame as the symbolizer names it.
  package struct Frame: Sendable, Equatable {
    package var file: String
    package var line: Int
    package var function: String

    /// Makes a frame.
    package init(file: String, line: Int, function: String) {
      self.file = file
      self.line = line
      self.function = function
    }

    /// Whether this is the program's own source rather than code the compiler made (a thunk,
    /// a specialization of a library's generic function, with no line of its own).
    var isProgramCode: Bool { line > 0 && !file.contains("<compiler-generated>") }
  }

  /// The frame a site is shown as, of the two the recorder captured: the best the program
  /// owns — the site's own when it is the program's source, else its caller's (the site was in
  /// a thunk or a specialized library function), else whichever has a line, else the site's,
  /// whose function at least names it (a module built without debug information).
  package static func bestFrame(own: Frame?, caller: Frame?) -> Frame? {
    let candidates = [own, caller].compactMap { $0 }
    return candidates.first(where: \.isProgramCode) ?? candidates.first { $0.line > 0 } ?? own
      ?? caller
  }

  private static func lookUp(_ offsets: [UInt64], in module: String, tools: Tools) throws
    -> [UInt64: Frame]
  {
    let arguments =
      ["--obj=\(module)", "--output-style=JSON", "--no-demangle"]
      + offsets.map { "0x" + String($0, radix: 16) }
    let output = try run(tools.symbolizer, arguments, input: nil)
    guard let list = try? JSONSerialization.jsonObject(with: output) as? [[String: Any]] else {
      return [:]
    }
    var frames: [UInt64: Frame] = [:]
    for (offset, entry) in zip(offsets, list) {
      // Innermost first: the code inlined at the address, then what it was inlined into. The
      // program's innermost line is the one that scheduled.
      let inlined = (entry["Symbol"] as? [[String: Any]] ?? []).map { symbol in
        Frame(
          file: symbol["FileName"] as? String ?? "",
          line: (symbol["Line"] as? NSNumber)?.intValue ?? 0,
          function: symbol["FunctionName"] as? String ?? "")
      }
      if let frame = inlined.first(where: \.isProgramCode) ?? inlined.first {
        frames[offset] = frame
      }
    }
    return frames
  }

  private static func demangle(_ names: [String], tools: Tools) throws -> [String: String] {
    let unique = Array(Set(names)).sorted()
    guard let demangler = tools.demangler, !unique.isEmpty else { return [:] }
    let input = Data((unique.joined(separator: "\n") + "\n").utf8)
    let output = try run(demangler, ["--simplified", "--compact"], input: input)
    let lines = String(decoding: output, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    var result: [String: String] = [:]
    for (name, line) in zip(unique, lines) where !line.isEmpty { result[name] = String(line) }
    return result
  }

  private static func run(_ tool: String, _ arguments: [String], input: Data?) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let output = Pipe()
    let stdin = Pipe()
    process.standardOutput = output
    process.standardInput = stdin
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Written from another thread: a large input would otherwise fill the pipe while the tool
    // waits for us to read its output.
    let writer = Thread {
      if let input { stdin.fileHandleForWriting.write(input) }
      try? stdin.fileHandleForWriting.close()
    }
    writer.start()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
  }

  private static func relative(_ file: String, to directory: String?) -> String {
    guard let directory, !directory.isEmpty else { return file }
    let prefix = directory.hasSuffix("/") ? directory : directory + "/"
    return file.hasPrefix(prefix) ? String(file.dropFirst(prefix.count)) : file
  }
}

/// The GNU build id of an ELF file on disk, read from its program headers' notes.
///
/// A trace names any path as a module, so every byte of the file is hostile: each offset, size
/// and count read from it is checked against the file's size, with arithmetic that cannot
/// overflow, before anything is read or allocated. No file makes this trap, wait (a FIFO), or
/// read past its end.
package enum ELFBuildID {
  /// The id in hex, "" for an ELF file without one, nil for a file that cannot be read as ELF:
  /// not a regular file, not 64-bit little-endian ELF, or headers and notes that point outside
  /// the file or contradict themselves.
  package static func read(path: String) -> String? {
    // Without waiting: a FIFO named as a module would hold open() until written.
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
      let size = UInt64(exactly: status.st_size)
    else { return nil }
    let file = ModuleFile(descriptor: descriptor, size: size)
    guard let header = file.read(at: 0, count: 64),
      header.starts(with: [0x7F, 0x45, 0x4C, 0x46]), header[4] == 2, header[5] == 1
    else { return nil }
    let programHeaders = word(header, 0x20, 8)
    let entrySize = word(header, 0x36, 2)
    let count = word(header, 0x38, 2)
    // Both at most 2^16 - 1: their product cannot overflow.
    guard entrySize >= 56, entrySize * count <= maximumRead,
      let table = file.read(at: programHeaders, count: entrySize * count)
    else { return nil }
    for index in 0..<Int(count) {
      let base = index * Int(entrySize)
      guard word(table, base, 4) == 4 else { continue }  // PT_NOTE
      let offset = word(table, base + 8, 8)
      let size = word(table, base + 32, 8)
      guard size <= maximumRead, let notes = file.read(at: offset, count: size) else {
        return nil
      }
      switch buildID(in: notes) {
      case .found(let id): return id
      case .absent: continue
      case .malformed: return nil
      }
    }
    return ""
  }

  /// The most bytes read at once: a program header table or a note segment is a few hundred
  /// bytes in any real module.
  private static let maximumRead: UInt64 = 1 << 20

  /// A module file open for reading, and its size when opened.
  private struct ModuleFile {
    let descriptor: Int32
    let size: UInt64

    /// The `count` bytes at `offset`, or nil when they are not all inside the file (or it
    /// shrank since it was opened).
    func read(at offset: UInt64, count: UInt64) -> [UInt8]? {
      guard offset <= size, count <= size - offset, let start = off_t(exactly: offset),
        let length = Int(exactly: count)
      else { return nil }
      var bytes = [UInt8](repeating: 0, count: length)
      var done = 0
      while done < length {
        let got = bytes.withUnsafeMutableBytes { buffer -> Int in
          guard let base = buffer.baseAddress else { return 0 }
          return pread(descriptor, base + done, length - done, start + off_t(done))
        }
        if got < 0, errno == EINTR { continue }
        guard got > 0 else { return nil }
        done += got
      }
      return bytes
    }
  }

  /// What a note segment holds.
  private enum Notes {
    case found(String)
    case absent
    /// A note whose sizes run past the segment: nothing in it can be trusted.
    case malformed
  }

  private static func buildID(in notes: [UInt8]) -> Notes {
    var at = 0
    // Sizes are 32-bit and the segment at most `maximumRead`: no sum here overflows an Int.
    while notes.count - at >= 12 {
      let nameSize = Int(word(notes, at, 4))
      let descriptionSize = Int(word(notes, at + 4, 4))
      let type = word(notes, at + 8, 4)
      let name = at + 12
      let description = name + aligned(nameSize)
      guard description <= notes.count, descriptionSize <= notes.count - description else {
        return .malformed
      }
      if type == 3, nameSize == 4, Array(notes[name..<name + 4]) == [0x47, 0x4E, 0x55, 0] {
        return .found(
          notes[description..<description + descriptionSize]
            .map { String(format: "%02x", $0) }.joined())
      }
      at = description + aligned(descriptionSize)
    }
    return .absent
  }

  /// `size` rounded up to a multiple of 4, as notes are laid out.
  private static func aligned(_ size: Int) -> Int { (size + 3) & ~3 }

  /// The little-endian unsigned number of `size` bytes at `offset`; 0 past the end.
  private static func word(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
    guard offset >= 0, size <= bytes.count, offset <= bytes.count - size else { return 0 }
    var value: UInt64 = 0
    for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
    return value
  }
}
