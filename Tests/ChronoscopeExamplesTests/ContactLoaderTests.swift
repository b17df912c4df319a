@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import XCTest

final class ContactLoaderTests: XCTestCase {
  private let unsorted = [Contact(name: "Grace"), Contact(name: "Ada"), Contact(name: "Edsger")]

  func testWithImmediateSchedulersLoadingIsFullySynchronous() {
    // Arrange
    let loader = ContactLoader(factory: ImmediateSchedulerFactory()) { [unsorted] in unsorted }
    let received = Locked<[Contact]?>(nil)
    // Act
    loader.loadContacts { contacts in received.withLock { $0 = contacts } }
    // Assert: no expectation, no timeout.
    XCTAssertEqual(received.value?.map(\.name), ["Ada", "Edsger", "Grace"])
  }

  func testWithImmediateSchedulersTheSourceIsReadOncePerLoad() {
    let reads = Locked(0)
    let loader = ContactLoader(factory: ImmediateSchedulerFactory()) {
      reads.withLock { $0 += 1 }
      return []
    }
    loader.loadContacts { _ in }
    loader.loadContacts { _ in }
    XCTAssertEqual(reads.value, 2)
  }
}
