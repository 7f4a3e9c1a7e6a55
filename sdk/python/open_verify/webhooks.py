"""Verifying a webhook (docs/webhooks.md): HMAC-SHA256 of ``{X-Timestamp}.{raw body}``, constant-time compare,
refused when the timestamp is 300 seconds or more away from now."""
import hashlib
import hmac
import json
import re
import time

from .errors import WebhookVerificationError

WEBHOOK_TOLERANCE_SECONDS = 300


def _header(headers, name):
    for k, v in headers.items():
        if k.lower() == name:
            return v[0] if isinstance(v, (list, tuple)) else v
    return None


def verify_webhook(body, headers, secret, tolerance_seconds=WEBHOOK_TOLERANCE_SECONDS, now=None):
    """Check a webhook and return its event (a dict); raise WebhookVerificationError when it must not be trusted.

    ``body`` is the raw body exactly as received (bytes, or the str they decode to), never a re-serialisation.
    ``secret`` is the workspace's secret key, or a list of them during a key rotation.
    """
    if isinstance(body, str):
        body = body.encode("utf-8")
    ts = _header(headers, "x-timestamp")
    sig = _header(headers, "x-hmac-signature")
    if not ts or not re.fullmatch(r"\d{1,12}", ts):
        raise WebhookVerificationError("Missing or malformed X-Timestamp.")
    if not sig or not re.fullmatch(r"[0-9a-f]{64}", sig):
        raise WebhookVerificationError("Missing or malformed X-HMAC-Signature.")
    now = int(time.time()) if now is None else now
    if abs(now - int(ts)) >= tolerance_seconds:
        raise WebhookVerificationError("The webhook timestamp is outside the tolerance (a replay, or a clock off).")
    message = ts.encode("ascii") + b"." + body
    secrets = secret if isinstance(secret, (list, tuple)) else [secret]
    ok = False
    for s in secrets:  # every key is tried, whichever matches
        expected = hmac.new(s.encode("utf-8"), message, hashlib.sha256).hexdigest()
        ok = hmac.compare_digest(expected, sig) or ok
    if not ok:
        raise WebhookVerificationError("The webhook signature does not match.")
    try:
        return json.loads(body.decode("utf-8"))
    except ValueError as e:
        raise WebhookVerificationError("The webhook body is not JSON.") from e
