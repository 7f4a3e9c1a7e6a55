"""The Open Verify client: every request signed, typed errors, network failures retried (creates carry an
Idempotency-Key, so a retry never makes a second verification)."""
import hashlib
import json
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from .errors import ConflictError, ConsentIntegrityError, NetworkError, TimeoutError, api_error
from .signing import canonical_json, canonical_multipart, hmac_hex, rfc3986, sha256_hex, with_timestamp

# Which operation of GET /v1/openapi.json each method calls.
OPERATIONS = {
    "createVerification": "POST /v1/verifications",
    "listVerifications": "GET /v1/verifications",
    "getVerification": "GET /v1/verifications/{id}",
    "getActiveConsent": "GET /v1/consent",
    "acceptConsent": "POST /v1/verifications/{id}/consent",
    "uploadMedia": "POST /v1/verifications/{id}/media",
    "submitVerification": "POST /v1/verifications/{id}/submit",
    "eraseVerificationData": "DELETE /v1/verifications/{id}/data",
    "createWalletRequest": "POST /v1/verifications/{id}/wallet-requests",
    "submitWalletResponse": "POST /v1/verifications/{id}/wallet-responses",
}

# The statuses that fire a webhook: a decision, or a state someone must act on.
DECIDED_STATUSES = ("approved", "declined", "resubmission_requested", "review", "abandoned", "expired")
TERMINAL_STATUSES = ("approved", "declined", "abandoned", "expired")


