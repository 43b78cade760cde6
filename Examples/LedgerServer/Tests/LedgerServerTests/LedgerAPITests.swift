import Foundation
import Hummingbird
import HummingbirdTesting
import LedgerCore
import ReduceLogging
import Testing

@Suite("The ledger's HTTP API", .timeLimit(.minutes(2)))
struct LedgerAPITests {
  @Test("a deposit answers the new balance, which GET reads back")
  func deposit() async throws {
    let fixture = try JournalFixture()
    let (_, book) = try await fixture.open()
    try await application(book).test(.router) { client in
      let deposit = try await client.execute(
        uri: "/accounts/ada/deposit", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":80}"#))
      #expect(deposit.status == .ok)
      #expect(
        try decoded(AccountBalance.self, deposit) == AccountBalance(account: "ada", balance: 80))
      _ = try await client.execute(
        uri: "/accounts/ada/deposit", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":20}"#))
      let balance = try await client.execute(uri: "/accounts/ada", method: .get)
      #expect(balance.status == .ok)
      #expect(try decoded(AccountBalance.self, balance).balance == 100)
    }
  }

  @Test("an overdraft answers 409 with a typed body and changes nothing")
  func overdraft() async throws {
    let fixture = try JournalFixture()
    let (journal, book) = try await fixture.open()
    try await application(book).test(.router) { client in
      _ = try await client.execute(
        uri: "/accounts/ada/deposit", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":20}"#))
      let withdrawal = try await client.execute(
        uri: "/accounts/ada/withdraw", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":50}"#))
      #expect(withdrawal.status == .conflict)
      let error = try object(withdrawal)
      #expect(error["error"] as? String == "overdraft")
      #expect(error["account"] as? String == "ada")
      #expect(error["balance"] as? Int == 20)
      #expect(error["requested"] as? Int == 50)
      #expect(withdrawal.headers[.contentType] == "application/json")
    }
    #expect(journal.store.state.accounts["ada"]?.balance == 20)
    #expect(journal.store.state.accounts["ada"]?.history.count == 1)
    // The refusal is part of the record, as a failed entry, which a replay skips.
    let entries = try fixture.entries()
    #expect(entries.map { $0["outcome"] as? String } == ["ok", "failed"])
  }

  @Test(
    "a body that is not the JSON asked for answers 400 and changes nothing",
    arguments: [
      ("/accounts/ada/deposit", "not json", "badRequest"),
      ("/accounts/ada/deposit", "", "badRequest"),
      ("/accounts/ada/deposit", #"{"amount":"ten"}"#, "badRequest"),
      ("/accounts/ada/deposit", #"{"amount":1.5}"#, "badRequest"),
      ("/accounts/ada/deposit", #"{"sum":10}"#, "badRequest"),
      ("/accounts/ada/deposit", #"{"amount":10"#, "badRequest"),
      ("/accounts/ada/deposit", #"[10]"#, "badRequest"),
      ("/accounts/ada/deposit", #"{"amount":-5}"#, "invalidAmount"),
      ("/accounts/ada/deposit", #"{"amount":0}"#, "invalidAmount"),
      ("/accounts/ada/withdraw", #"{"amount":null}"#, "badRequest"),
      ("/accounts/bad%20id/deposit", #"{"amount":5}"#, "invalidAccountID"),
      ("/transfers", #"{"from":"ada","amount":5}"#, "badRequest"),
      ("/transfers", #"{"from":"ada","to":"ada","amount":5}"#, "sameAccount"),
      ("/transfers", #"{"from":"ada","to":"bob","amount":5,"reference":""}"#, "invalidReference"),
    ])
  func badRequest(uri: String, text: String, code: String) async throws {
    let fixture = try JournalFixture()
    let (journal, book) = try await fixture.open()
    try await application(book).test(.router) { client in
      for account in ["ada", "bob"] {
        _ = try await client.execute(
          uri: "/accounts/\(account)/deposit", method: .post, headers: try principal("teller-1"),
          body: body(#"{"amount":100}"#))
      }
      let before = try fixture.bytes()
      let response = try await client.execute(
        uri: uri, method: .post, headers: try principal("teller-1"), body: body(text))
      #expect(response.status == .badRequest)
      #expect(try object(response)["error"] as? String == code)
      // Nothing changed, and nothing was recorded: the request never reached the store.
      #expect(try fixture.bytes() == before)
      #expect(journal.store.state.accounts.mapValues(\.balance) == ["ada": 100, "bob": 100])
    }
  }

  @Test("a body over the size limit answers 413")
  func tooLarge() async throws {
    let fixture = try JournalFixture()
    let (_, book) = try await fixture.open()
    try await application(book).test(.router) { client in
      let padding = String(repeating: " ", count: LedgerAPI.maximumBodySize)
      let response = try await client.execute(
        uri: "/accounts/ada/deposit", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":5}"# + padding))
      #expect(response.status == .contentTooLarge)
      #expect(try object(response)["error"] as? String == "payloadTooLarge")
    }
  }

  @Test("a transfer moves money between existing accounts and conserves the total")
  func transfer() async throws {
    let fixture = try JournalFixture()
    let (journal, book) = try await fixture.open()
    try await application(book).test(.router) { client in
      for (account, amount) in [("ada", 100), ("bob", 10)] {
        _ = try await client.execute(
          uri: "/accounts/\(account)/deposit", method: .post, headers: try principal("teller-1"),
          body: body(#"{"amount":\#(amount)}"#))
      }
      let transfer = try await client.execute(
        uri: "/transfers", method: .post, headers: try principal("clerk"),
        body: body(#"{"from":"ada","to":"bob","amount":30,"reference":"inv-7"}"#))
      #expect(transfer.status == .ok)
      let receipt = try decoded(TransferReceipt.self, transfer)
      #expect(receipt.from == AccountBalance(account: "ada", balance: 70))
      #expect(receipt.to == AccountBalance(account: "bob", balance: 40))
      #expect(receipt.reference == "inv-7")

      let overdraft = try await client.execute(
        uri: "/transfers", method: .post, headers: try principal("clerk"),
        body: body(#"{"from":"bob","to":"ada","amount":41}"#))
      #expect(overdraft.status == .conflict)
      #expect(try object(overdraft)["error"] as? String == "overdraft")

      let unknown = try await client.execute(
        uri: "/transfers", method: .post, headers: try principal("clerk"),
        body: body(#"{"from":"ada","to":"carol","amount":1}"#))
      #expect(unknown.status == .notFound)
      let error = try object(unknown)
      #expect(error["error"] as? String == "unknownAccount")
      #expect(error["account"] as? String == "carol")
    }
    let balances = journal.store.state.accounts.mapValues(\.balance)
    #expect(balances == ["ada": 70, "bob": 40])
  }

  @Test("an unknown account answers 404, a withdrawal from one too")
  func unknownAccount() async throws {
    let fixture = try JournalFixture()
    let (_, book) = try await fixture.open()
    try await application(book).test(.router) { client in
      for uri in ["/accounts/nobody", "/accounts/nobody/history"] {
        let response = try await client.execute(uri: uri, method: .get)
        #expect(response.status == .notFound)
        #expect(try object(response)["error"] as? String == "unknownAccount")
      }
      let withdrawal = try await client.execute(
        uri: "/accounts/nobody/withdraw", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":1}"#))
      #expect(withdrawal.status == .notFound)
    }
  }

  @Test("history lists an account's latest changes, oldest first, within its limit")
  func history() async throws {
    let fixture = try JournalFixture()
    let (_, book) = try await fixture.open(historyLimit: 3)
    try await application(book).test(.router) { client in
      for amount in 1...4 {
        _ = try await client.execute(
          uri: "/accounts/ada/deposit", method: .post, headers: try principal("teller-\(amount)"),
          body: body(#"{"amount":\#(amount)}"#))
      }
      _ = try await client.execute(
        uri: "/accounts/bob/deposit", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":1}"#))
      _ = try await client.execute(
        uri: "/transfers", method: .post, headers: try principal("clerk"),
        body: body(#"{"from":"ada","to":"bob","amount":5,"reference":"r-1"}"#))
      let response = try await client.execute(uri: "/accounts/ada/history", method: .get)
      #expect(response.status == .ok)
      let history = try decoded(AccountHistory.self, response)
      #expect(history.balance == 5)
      #expect(history.changes == 5)
      #expect(
        history.entries == [
          HistoryEntry(number: 3, kind: .deposit, amount: 3, principal: "teller-3", balance: 6),
          HistoryEntry(number: 4, kind: .deposit, amount: 4, principal: "teller-4", balance: 10),
          HistoryEntry(
            number: 5, kind: .transferOut, amount: 5, counterparty: "bob", reference: "r-1",
            principal: "clerk", balance: 5),
        ])
    }
  }

  @Test("the principal header is recorded in each entry of the journal")
  func principalRecorded() async throws {
    let fixture = try JournalFixture()
    let (_, book) = try await fixture.open()
    try await application(book).test(.router) { client in
      _ = try await client.execute(
        uri: "/accounts/ada/deposit", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":50}"#))
      _ = try await client.execute(
        uri: "/accounts/bob/deposit", method: .post, headers: try principal("teller-2"),
        body: body(#"{"amount":5}"#))
      _ = try await client.execute(
        uri: "/transfers", method: .post, headers: try principal("auditor ünïcode"),
        body: body(#"{"from":"ada","to":"bob","amount":7}"#))
      _ = try await client.execute(
        uri: "/accounts/ada/withdraw", method: .post, headers: try principal("teller-3"),
        body: body(#"{"amount":500}"#))
    }
    let entries = try fixture.entries()
    #expect(entries.count == 4)
    #expect(payload(entries[0], "deposited")?["by"] as? String == "teller-1")
    #expect(payload(entries[1], "deposited")?["by"] as? String == "teller-2")
    #expect(payload(entries[2], "transferred")?["by"] as? String == "auditor ünïcode")
    // A refused change is recorded with its principal too.
    #expect(entries[3]["outcome"] as? String == "failed")
    #expect(payload(entries[3], "withdrew")?["by"] as? String == "teller-3")
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: fixture.path)) == 4)
  }

  @Test("a change without a principal answers 401, one with a bad principal 400")
  func missingPrincipal() async throws {
    let fixture = try JournalFixture()
    let (journal, book) = try await fixture.open()
    try await application(book).test(.router) { client in
      let anonymous = try await client.execute(
        uri: "/accounts/ada/deposit", method: .post, body: body(#"{"amount":50}"#))
      #expect(anonymous.status == .unauthorized)
      #expect(try object(anonymous)["error"] as? String == "missingPrincipal")
      let long = try await client.execute(
        uri: "/accounts/ada/deposit", method: .post,
        headers: try principal(String(repeating: "p", count: 65)), body: body(#"{"amount":50}"#))
      #expect(long.status == .badRequest)
      #expect(try object(long)["error"] as? String == "invalidPrincipal")
    }
    #expect(journal.store.state.accounts.isEmpty)
    #expect(try fixture.entries().isEmpty)
  }

  @Test("a live server answers over a socket")
  func live() async throws {
    let fixture = try JournalFixture()
    let (_, book) = try await fixture.open(durability: .everyEntry)
    try await application(book).test(.live) { client in
      let deposit = try await client.execute(
        uri: "/accounts/ada/deposit", method: .post, headers: try principal("teller-1"),
        body: body(#"{"amount":80}"#))
      #expect(deposit.status == .ok)
      #expect(try decoded(AccountBalance.self, deposit).balance == 80)
      let health = try await client.execute(uri: "/health", method: .get)
      #expect(health.status == .ok)
    }
    #expect(try fixture.entries().count == 1)
  }
}
