#!/usr/bin/env python3
"""Checks a ledger server against its journal, for the kill test.

usage: ledger_check.py seed URL ACCOUNTS AMOUNT
       ledger_check.py check URL LOG ACKS_DIR ACCOUNTS EXPECTED_TOTAL

seed: deposits AMOUNT into acct-0 ... acct-(ACCOUNTS-1).
check: every reference in ACKS_DIR (transfers answered 200) is an applied transfer in LOG;
the balances the server answers are the fold of LOG's applied entries; they sum to
EXPECTED_TOTAL. Talks to the server on loopback only, with a bounded number of requests.
Exits 1 on any mismatch.
"""
import glob
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


def loopback(url):
    host = urllib.parse.urlparse(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        sys.exit(f"ledger_check: {url} is not a loopback address")
    return url


def call(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("X-Principal", "kill-test")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def seed(url, accounts, amount):
    for n in range(accounts):
        status, _ = call(f"{url}/accounts/acct-{n}/deposit", "POST", {"amount": amount})
        if status != 200:
            sys.exit(f"ledger_check: seeding acct-{n} answered {status}")


def fold(log):
    balances, references = {}, set()
    with open(log, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, 1):
        entry = json.loads(line)
        if entry.get("outcome") != "ok" or entry.get("action") != "LedgerAction":
            continue
        (kind, p), = entry["payload"].items()
        if kind == "deposited":
            balances[p["account"]] = balances.get(p["account"], 0) + p["amount"]
        elif kind == "withdrew":
            balances[p["account"]] = balances.get(p["account"], 0) - p["amount"]
        elif kind == "transferred":
            balances[p["from"]] = balances.get(p["from"], 0) - p["amount"]
            balances[p["to"]] = balances.get(p["to"], 0) + p["amount"]
            if "reference" in p:
                references.add(p["reference"])
        else:
            sys.exit(f"ledger_check: line {number}: unknown action {kind}")
    return balances, references, len(lines)


def check(url, log, acks_dir, accounts, expected_total):
    failures = []
    balances, references, entries = fold(log)
    acked = set()
    for path in glob.glob(f"{acks_dir}/acks-*.txt"):
        with open(path) as f:
            acked.update(line.strip() for line in f if line.strip())
    missing = acked - references
    if missing:
        failures.append(f"{len(missing)} acknowledged transfers are not in the log, e.g. {sorted(missing)[:3]}")
    served = {}
    for n in range(accounts):
        status, body = call(f"{url}/accounts/acct-{n}")
        served[f"acct-{n}"] = body["balance"]
    if served != balances:
        wrong = {k: (served.get(k), balances.get(k)) for k in set(served) | set(balances) if served.get(k) != balances.get(k)}
        failures.append(f"served balances differ from the log's fold (served, log): {wrong}")
    total = sum(served.values())
    if total != expected_total:
        failures.append(f"balances sum to {total}, expected {expected_total}")
    print(f"check: {entries} log entries, {len(references)} transfers in the log, "
          f"{len(acked)} acknowledged, all in the log: {not missing}, total {total}")
    if failures:
        for failure in failures:
            print(f"FAIL: {failure}")
        sys.exit(1)


def main(argv):
    if len(argv) >= 5 and argv[1] == "seed":
        seed(loopback(argv[2]), int(argv[3]), int(argv[4]))
    elif len(argv) == 7 and argv[1] == "check":
        check(loopback(argv[2]), argv[3], argv[4], int(argv[5]), int(argv[6]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except (urllib.error.URLError, OSError, ValueError, KeyError) as error:
        sys.exit(f"ledger_check: {error}")
