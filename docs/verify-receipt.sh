#!/bin/sh
# Checks an Open Verify erasure receipt with OpenSSL 3 and jq only (see docs/receipts.md).
#   sh verify-receipt.sh <receipt.json> <keys.json>
# <receipt.json>: { "receipt": {...}, "signature": {...} } as the API or the CLI returned it.
# <keys.json>: a copy of {BASE_URL}/receipt-keys, fetched from the URL you know for the service.
set -eu
RECEIPT=$1
KEYS=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The signed receipt, wherever it sits in the saved output.
jq '.data.receipt // (if .receipt.signature then .receipt else . end)' "$RECEIPT" > "$WORK/signed.json"
KID=$(jq -r .signature.kid "$WORK/signed.json")
X=$(jq -r --arg kid "$KID" '.keys[] | select(.kid == $kid) | .x' "$KEYS")
[ -n "$X" ] || { echo "invalid: no published key $KID"; exit 1; }

# base64url → bytes
unb64url() { s=$(printf '%s' "$1" | tr '_-' '/+'); while [ $(( ${#s} % 4 )) -ne 0 ]; do s="$s="; done; printf '%s' "$s" | base64 -d; }

# The public key: Ed25519's fixed SubjectPublicKeyInfo prefix, then the 32 raw bytes of the JWK's x.
{ printf '\060\052\060\005\006\003\053\145\160\003\041\000'; unb64url "$X"; } > "$WORK/key.der"
openssl pkey -pubin -inform DER -in "$WORK/key.der" -out "$WORK/key.pem"
# What was signed: the receipt in canonical form (keys sorted, compact, no trailing newline).
jq -cjS .receipt "$WORK/signed.json" > "$WORK/payload"
unb64url "$(jq -r .signature.value "$WORK/signed.json")" > "$WORK/sig"
if openssl pkeyutl -verify -pubin -inkey "$WORK/key.pem" -rawin -in "$WORK/payload" -sigfile "$WORK/sig" > /dev/null; then
  echo "valid: signed by $KID"
else
  echo "invalid: the signature does not match the receipt"
  exit 1
fi
