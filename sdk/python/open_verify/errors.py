"""Typed errors: every API error carries its code; branch on ``code`` (new codes may appear)."""

MEDIA_REJECTION_CODES = frozenset({
    "NO_FACE_DETECTED", "FACE_CUT_OFF", "MULTIPLE_FACES", "FACE_TOO_BLURRY", "FACE_TOO_DARK", "FACE_TOO_BRIGHT",
    "FACE_OCCLUDED", "FACE_TOO_SMALL", "DOCUMENT_NOT_FOUND", "DOCUMENT_TOO_BLURRY", "IMAGE_TOO_SMALL", "IMAGE_TOO_LARGE",
})


class OpenVerifyError(Exception):
    """Base of everything this SDK raises."""


class ApiError(OpenVerifyError):
    """The API answered with its error envelope."""

    def __init__(self, code, status, message, details=None, request_id=None, retry_after=None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.status = status
        self.message = message
        self.details = details
        self.request_id = request_id
        self.retry_after = retry_after
        self.retried = False


class AuthenticationError(ApiError):
    """401: a missing or unknown API key, a missing or wrong signature, a workspace without keys."""


class NotFoundError(ApiError):
    """404: unknown id, another workspace's, or the other mode's."""


class ConflictError(ApiError):
    """409: the status does not allow it, or the consent version or hash is not the active one."""


class ConsentRequiredError(ApiError):
    """403 CONSENT_REQUIRED."""


class ValidationError(ApiError):
    """422 VALIDATION_ERROR (details['fields']) or MISSING_REQUIRED_MEDIA (details['missing'])."""

    @property
    def fields(self):
        return (self.details or {}).get("fields")


class MediaRejectedError(ApiError):
    """A photo refused by a check: ``code`` is the first failing check, details['checks'] every measurement."""

    @property
    def failed_checks(self):
        return (self.details or {}).get("failed_checks") or [self.code]


class WalletResponseInvalidError(ApiError):
    """422 WALLET_RESPONSE_INVALID: a wallet's age proof was refused; ``reason`` says which check failed
    (docs/wallet.md). The verification is unchanged: ask again with a new request, or fall back to a selfie."""

    @property
    def reason(self):
        return (self.details or {}).get("reason")


class RateLimitError(ApiError):
    """429 RATE_LIMIT: wait ``retry_after`` seconds."""


class ServerError(ApiError):
    """5xx: the service's trouble; safe to retry later."""


class NetworkError(OpenVerifyError):
    """No answer (connection refused or reset, DNS, timeout), after the retries."""


class ConsentIntegrityError(OpenVerifyError):
    """The consent text does not hash to the version's text_sha256: do not show it."""


class TimeoutError(OpenVerifyError):  # noqa: A001 (the SDK's own, not the builtin)
    """wait_for_decision ran out of time."""


class WebhookVerificationError(OpenVerifyError):
    """A webhook failed verification: do not act on it (answer 401)."""


def api_error(status, body, retry_after=None):
    e = body.get("error") if isinstance(body, dict) else None
    e = e if isinstance(e, dict) else {}
    code = e.get("code") if isinstance(e.get("code"), str) else ("INTERNAL_ERROR" if status >= 500 else "BAD_REQUEST")
    args = (code, status, e.get("message") or f"HTTP {status}", e.get("details"), e.get("request_id"), retry_after)
    if code in MEDIA_REJECTION_CODES:
        return MediaRejectedError(*args)
    if code == "CONSENT_REQUIRED":
        return ConsentRequiredError(*args)
    if code == "RATE_LIMIT":
        return RateLimitError(*args)
    if code == "WALLET_RESPONSE_INVALID":
        return WalletResponseInvalidError(*args)
    cls = {401: AuthenticationError, 404: NotFoundError, 409: ConflictError, 422: ValidationError}.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else ApiError
    return cls(*args)
