"""The Python client's transport against a local HTTP server: retries keep one Idempotency-Key and signature,
a submit whose lost first try was applied returns the submitted verification, errors are typed by code.
Run: python3 -m unittest discover -s sdk/python/tests"""
import json
import os
import socket
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, HTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from open_verify import (  # noqa: E402
    ApiError, AuthenticationError, MediaRejectedError, NetworkError, NotFoundError, OpenVerify, RateLimitError, ValidationError,
    canonical_json, hmac_hex, with_timestamp,
)

SECRET = "sk_test_" + "a1B2" * 14


class Server:
    """Answers from a script: each entry is "drop" (close without answering) or (status, body, headers)."""

    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.requests.append({"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                answer = outer.script.pop(0)
                if answer == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                status, data, headers = answer
                raw = json.dumps(data).encode()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_DELETE = _any

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def err(status, code, headers=None):
    return (status, {"error": {"code": code, "message": "m", "request_id": "req_1", "details": {"fields": {"x": ["bad"]}}}}, headers)


class ClientTest(unittest.TestCase):
    def client(self, server):
        return OpenVerify(server.base, "pk_1", SECRET, timeout=5)

    def test_create_retried_with_one_idempotency_key(self):
        s = Server(["drop", (201, {"data": {"id": "v1"}}, None)])
        try:
            self.assertEqual(self.client(s).create_verification(external_id="u"), {"id": "v1"})
            a, b = s.requests
            self.assertEqual(a["headers"]["idempotency-key"], b["headers"]["idempotency-key"])
            self.assertEqual(b["body"], b'{"external_id":"u"}')
            self.assertEqual(b["headers"]["x-hmac-signature"], hmac_hex(SECRET, canonical_json("POST", "/v1/verifications", b["body"])))
        finally:
            s.close()

    def test_network_error_after_the_retries(self):
        s = Server(["drop", "drop", "drop"])
        try:
            with self.assertRaises(NetworkError):
                self.client(s).get_verification("x")
            self.assertEqual(len(s.requests), 3)
        finally:
            s.close()

    def test_submit_applied_before_a_lost_answer(self):
        v = {"id": "v1", "status": "review", "submitted_at": "2026-11-22T10:00:00.000Z", "attempts_remaining": 4}
        s = Server(["drop", err(409, "INVALID_STATUS"), (200, {"data": v}, None)])
        try:
            self.assertEqual(self.client(s).submit("v1"), v)
        finally:
            s.close()

    def test_typed_errors(self):
        cases = [
            (err(401, "INVALID_SIGNATURE"), AuthenticationError),
            (err(404, "NOT_FOUND"), NotFoundError),
            (err(422, "VALIDATION_ERROR"), ValidationError),
            (err(422, "FACE_TOO_DARK"), MediaRejectedError),
            (err(429, "RATE_LIMIT", {"Retry-After": "7"}), RateLimitError),
        ]
        for answer, cls in cases:
            s = Server([answer])
            try:
                with self.assertRaises(cls) as c:
                    self.client(s).get_verification("x")
                self.assertIsInstance(c.exception, ApiError)
                self.assertEqual(c.exception.request_id, "req_1")
                if cls is RateLimitError:
                    self.assertEqual(c.exception.retry_after, 7)
                if cls is ValidationError:
                    self.assertEqual(c.exception.fields, {"x": ["bad"]})
            finally:
                s.close()

    def test_query_signed_as_sent(self):
        s = Server([(200, {"data": {"items": [], "next_cursor": None}}, None)])
        try:
            self.client(s).list_verifications(external_id="o'neil (x)*", status=["approved", "declined"], limit=10)
            r = s.requests[0]
            target = "/v1/verifications?external_id=o%27neil%20%28x%29%2A&status=approved%2Cdeclined&limit=10"
            self.assertEqual(r["path"], target)
            self.assertEqual(r["headers"]["x-hmac-signature"], hmac_hex(SECRET, canonical_json("GET", target)))
        finally:
            s.close()

    def test_request_timestamp_signed_and_fresh_on_each_attempt(self):
        s = Server([err(503, "ANALYSIS_QUEUE_FULL", {"Retry-After": "0"}), (200, {"data": {"id": "v1"}}, None)])
        clock = iter([1_795_330_000.9, 1_795_330_042.2])
        try:
            OpenVerify(s.base, "pk_1", SECRET, timeout=5, request_timestamp=True, clock=lambda: next(clock)).get_verification("v1")
            for r, ts in zip(s.requests, (1_795_330_000, 1_795_330_042)):
                self.assertEqual(r["headers"]["x-request-timestamp"], str(ts))
                self.assertEqual(r["headers"]["x-hmac-signature"], hmac_hex(SECRET, with_timestamp(ts, canonical_json("GET", "/v1/verifications/v1"))))
        finally:
            s.close()

    def test_no_request_timestamp_unless_asked(self):
        s = Server([(200, {"data": {"id": "v1"}}, None)])
        try:
            self.client(s).get_verification("v1")
            self.assertNotIn("x-request-timestamp", s.requests[0]["headers"])
        finally:
            s.close()


if __name__ == "__main__":
    unittest.main()