class OpenVerify:
    def __init__(self, base_url, api_key, secret_key, retries=2, timeout=30.0, max_retry_after=10, request_timestamp=False, clock=time.time):
        """``request_timestamp=True`` sends X-Request-Timestamp (Unix seconds, signed with the request) with every
        request, so a captured request cannot be replayed after five minutes: required by workspaces with
        ``require_request_timestamp``, harmless elsewhere. ``clock`` gives the time in seconds."""
        if not (secret_key.startswith("sk_test_") or secret_key.startswith("sk_live_")):
            raise ValueError("secret_key must be an sk_test_... or sk_live_... key.")
        u = urllib.parse.urlsplit(base_url)
        self._origin = f"{u.scheme}://{u.netloc}"
        self._prefix = u.path.rstrip("/")
        self.api_key = api_key
        self.secret_key = secret_key
        self.retries = retries
        self.timeout = timeout
        self.max_retry_after = max_retry_after
        self.request_timestamp = request_timestamp
        self.clock = clock

    @property
    def mode(self):
        return "live" if self.secret_key.startswith("sk_live_") else "test"

    # -- verifications ---------------------------------------------------------------------------------------
    def create_verification(self, external_id=None, external_metadata=None, flow=None, mode=None, return_url=None, idempotency_key=None):
        """POST /v1/verifications. A retry after a lost answer returns the same verification."""
        body = {k: v for k, v in (("external_id", external_id), ("external_metadata", external_metadata), ("flow", flow), ("mode", mode), ("return_url", return_url)) if v is not None}
        return self._request("POST", "/v1/verifications", json_body=body, headers={"Idempotency-Key": idempotency_key or str(uuid.uuid4())})

    def get_verification(self, verification_id):
        return self._request("GET", f"/v1/verifications/{urllib.parse.quote(verification_id, safe='')}")

    def list_verifications(self, external_id=None, status=None, updated_since=None, limit=None, cursor=None):
        """GET /v1/verifications (reconciliation): one page, {"items": [...], "next_cursor": ...}."""
        if isinstance(status, (list, tuple)):
            status = ",".join(status)
        if hasattr(updated_since, "isoformat"):
            updated_since = updated_since.isoformat()
        params = (("external_id", external_id), ("status", status), ("updated_since", updated_since), ("limit", None if limit is None else str(limit)), ("cursor", cursor))
        q = "&".join(f"{rfc3986(k)}={rfc3986(v)}" for k, v in params if v is not None)
        return self._request("GET", "/v1/verifications" + (f"?{q}" if q else ""))

    def iterate_verifications(self, **query):
        """Every verification matching the query, page after page."""
        cursor = None
        while True:
            page = self.list_verifications(cursor=cursor, **query)
            yield from page["items"]
            cursor = page["next_cursor"]
            if not cursor:
                return

    def submit(self, verification_id):
        """POST .../submit. A retry whose first try was applied finds it submitted: that is returned."""
        try:
            return self._request("POST", f"/v1/verifications/{urllib.parse.quote(verification_id, safe='')}/submit")
        except ConflictError as e:
            if e.code == "INVALID_STATUS" and e.retried:
                v = self.get_verification(verification_id)
                if v.get("submitted_at"):
                    return {"id": v["id"], "status": v["status"], "submitted_at": v["submitted_at"], "attempts_remaining": v["attempts_remaining"]}
            raise

    def wait_for_decision(self, verification_id, timeout=120.0, interval=2.0, statuses=DECIDED_STATUSES):
        """Poll GET until the verification reaches one of ``statuses`` (default: any status that fires a webhook)."""
        until = time.monotonic() + timeout
        while True:
            v = self.get_verification(verification_id)
            if v["status"] in statuses:
                return v
            if time.monotonic() >= until:
                raise TimeoutError(f"Verification {verification_id} is still {v['status']}.")
            time.sleep(min(interval, max(0.0, until - time.monotonic())))

    def erase_data(self, verification_id):
        """DELETE .../data: erase now, with the signed receipt (idempotent)."""
        return self._request("DELETE", f"/v1/verifications/{urllib.parse.quote(verification_id, safe='')}/data")

    # -- digital ID wallets (extension, docs/wallet.md) ------------------------------------------------------
    def create_wallet_request(self, verification_id, protocol, origin):
        """POST .../wallet-requests: a request for a wallet's age proof, bound to ``origin`` (the page that calls
        the browser API). Pass its ``protocol`` and ``data`` unchanged to ``navigator.credentials.get`` there."""
        body = {"protocol": protocol, "origin": origin}
        return self._request("POST", f"/v1/verifications/{urllib.parse.quote(verification_id, safe='')}/wallet-requests", json_body=body)

    def submit_wallet_response(self, verification_id, request_id, protocol, data):
        """POST .../wallet-responses: the DigitalCredential the browser returned (``protocol``, ``data``) for the
        request ``request_id``. Returns the decided verification; a refused proof raises
        WalletResponseInvalidError (``reason``), the verification unchanged."""
        body = {"request_id": request_id, "protocol": protocol, "data": data}
        return self._request("POST", f"/v1/verifications/{urllib.parse.quote(verification_id, safe='')}/wallet-responses", json_body=body)

    # -- consent ---------------------------------------------------------------------------------------------
    def get_active_consent(self):
        return self._request("GET", "/v1/consent")

    def fetch_consent_text(self, version):
        """The full text of a consent version, checked against its text_sha256 (ConsentIntegrityError otherwise)."""
        try:
            with urllib.request.urlopen(version["url"], timeout=self.timeout) as r:
                data = r.read()
        except (urllib.error.URLError, OSError) as e:
            raise NetworkError(f"Could not fetch the consent text: {e}") from e
        if sha256_hex(data) != version["text_sha256"].lower():
            raise ConsentIntegrityError("The consent text does not match its SHA-256: it changed on the way, or a new version is active.")
        return data.decode("utf-8")

    def accept_consent(self, verification_id, consent_version_id, text_sha256):
        body = {"consent_version_id": consent_version_id, "text_sha256": text_sha256}
        return self._request("POST", f"/v1/verifications/{urllib.parse.quote(verification_id, safe='')}/consent", json_body=body)

    def consent(self, verification_id, show=None):
        """The consent step: the active version, its text fetched and hash-checked, ``show(text, version)`` (display
        it unchanged; return once the user accepted), then the acceptance recorded with that hash."""
        version = self.get_active_consent()
        text = self.fetch_consent_text(version)
        if show is not None:
            show(text, version)
        record = self.accept_consent(verification_id, version["id"], version["text_sha256"])
        return {"version": version, "text": text, "consent": record}

    # -- media -----------------------------------------------------------------------------------------------
    def upload_media(self, verification_id, type, file, side=None, document_type=None, filename="photo.jpg", content_type="application/octet-stream"):
        """POST .../media (multipart), signed over the fields and the file's SHA-256. ``file``: bytes or a path."""
        if isinstance(file, str):
            with open(file, "rb") as f:
                file = f.read()
        fields = [("type", type)]
        if side:
            fields.append(("side", side))
        if document_type:
            fields.append(("document_type", document_type))
        return self._request("POST", f"/v1/verifications/{urllib.parse.quote(verification_id, safe='')}/media", form=(fields, file, filename, content_type))

    # -- transport -------------------------------------------------------------------------------------------
    def _request(self, method, path, json_body=None, form=None, headers=None):
        target = self._prefix + path
        h = {"X-API-Key": self.api_key, "Accept": "application/json", **(headers or {})}
        if form is not None:
            fields, file, filename, content_type = form
            boundary = "ov-" + secrets.token_hex(16)
            parts = []
            for k, v in fields:
                parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode("utf-8"))
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\nContent-Type: {content_type}\r\n\r\n'.encode("utf-8") + file + b"\r\n")
            parts.append(f"--{boundary}--\r\n".encode("ascii"))
            data = b"".join(parts)
            h["Content-Type"] = f"multipart/form-data; boundary={boundary}"
            canonical = canonical_multipart(method, target, fields, [hashlib.sha256(file).hexdigest()])
        else:
            data = b"" if json_body is None else json.dumps(json_body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            if data:
                h["Content-Type"] = "application/json"
            canonical = canonical_json(method, target, data)
        attempt = 0
        while True:
            # Signed at each attempt: a retry after a wait carries a fresh timestamp.
            if self.request_timestamp:
                ts = int(self.clock())
                h["X-Request-Timestamp"] = str(ts)
                h["X-HMAC-Signature"] = hmac_hex(self.secret_key, with_timestamp(ts, canonical))
            else:
                h["X-HMAC-Signature"] = hmac_hex(self.secret_key, canonical)
            req = urllib.request.Request(self._origin + target, data=data or None, method=method, headers=h)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    return json.loads(r.read().decode("utf-8"))["data"]
            except urllib.error.HTTPError as e:
                raw = e.read()
                try:
                    parsed = json.loads(raw.decode("utf-8"))
                except ValueError:
                    parsed = None
                ra = e.headers.get("Retry-After")
                retry_after = int(ra) if ra and ra.isdigit() else None
                if e.code == 503 and retry_after is not None and retry_after <= self.max_retry_after and attempt < self.retries:
                    time.sleep(retry_after)
                    attempt += 1
                    continue
                err = api_error(e.code, parsed, retry_after)
                err.retried = attempt > 0
                raise err from None
            except (urllib.error.URLError, OSError) as e:
                if attempt < self.retries:
                    time.sleep(0.25 * 2 ** attempt)
                    attempt += 1
                    continue
                raise NetworkError(f"{method} {path}: no answer after {attempt + 1} tries: {e}") from e
