import Foundation
import ReducePostgresCluster

/// The throwaway PostgreSQL cluster the PostgreSQL journal's tests share (each test uses
/// streams of its own): ReducePostgres's `PostgresCluster`, made on first use and removed when
/// the test process exits.
///
/// When PostgreSQL is not installed the tests that need a cluster fail, saying so: CI installs
/// the `postgresql` package.
enum TestCluster {
  /// Why the cluster could not be made or started.
  typealias Failure = PostgresCluster.Failure

  /// The cluster, or why there is none.
  static let shared: Result<PostgresCluster, Failure> = {
    do {
      let cluster = try PostgresCluster()
      atexit { (try? TestCluster.shared.get())?.remove() }
      return .success(cluster)
    } catch let failure as Failure {
      return .failure(failure)
    } catch {
      return .failure(Failure(description: "\(error)"))
    }
  }()
}

/// A stream name no other test uses.
func uniqueStream(_ label: String = #function) -> String {
  "\(label.prefix { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
}
