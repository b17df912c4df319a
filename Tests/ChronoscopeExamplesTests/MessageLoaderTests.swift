@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import Foundation
import XCTest

final class MessageLoaderTests: XCTestCase {
  func testWithImmediateSchedulersDeliveringOnMainFromMainDoesNotDeadlock() {
    let loader = MessageLoader(factory: ImmediateSchedulerFactory()) { ["hi"] }
    let received = Locked<[String]?>(nil)
    loader.load { messages in received.withLock { $0 = messages } }
    XCTAssertEqual(received.value, ["hi"])
  }

  func testAnEmptyInboxGetsAWelcomeMessage() {
    let loader = MessageLoader(factory: ImmediateSchedulerFactory()) { [] }
    let received = Locked<[String]?>(nil)
    loader.load { messages in received.withLock { $0 = messages } }
    XCTAssertEqual(received.value, ["Welcome to the app!"])
  }
}
