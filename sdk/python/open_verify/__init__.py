"""Open Verify: a client for the signed /v1 API and webhook verification. Standard library only (Python 3.9+)."""
from .client import (
    DECIDED_STATUSES,
    OPERATIONS,
    TERMINAL_STATUSES,
    OpenVerify,
)
from .errors import (
    ApiError,
    AuthenticationError,
    ConflictError,
    ConsentIntegrityError,
    ConsentRequiredError,
    MediaRejectedError,
    NetworkError,
    NotFoundError,
    OpenVerifyError,
    RateLimitError,
    ServerError,
    TimeoutError,
    ValidationError,
    WalletResponseInvalidError,
    WebhookVerificationError,
)
from .signing import canonical_json, canonical_multipart, hmac_hex, rfc3986, with_timestamp
from .webhooks import WEBHOOK_TOLERANCE_SECONDS, verify_webhook

__version__ = "0.1.0"
__all__ = [
    "OpenVerify", "OPERATIONS", "DECIDED_STATUSES", "TERMINAL_STATUSES",
    "ApiError", "AuthenticationError", "ConflictError", "ConsentIntegrityError", "ConsentRequiredError",
    "MediaRejectedError", "NetworkError", "NotFoundError", "OpenVerifyError", "RateLimitError", "ServerError",
    "TimeoutError", "ValidationError", "WalletResponseInvalidError", "WebhookVerificationError",
    "canonical_json", "canonical_multipart", "hmac_hex", "rfc3986", "with_timestamp",
    "verify_webhook", "WEBHOOK_TOLERANCE_SECONDS",
]
