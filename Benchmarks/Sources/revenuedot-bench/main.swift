import Crypto
// revenuedot-bench: the verification benchmark behind `make bench`.
//
//   revenuedot-bench generate --out DIR [--count N] [--subscriptions S] [--offset K]
//       makes a test chain and N signed notifications (outer + transaction + renewal info), about
//       S subscriptions in turn (default N: one each), writing DIR/root.pem and DIR/payloads.txt
//       (one signedPayload per line); ids start K in (default 0)
//   revenuedot-bench verify --root PEM --payloads FILE [--min-seconds S]
//       verifies them on one core, with the chain cache off (cold) and warm, and prints JSON
//   revenuedot-bench ingest --port P --app ID --payloads FILE [--connections N]
//       POSTs every payload once to a running server over N keep-alive connections and prints
//       throughput and latency percentiles as JSON
//   revenuedot-bench customers --out DIR [--count N]
//       makes a test chain and one signed StoreKit 2 transaction per customer (DIR/transactions.txt)
//   revenuedot-bench link --port P --transactions FILE --key PUBLIC_KEY [--connections N]
//       POSTs each to /v1/subscribers/{id}/transactions (seeds the customers)
//   revenuedot-bench get --port P (--path PATH | --transactions FILE) [--key KEY] [--requests N] [--connections N]
//       N GETs of PATH, or of /v1/subscribers/{id} for random customers; throughput and latency as JSON
//   revenuedot-bench webhooks --dir DIR --revenuedot PATH [--connections N] [--concurrency N]
//       ingest with one webhook per notification to a local receiver: ingest rate, webhooks per
//       second, and notification-answered-200 to webhook-received latency, as JSON
//   revenuedot-bench backfill --dir DIR --revenuedot PATH
//       the payloads listed by a local App Store Server API as undelivered, recovered by
//       `revenuedot backfill` into a fresh database: notifications per second, as JSON
//   revenuedot-bench import --dir DIR --revenuedot PATH [--count N]
//       N subscriptions held by a local App Store Server API, imported by `revenuedot import`
//       from a CSV into a fresh database: subscriptions per second, as JSON
//   revenuedot-bench history --config FILE --payloads FILE [--count N]
//       N notifications stored in the configuration's database (SQLite or PostgreSQL) through
//       the store's write path, made in-process and not verified: a history to ingest on
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "generate": try generate(arguments)
    case "verify": try verify(arguments)
    case "ingest": try ingest(arguments)
    case "customers": try customers(arguments)
    case "link": try link(arguments)
    case "get": try get(arguments)
    case "webhooks": try webhooks(arguments)
    case "backfill": try backfill(arguments)
    case "import": try importBench(arguments)
    case "history": try history(arguments)
    default: fail("usage: revenuedot-bench generate|verify|ingest|customers|link|get (see the head of main.swift)")
    }
} catch {
    fail("\(error)")
}
