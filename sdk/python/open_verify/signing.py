"""The canonical request strings and their HMAC-SHA256 (docs/api.md "Authentication")."""
import hashlib
import hmac

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def rfc3986(value):
    """Everything but A-Z a-z 0-9 - . _ ~ percent-encoded (uppercase hex), over UTF-8."""
    return "".join(chr(b) if b in _UNRESERVED else "%%%02X" % b for b in value.encode("utf-8"))


def canonical_json(method, path_with_query, body=b""):
    """JSON or bodyless requests: METHOD + path[?query] + body, no separators (bytes)."""
    return method.upper().encode("utf-8") + path_with_query.encode("utf-8") + body


def canonical_multipart(method, path_with_query, fields, file_hashes):
    """multipart/form-data: METHOD + path[?query] + "\\n" + sorted fields + "\\n" + sorted file SHA-256s."""
    # Sorted by name then value, as code points (the server sorts JavaScript strings by UTF-16 units: the same
    # order for every name this API uses).
    pairs = "&".join(f"{rfc3986(k)}={rfc3986(v)}" for k, v in sorted(fields))
    return f"{method.upper()}{path_with_query}\n{pairs}\n{','.join(sorted(file_hashes))}"


def with_timestamp(timestamp, canonical):
    """A request timestamp (an extension, docs/api.md "Request timestamps"): Unix seconds, sent as
    X-Request-Timestamp and signed in front of the canonical string, timestamp + "\n" + canonical (bytes)."""
    if isinstance(canonical, str):
        canonical = canonical.encode("utf-8")
    return f"{int(timestamp)}\n".encode("ascii") + canonical


def hmac_hex(secret, message):
    if isinstance(message, str):
        message = message.encode("utf-8")
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()
