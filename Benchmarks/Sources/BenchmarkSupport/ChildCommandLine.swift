import ArgumentParser

/// `--child KIND ARGS…`, hidden: how a benchmark's driver runs one measurement in a child
/// process of its own. The child's first word is ``kind``; everything after it, `--help`
/// included, is ``arguments``, for the child's own parser.
///
///   @OptionGroup var child: ChildCommandLine
///   …
///   if let words = child.words { try Child.parseOrExit(words).run(); return }
public struct ChildCommandLine: ParsableArguments {
  @Option(name: .customLong("child"), parsing: .unconditional, help: .hidden)
  public var kind: String?

  @Argument(parsing: .captureForPassthrough, help: .hidden)
  public var arguments: [String] = []

  public init() {}

  /// The child's command line, when there is a child to run.
  public var words: [String]? { kind.map { [$0] + arguments } }

  public func validate() throws {
    // Without `--child`, anything captured here is a mistake or a request for help.
    guard kind == nil, let first = arguments.first else { return }
    if first == "--help" || first == "-h" { throw CleanExit.helpRequest() }
    throw ValidationError(
      first.hasPrefix("-") ? "Unknown option '\(first)'" : "Unexpected argument '\(first)'")
  }
}
