import ArgumentParser
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen
@_spi(Benchmarks) import ChronoscopeSharing
import Foundation

/// What `redact` and `slice` share: usage errors, reading the input, and saving the output
/// atomically and never over the input.
enum SharingCommand {
  /// Runs `body`; a ``UsageFailure`` is printed and exits with status 2, as does input that
  /// cannot be read (already reported).
  static func run(_ body: () throws -> Void) throws {
    do {
      try UsageFailure.reporting(body)
    } catch is AlreadyReported {
      throw ExitCode(2)
    }
  }

  /// A usage error when `output` names the input file.
  static func checkOutput(_ output: String, input: String) throws {
    if TraceFileWriter.sameFile(output, input) {
      throw UsageFailure("-o \(output) is the input file; write the result to another file")
    }
  }

  /// Saves `bytes` atomically; a failure is a ``UsageFailure``.
  static func save(_ bytes: [UInt8], to output: String, input: String) throws {
    do {
      try TraceFileWriter.save(bytes, to: output, input: input)
    } catch {
      throw UsageFailure(error.description)
    }
  }
}
