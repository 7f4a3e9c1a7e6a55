"""The README's walk-through with the Python SDK: create, consent (text fetched and its hash checked), upload a
selfie, submit, wait for the outcome, and find it again by external_id.

    OPEN_VERIFY_BASE_URL=http://localhost:3000 OPEN_VERIFY_API_KEY=pk_... OPEN_VERIFY_SECRET_KEY=sk_test_... \\
    python3 sdk/examples/walkthrough.py

SELFIE names a face photo; without it, the repository's public-domain sample (docs/samples/selfie.jpg).
Webhooks are signed with the workspace's *active* key, not the key these requests use: on the demo workspace the
live secret (sk_live_...), so a receiver verifies them with it, even while this example runs with the test secret.

(Installed: ``pip install ./sdk/python``, then ``from open_verify import OpenVerify``.) Prints one JSON line per step.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from open_verify import MediaRejectedError, OpenVerify  # noqa: E402


def step(name, **data):
    print(json.dumps({"step": name, **data}), flush=True)


# OPEN_VERIFY_REQUEST_TIMESTAMP=1: every request signed with X-Request-Timestamp (docs/api.md "Request timestamps").
ov = OpenVerify(os.environ["OPEN_VERIFY_BASE_URL"], os.environ["OPEN_VERIFY_API_KEY"], os.environ["OPEN_VERIFY_SECRET_KEY"], request_timestamp=os.environ.get("OPEN_VERIFY_REQUEST_TIMESTAMP") == "1")
external_id = os.environ.get("EXTERNAL_ID", "user-42")
# SELFIE: a face photo (JPEG or PNG); without it, the repository's public-domain sample (docs/samples/selfie.jpg).
selfie = os.environ.get("SELFIE") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "samples", "selfie.jpg")

# 1. Create a verification (a retry after a lost answer returns the same one: the SDK sends an Idempotency-Key).
created = ov.create_verification(external_id=external_id, external_metadata={"plan": "pro"})
step("created", id=created["id"], status=created["status"], mode=created["mode"], url=created["url"])

# 2-3. The active consent text, fetched and checked against its SHA-256, shown to the user, then accepted.
c = ov.consent(created["id"], show=lambda text, version: None)  # show `text` unchanged; return once accepted
step("consented", version=c["version"]["version"], text_sha256=c["version"]["text_sha256"], accepted_at=c["consent"]["consent"]["accepted_at"])

# 4. Upload the selfie (multipart, signed over the fields and the file's SHA-256).
try:
    png = selfie.lower().endswith(".png")
    media = ov.upload_media(created["id"], "selfie", selfie, filename="selfie.png" if png else "selfie.jpg", content_type="image/png" if png else "image/jpeg")
except MediaRejectedError as e:
    # The first failing check is the code; tell the user what to change.
    step("rejected", code=e.code, failed_checks=e.failed_checks)
    raise
step("uploaded", media_id=media["id"], type=media["type"], status=media["status"])

# 5. Submit (test mode goes to review, live mode to the decision pipeline).
submitted = ov.submit(created["id"])
step("submitted", status=submitted["status"], attempts_remaining=submitted["attempts_remaining"])

# 6. The outcome (a webhook tells you too; polling is the fallback).
decided = ov.wait_for_decision(created["id"], timeout=120, interval=1)
# Test mode always stops in `review`: a person decides (the admin area, or `npm run ops -- verification:decide`).
waiting = decided["status"] == "review"
extra = {"next": f"decide it at {os.environ['OPEN_VERIFY_BASE_URL']}/admin, or: npm run ops -- verification:decide --id {created['id']} --status approved"} if waiting else {}
step("waiting for a person" if waiting else "decided", status=decided["status"], reason=decided["reason"], duplicate_check=decided["duplicate_check"], external_metadata=decided["external_metadata"],
     webhooks="signed with the workspace's active key (on the demo workspace: the live secret), whatever key signed these requests", **extra)

# Reconciliation: everything of this user, newest change last.
mine = [v["id"] for v in ov.iterate_verifications(external_id=external_id)]
step("listed", external_id=external_id, count=len(mine), includes_this=created["id"] in mine)
