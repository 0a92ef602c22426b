"""Schemathesis hooks of `npm run test:contract` (scripts/contract-test.mjs).

Each hook stands for one rule of the contract that JSON Schema cannot state: a signature, a
value tied to another request, or a header tied to a body field. Only requests Schemathesis
generated as valid are touched; the invalid ones go out exactly as generated.
"""
import hashlib
import hmac
import os
import time
import uuid

import schemathesis
from schemathesis.generation.modes import GenerationMode

CONVERSION_SECRET = os.environ.get("SIDENOTE_CONTRACT_CONVERSION_SECRET", "")
# A real served decision, made before the run: random ids are almost never known to the service,
# so without them the 200 answers of events and decision lookups would never be checked.
DECISION_ID = os.environ.get("SIDENOTE_CONTRACT_DECISION_ID", "")
SNAPSHOT_ID = os.environ.get("SIDENOTE_CONTRACT_SNAPSHOT_ID", "")
LINK_TOKEN = os.environ.get("SIDENOTE_CONTRACT_LINK_TOKEN", "")


def _valid(case):
    meta = getattr(case, "meta", None)
    return meta is not None and meta.generation.mode == GenerationMode.POSITIVE


def _every_other(value):
    """Half of the generated ids are swapped for the real ones, so unknown ids are still tried."""
    return len(value) % 2 == 0


class _FirstUse:
    """Retry keys and nonces are single use per body (422 idempotency_key_reused,
    400 invalid_conversion). Generated values repeat across requests, so a repeat with another
    body is given a fresh value; the first use keeps what Schemathesis generated."""

    def __init__(self):
        self.bodies = {}

    def claim(self, value, path, body):
        fingerprint = repr((path, sorted(body.items())))
        if self.bodies.setdefault(value, fingerprint) == fingerprint:
            return value
        fresh = uuid.uuid4().hex
        self.bodies[fresh] = fingerprint
        return fresh


_idempotency_keys = _FirstUse()
_nonces = _FirstUse()


@schemathesis.hook("filter_case").apply_to(path="/v1/events/impression")
def keys_agree(context, case):
    """On the alias, the Idempotency-Key header and the body `idempotency_key` must be equal when
    both are sent; a header and a body field cannot be tied in a schema. Valid
    cases with two different keys are left out; their 400 is tested in events-http.test.ts."""
    if not _valid(case):
        return True
    header = (case.headers or {}).get("idempotency-key")
    body = case.body if isinstance(case.body, dict) else {}
    return header is None or "idempotency_key" not in body or body["idempotency_key"] == header


@schemathesis.hook("map_case").apply_to(path="/r/{token}")
def known_link(context, case):
    """Half of the well-formed tokens become the tracked link served for this run: a token is
    authentic only with the service's HMAC, so generated ones are all (rightly) 400."""
    token = (case.path_parameters or {}).get("token")
    if _valid(case) and LINK_TOKEN and isinstance(token, str) and _every_other(token):
        case.path_parameters["token"] = LINK_TOKEN
    return case


@schemathesis.hook("map_case").apply_to(path_regex="^/v1/decisions/")
def known_decision(context, case):
    """Point half of the valid lookups at the decision made for this run."""
    decision = (case.path_parameters or {}).get("id")
    if _valid(case) and DECISION_ID and isinstance(decision, str) and _every_other(decision):
        case.path_parameters["id"] = DECISION_ID
    return case


@schemathesis.hook("map_case").apply_to(path_regex="^/v1/events/(rendered|qualified-impression|impression)$")
def impression_event(context, case):
    """Half of the valid events name the offer served for this run; a retry key is reused only
    with the body it was first sent with."""
    if not _valid(case) or not isinstance(case.body, dict):
        return case
    _use_known_snapshot(case.body)
    body_key = case.body.get("idempotency_key")
    header = (case.headers or {}).get("idempotency-key")
    key = header if header is not None else body_key
    if key is not None:
        fresh = _idempotency_keys.claim(key, case.operation.path, case.body)
        if header is not None:
            case.headers["idempotency-key"] = fresh
        if body_key is not None:
            case.body["idempotency_key"] = fresh
    return case


@schemathesis.hook("map_case").apply_to(path="/v1/events/conversion")
def signed_conversion(context, case):
    """A conversion counts only when recent (300 s) and signed with the app's secret.
    Valid bodies get the current time, a single-use nonce and a real
    signature, so the run reaches the snapshot checks instead of stopping at 401."""
    body = case.body
    if not _valid(case) or not CONVERSION_SECRET or not isinstance(body, dict):
        return case
    _use_known_snapshot(body)
    body["timestamp"] = int(time.time())
    body["nonce"] = _nonces.claim(body["nonce"], case.operation.path, {k: v for k, v in body.items() if k != "signature"})
    signed = f'{body["timestamp"]}.{body["nonce"]}.{body["offer_snapshot_id"]}.{body.get("decision_id", "")}'
    body["signature"] = hmac.new(CONVERSION_SECRET.encode(), signed.encode(), hashlib.sha256).hexdigest()
    return case


def _use_known_snapshot(body):
    snapshot = body.get("offer_snapshot_id")
    if SNAPSHOT_ID and isinstance(snapshot, str) and _every_other(snapshot):
        body["offer_snapshot_id"] = SNAPSHOT_ID
        if "decision_id" in body:
            body["decision_id"] = DECISION_ID
