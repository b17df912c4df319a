import ArgumentParser
import ChronoscopeRecording
import ChronoscopeScheduling
import Foundation

/// A command for crash-safety tests: records as fast as it can until killed.
struct RecordStress: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stress",
    abstract: "Record scheduler activity at full speed until killed (for crash-safety tests)."
  )

  @Option(help: "Where to write the trace.")
  var output: String

  @Option(help: "Stop by itself after this many seconds.")
  var seconds: Double = 60

  @Option(help: "Simulated blocking I/O per action, in microseconds (0: empty actions).")
  var ioMicroseconds: Int = 0

  @Option(help: "Rotate the trace past this many bytes, keeping one older file (0: no rotation).")
  var maxBytes = 0

  func run() throws {
    let recorder = try TraceRecorder(
      path: output, metadata: ["example": "record-stress"],
      rotation: maxBytes > 0 ? TraceRotation(maxBytes: maxBytes, keep: 1) : nil,
      onError: { message in FileHandle.standardError.write(Data((message + "\n").utf8)) })
    let factory = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: recorder)
    let queues = (0..<4).map { factory.makeSerial(label: "stress.\($0)") }
    let deadline = Date(timeIntervalSinceNow: seconds)
    // Tell the parent that recording is under way (it waits for this line before killing us).
    FileHandle.standardOutput.write(Data("recording\n".utf8))
    var round = 0
    while Date() < deadline {
      let io = ioMicroseconds
      for queue in queues {
        queue.async { if io > 0 { usleep(UInt32(io)) } }
      }
      // Wait for each queue once per round: as fast as the queues go, no faster (a producer
      // that never waits would only measure how many events the recorder drops).
      for queue in queues {
        queue.sync {}
      }
      round += 1
      if round % 64 == 0 {
        // The mark is recorded before the line is printed: a parent that has read "round N"
        // knows the mark for N is in the recorder.
        recorder.mark("round", ["n": String(round)])
        _ = queues[0].sync { 0 }
        FileHandle.standardOutput.write(Data("round \(round)\n".utf8))
      }
    }
    recorder.close()
    let (written, dropped) = recorder.counts
    FileHandle.standardOutput.write(Data("written \(written) dropped \(dropped)\n".utf8))
  }
}
