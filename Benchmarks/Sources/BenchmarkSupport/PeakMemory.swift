import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// This process's peak resident set size so far, in bytes, or nil if the system will not say.
///
/// Measure in a fresh child process (see ``ChildProcess``) to attribute the peak to one
/// measurement.
///
/// On Linux this is `VmHWM` from `/proc/self/status`, the high-water mark of the address space
/// made at `exec`. `getrusage(RUSAGE_SELF).ru_maxrss` is not used there because Linux carries
/// the pre-`exec` high-water mark into it: a child started by `posix_spawn` (as Foundation's
/// `Process` does) reports at least its parent's resident size at the time of the spawn.
/// Elsewhere, and if `/proc` is unavailable, `ru_maxrss` is used.
public func peakResidentSetBytes() -> Int? {
  #if os(Linux)
    if let kibibytes = procStatusKibibytes("VmHWM") { return kibibytes * 1024 }
  #endif
  return maxResidentSetFromRusage()
}

/// This process's resident set size now, in bytes (`VmRSS`), or nil where `/proc` is missing.
public func currentResidentSetBytes() -> Int? {
  #if os(Linux)
    return procStatusKibibytes("VmRSS").map { $0 * 1024 }
  #else
    return nil
  #endif
}

/// `getrusage(RUSAGE_SELF).ru_maxrss` in bytes.
public func maxResidentSetFromRusage() -> Int? {
  var usage = rusage()
  #if os(Linux)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)  // Glibc imports the C enum as a Swift type
  #else
    let who = RUSAGE_SELF
  #endif
  guard getrusage(who, &usage) == 0 else { return nil }
  #if canImport(Darwin)
    return Int(usage.ru_maxrss)  // bytes on Darwin
  #else
    return Int(usage.ru_maxrss) * 1024  // KiB on Linux
  #endif
}

#if os(Linux)
  /// A `Name:   1234 kB` field of `/proc/self/status`, in KiB.
  private func procStatusKibibytes(_ name: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return nil
    }
    for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
      let fields = line.dropFirst(name.count + 1).split { $0 == " " || $0 == "\t" }
      guard let value = fields.first, let kibibytes = Int(value) else { return nil }
      return kibibytes
    }
    return nil
  }
#endif
