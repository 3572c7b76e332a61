#!/usr/bin/env python3
"""Throughput benchmark for Apple's official Python verifier (app-store-server-library).

Verifies App Store Server Notification V2 `signedPayload`s with
`SignedDataVerifier` exactly as an Apple-library-based server would:
`verify_and_decode_notification`, then `verify_and_decode_signed_transaction`
on `data.signedTransactionInfo` and `verify_and_decode_renewal_info` on
`data.signedRenewalInfo` when present. One "notification" = outer payload +
transaction + renewal info. Online checks (OCSP) are off, strict X509 checks
stay on (the library default). Single process, single thread.

Output: exactly one JSON line on stdout:
  {"library": "app-store-server-library", "version": "...", "notifications": N,
   "seconds": S, "notifications_per_second": R, "failures": F,
   "first_failure": "..." | null}
Exit status: 0 when every verification succeeded, 1 when any failed,
2 on usage/setup errors (message on stderr, no JSON).
"""

import argparse
import json
import sys
import time
from importlib import metadata

LIBRARY = "app-store-server-library"


def fail_setup(message):
    print(f"apple_verify_bench: {message}", file=sys.stderr)
    sys.exit(2)


def load_roots(paths):
    """Return a list of DER-encoded certificates from PEM or DER files."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    roots = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            fail_setup(f"cannot read root certificate {path}: {e}")
        try:
            if b"-----BEGIN" in raw:
                certs = x509.load_pem_x509_certificates(raw)
            else:
                certs = [x509.load_der_x509_certificate(raw)]
        except Exception as e:  # noqa: BLE001 - report any parse error
            fail_setup(f"cannot parse root certificate {path} as PEM or DER: {e}")
        roots.extend(c.public_bytes(Encoding.DER) for c in certs)
    return roots


def load_payloads(path):
    try:
        with open(path, "r", encoding="ascii") as f:
            lines = [line.strip() for line in f]
    except (OSError, UnicodeDecodeError) as e:
        fail_setup(f"cannot read payloads file {path}: {e}")
    payloads = [line for line in lines if line]
    if not payloads:
        fail_setup(f"payloads file {path} contains no signedPayload lines")
    return payloads


def describe(exc):
    """One-line description of an exception, including its cause chain."""
    parts = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        text = str(exc)
        parts.append(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)
        exc = exc.__cause__ or exc.__context__
    return " <- caused by ".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", action="append", required=True, metavar="PATH",
                        help="trusted root certificate, PEM or DER (repeatable)")
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--app-apple-id", type=int, default=None)
    parser.add_argument("--environment", required=True, choices=["Sandbox", "Production"])
    parser.add_argument("--payloads", required=True, metavar="PATH",
                        help="file with one compact JWS signedPayload per line")
    parser.add_argument("--min-seconds", type=float, default=3.0,
                        help="repeat passes over the file until at least this many seconds elapsed (default 3)")
    args = parser.parse_args(argv)
    if args.min_seconds < 0:
        parser.error("--min-seconds must be >= 0")

    try:
        from appstoreserverlibrary.models.Environment import Environment
        from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
    except ImportError as e:
        fail_setup(f"cannot import {LIBRARY} (run make_venv.sh and use that venv's python): {e}")
    try:
        version = metadata.version(LIBRARY)
    except metadata.PackageNotFoundError:
        version = "unknown"

    roots = load_roots(args.root)
    payloads = load_payloads(args.payloads)
    environment = Environment.SANDBOX if args.environment == "Sandbox" else Environment.PRODUCTION
    try:
        verifier = SignedDataVerifier(
            root_certificates=roots,
            enable_online_checks=False,
            environment=environment,
            bundle_id=args.bundle_id,
            app_apple_id=args.app_apple_id,
        )
    except ValueError as e:
        fail_setup(f"SignedDataVerifier rejected the configuration: {e}")

    verify_notification = verifier.verify_and_decode_notification
    verify_transaction = verifier.verify_and_decode_signed_transaction
    verify_renewal = verifier.verify_and_decode_renewal_info

    notifications = 0
    failures = 0
    first_failure = None
    min_seconds = args.min_seconds
    clock = time.perf_counter

    start = clock()
    while True:
        for index, signed_payload in enumerate(payloads, start=1):
            stage = "notification"
            try:
                decoded = verify_notification(signed_payload)
                data = decoded.data
                if data is not None:
                    if data.signedTransactionInfo is not None:
                        stage = "signedTransactionInfo"
                        verify_transaction(data.signedTransactionInfo)
                    if data.signedRenewalInfo is not None:
                        stage = "signedRenewalInfo"
                        verify_renewal(data.signedRenewalInfo)
            except Exception as e:  # noqa: BLE001 - any failure counts
                failures += 1
                if first_failure is None:
                    first_failure = f"line {index} ({stage}): {describe(e)}"
            notifications += 1
        elapsed = clock() - start
        # A failing input is reported after one full pass; repeating it would
        # only multiply the failure count.
        if elapsed >= min_seconds or failures:
            break

    result = {
        "library": LIBRARY,
        "version": version,
        "notifications": notifications,
        "seconds": round(elapsed, 6),
        "notifications_per_second": round(notifications / elapsed, 3) if elapsed > 0 else None,
        "failures": failures,
        "first_failure": first_failure,
    }
    print(json.dumps(result), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
