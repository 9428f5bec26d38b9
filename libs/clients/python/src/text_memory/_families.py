"""The families whose calls are one request each, written once for both clients.

Each method builds its request (a ``Spec``: route, credential, whether it is safe to send again after a
lost answer, body) and hands it to the client's runner: the sync client's returns a ``Result``, the
async client's an awaitable of one. So ``TextMemory`` and ``AsyncTextMemory`` share every route, body
and retry choice, and cannot drift apart. Safe-to-repeat choices follow the TypeScript SDK
(libs/clients/sdk/src/families): GETs, idempotent actions and absolute updates are repeated after a lost
answer; creations are not (a retryable answer such as 429 is still retried: nothing was made).

Every method also takes, for that call alone, ``timeout``, ``max_retries``, ``request_id`` and
``extra_headers`` (``**call``)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Generic, List, Mapping, Optional, Sequence, TypeVar, Union
from urllib.parse import quote

from ._core import Credential, Spec, new_event_id, smoke_test_spec
from .models import CustomerStorageSettings, RequestEvent, TemplateField, WebhookDelivery
from ._result import Result

R = TypeVar("R")
#: The client's runner: sends the spec with the call's options; ``after`` sees the result first.
Runner = Callable[[Spec, Mapping[str, Any], Optional[Callable[[Result], None]]], R]


def enc(value: str) -> str:
    """A path segment, percent-encoded as JavaScript's encodeURIComponent does."""
    return quote(str(value), safe="")


def body(**fields: Any) -> Dict[str, Any]:
    """A JSON body of the fields given (None means not given)."""
    return {k: v for k, v in fields.items() if v is not None}


def namespaces_query(namespace: Union[str, Sequence[str], None]) -> Optional[Dict[str, Any]]:
    if namespace is None:
        return None
    return {"namespace": [namespace] if isinstance(namespace, str) else list(namespace)}


def etag_of(value: Union[int, str, None]) -> Optional[str]:
    """A revision as an ETag: ``2`` and ``"2"`` become ``"\\"2\\""``; a quoted ETag is sent as given."""
    if value is None:
        return None
    text = str(value)
    return text if len(text) >= 2 and text.startswith('"') and text.endswith('"') else f'"{text}"'


class _Family(Generic[R]):
    def __init__(self, run: Runner[R]) -> None:
        self._run = run

    def _call(self, spec: Spec, call: Mapping[str, Any], after: Optional[Callable[[Result], None]] = None) -> R:
        return self._run(spec, call, after)


def _infra(path: str, query: Optional[Mapping[str, Any]] = None) -> Spec:
    return Spec("GET", f"/api/v1{path}", "either", True, query=query)


class InfrastructureCalls(_Family[R]):
    """The infrastructure family's one-request calls (health, live, capabilities and status are the
    clients' own; ``events`` iterates and ``export_to`` streams, per client)."""

    def __init__(self, run: Runner[R], operator_token: Callable[[], Optional[str]]) -> None:
        super().__init__(run)
        self._operator_token = operator_token

    def smoke_test(self, *, operator_token: Optional[str] = None, **call: Any) -> R:
        """The authorized diagnostic (write, recall, delete in a reserved namespace), with an operator
        token (``tmo_…``; the client's ``operator_token`` when not given). Returns the report whether
        every step passed (200) or one failed (the server's 503 carries the report): read ``outcome``
        and ``steps``. A failed run is not retried (it ran and is billed); a 503 without a report (the
        test could not run) raises after the usual retries."""
        token = operator_token if operator_token is not None else self._operator_token()
        return self._call(smoke_test_spec(token), call)

    def release(self, **call: Any) -> R:
        """The release record (public): versions, migrations, capability manifest and health."""
        return self._call(Spec("GET", "/api/v1/infrastructure/release", "none", True), call)

    def openapi(self, **call: Any) -> R:
        """The OpenAPI document the deployment serves (public)."""
        return self._call(Spec("GET", "/api/v1/openapi.json", "none", True), call)

    def events_page(
        self,
        *,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        cursor: Optional[str] = None,
        operation: Optional[str] = None,
        outcome: Optional[str] = None,
        status: Optional[int] = None,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        **call: Any,
    ) -> R:
        """One page of the redacted request history, newest first (``events`` iterates over all pages)."""
        query = events_query(limit, offset, cursor, operation, outcome, status, from_, to)
        return self._call(_infra("/infrastructure/events", query), call)

    def namespaces(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **call: Any) -> R:
        """One page of the namespaces holding records, with counts; ``paging.next_cursor`` gives the next."""
        return self._call(_infra("/infrastructure/namespaces", {"limit": limit, "cursor": cursor}), call)

    def usage(self, *, window_minutes: Optional[int] = None, bucket_minutes: Optional[int] = None, **call: Any) -> R:
        """Request volume, operations and charges over a lookback window, from the billing ledger."""
        query = {"window_minutes": window_minutes, "bucket_minutes": bucket_minutes}
        return self._call(_infra("/infrastructure/usage", query), call)

    def metrics(self, *, window_minutes: Optional[int] = None, bucket_minutes: Optional[int] = None, **call: Any) -> R:
        """Latency percentiles, request quality and operation mix over a window."""
        query = {"window_minutes": window_minutes, "bucket_minutes": bucket_minutes}
        return self._call(_infra("/infrastructure/metrics", query), call)

    def anomalies(self, *, window_minutes: Optional[int] = None, **call: Any) -> R:
        """Thresholded signals over a window (``anomaly_count == 0``: none crossed)."""
        return self._call(_infra("/infrastructure/anomalies", {"window_minutes": window_minutes}), call)

    def export(self, *, namespace: Union[str, Sequence[str], None] = None, **call: Any) -> R:
        """The export as one parsed document: fine for small tenants; ``export_to`` streams to a file."""
        return self._call(export_spec(namespace), call)


def events_query(
    limit: Optional[int],
    offset: Optional[int],
    cursor: Optional[str],
    operation: Optional[str],
    outcome: Optional[str],
    status: Optional[int],
    from_: Optional[str],
    to: Optional[str],
) -> Dict[str, Any]:
    return {
        "limit": limit,
        "offset": offset,
        "cursor": cursor,
        "operation": operation,
        "outcome": outcome,
        "status": status,
        "from": from_,
        "to": to,
    }


def export_spec(namespace: Union[str, Sequence[str], None]) -> Spec:
    return _infra("/infrastructure/export", namespaces_query(namespace))


class EventPages:
    """The paging of ``infrastructure.events``: the first page from ``offset``, then each page by the
    previous page's ``next_cursor``, every page carrying the same filters (a cursor names a position in
    the history, not a selection), so records arriving meanwhile are neither repeated nor skipped."""

    def __init__(self, query: Dict[str, Any]) -> None:
        self._each = {k: v for k, v in query.items() if k not in ("offset", "cursor") and v is not None}
        self._offset = query.get("offset") or 0

    def first(self) -> Spec:
        return _infra("/infrastructure/events", {**self._each, "offset": self._offset})

    def next(self, page: Any) -> Optional[Spec]:
        paging = page.get("paging") if isinstance(page, dict) else None
        cursor = paging.get("next_cursor") if isinstance(paging, dict) else None
        return _infra("/infrastructure/events", {**self._each, "cursor": cursor}) if cursor else None

    @staticmethod
    def rows(page: Any) -> List[RequestEvent]:
        data = page.get("data") if isinstance(page, dict) else None
        return [RequestEvent(row) for row in data] if isinstance(data, list) else []


class Templates(_Family[R]):
    """Private templates (``/v1/templates``, API key)."""

    def list(self, *, limit: Optional[int] = None, offset: Optional[int] = None, **call: Any) -> R:
        return self._call(Spec("GET", "/v1/templates", "api_key", True, query={"limit": limit, "offset": offset}), call)

    def get(self, name_or_id: str, **call: Any) -> R:
        """By name or id; ``revision`` is what ``update``'s ``if_match`` takes."""
        return self._call(Spec("GET", f"/v1/templates/{enc(name_or_id)}", "api_key", True), call)

    def create(
        self,
        *,
        template_name: str,
        fields: Sequence[TemplateField],
        description: Optional[str] = None,
        version: Optional[str] = None,
        format: Optional[str] = None,
        **call: Any,
    ) -> R:
        """Not repeated after a lost answer: a repeat would be 409 already_exists."""
        json = body(template_name=template_name, fields=list(fields), description=description, version=version, format=format)
        return self._call(Spec("POST", "/v1/templates", "api_key", False, json=json), call)

    def update(
        self,
        name_or_id: str,
        *,
        fields: Sequence[TemplateField],
        template_name: Optional[str] = None,
        description: Optional[str] = None,
        version: Optional[str] = None,
        format: Optional[str] = None,
        if_match: Union[int, str, None] = None,
        **call: Any,
    ) -> R:
        """Replace the definition as the next revision. With ``if_match`` (a ``revision``) it applies only
        if nobody changed the template since (else 412), and is then safe to repeat; without, a repeat
        would add a revision, so a lost answer is not retried."""
        etag = etag_of(if_match)
        json = body(template_name=template_name, fields=list(fields), description=description, version=version, format=format)
        headers = {"if-match": etag} if etag is not None else {}
        spec = Spec("PUT", f"/v1/templates/{enc(name_or_id)}", "api_key", etag is not None, json=json, headers=headers)
        return self._call(spec, call)


class Marketplace(_Family[R]):
    """Ready-made templates (``/v1/marketplace/templates``, API key)."""

    def search(
        self,
        *,
        category: Optional[str] = None,
        keyword: Optional[str] = None,
        q: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        **call: Any,
    ) -> R:
        query = {"category": category, "keyword": keyword, "q": q, "limit": limit, "offset": offset}
        return self._call(Spec("GET", "/v1/marketplace/templates", "api_key", True, query=query), call)

    def get(self, marketplace_template_id: str, **call: Any) -> R:
        return self._call(Spec("GET", f"/v1/marketplace/templates/{enc(marketplace_template_id)}", "api_key", True), call)


class Memories(_Family[R]):
    """Memories made from templates (``POST /v1/memories``), and any memory by id: read or forget."""

    def create(
        self,
        *,
        data: Mapping[str, Any],
        template_name: Optional[str] = None,
        marketplace_template_id: Optional[str] = None,
        namespace: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        **call: Any,
    ) -> R:
        """Validate ``data`` against the template, render it and retain it. Safe to retry: the
        idempotency key (``evt_<uuid>`` when not given) is fixed before the first attempt."""
        key = idempotency_key if idempotency_key is not None else new_event_id()
        json = body(data=dict(data), template_name=template_name, marketplace_template_id=marketplace_template_id, namespace=namespace)
        return self._call(Spec("POST", "/v1/memories", "api_key", True, json=json, headers={"idempotency-key": key}), call)

    def get(self, memory_id: str, **call: Any) -> R:
        """Any memory of the tenant by its ``memory_id``, with template data when made from one."""
        return self._call(Spec("GET", f"/v1/memories/{enc(memory_id)}", "api_key", True), call)

    def forget(self, memory_id: str, **call: Any) -> R:
        """Forget one memory (``DELETE /v1/memories/{memory_id}``, a key with ``memory:delete``): its record,
        postings and the relations its event recorded go; a memory only it superseded is current again
        (``reinstated``). Safe to retry: asking again answers the first receipt (``Replayed``); the write
        that created it then replays as ``not_retained`` with ``forgotten_at``. Another tenant's id is 404."""
        return self._call(Spec("DELETE", f"/v1/memories/{enc(memory_id)}", "api_key", True), call)


IMPORT_DONE = ("completed", "failed", "expired")


def import_spec(import_id: str) -> Spec:
    return Spec("GET", f"/v1/imports/{enc(import_id)}", "api_key", True)


def import_finished(job: Any) -> bool:
    return isinstance(job, dict) and job.get("state") in IMPORT_DONE


class ImportCalls(_Family[R]):
    """Document import's one-request calls (``upload`` and ``wait`` are the clients' own)."""

    def from_dataset(
        self,
        *,
        dataset: str,
        split: str,
        config: Optional[str] = None,
        revision: Optional[str] = None,
        hub_token: Optional[str] = None,
        format: Optional[str] = None,
        template_name: Optional[str] = None,
        marketplace_template_id: Optional[str] = None,
        namespace: Optional[str] = None,
        **call: Any,
    ) -> R:
        """A public model-hub dataset split instead of a file: the job in state ``estimated``. Each call
        makes a new job, so a lost answer is not repeated (a 429 or hub outage still is)."""
        json = body(
            dataset=dataset,
            split=split,
            config=config,
            revision=revision,
            hub_token=hub_token,
            format=format,
            template_name=template_name,
            marketplace_template_id=marketplace_template_id,
            namespace=namespace,
        )
        return self._call(Spec("POST", "/v1/imports", "api_key", False, json=json), call)

    def start(self, import_id: str, **call: Any) -> R:
        """Write the rows in the background (``processing``); starting again answers the job as it is."""
        return self._call(Spec("POST", f"/v1/imports/{enc(import_id)}/start", "api_key", True), call)

    def get(self, import_id: str, **call: Any) -> R:
        """State and progress: total, processed = retained + failed."""
        return self._call(import_spec(import_id), call)

    def failures(self, import_id: str, *, limit: Optional[int] = None, offset: Optional[int] = None, **call: Any) -> R:
        """Rows not retained, by row number, with a reason code (never the row's text)."""
        spec = Spec("GET", f"/v1/imports/{enc(import_id)}/failures", "api_key", True, query={"limit": limit, "offset": offset})
        return self._call(spec, call)


def _control(method: str, path: str, json: Any = None, safe: Optional[bool] = None, query: Optional[Mapping[str, Any]] = None) -> Spec:
    credential: Credential = "session"
    return Spec(method, f"/api/v1/control{path}", credential, method == "GET" if safe is None else safe, query=query, json=json)


class Sessions(_Family[R]):
    def __init__(self, run: Runner[R], keep: Callable[[Optional[str]], None]) -> None:
        super().__init__(run)
        self._keep = keep

    def login(self, *, email: str, password: str, **call: Any) -> R:
        """Log in; the client keeps the session token for the control-plane calls that follow."""
        spec = Spec("POST", "/api/v1/control/sessions", "none", False, json={"email": email, "password": password})
        return self._call(spec, call, lambda r: self._keep(str(r.raw["token"])))

    def logout(self, **call: Any) -> R:
        """End this session (its token fails at once) and forget it."""
        return self._call(_control("DELETE", "/sessions/current", safe=True), call, lambda _r: self._keep(None))


class Account(_Family[R]):
    def get(self, **call: Any) -> R:
        return self._call(_control("GET", "/account"), call)

    def change_password(self, *, current_password: str, new_password: str, **call: Any) -> R:
        json = {"current_password": current_password, "new_password": new_password}
        return self._call(_control("POST", "/account/password", json), call)


class Users(_Family[R]):
    def list(self, **call: Any) -> R:
        return self._call(_control("GET", "/users"), call)

    def get(self, id: str, **call: Any) -> R:
        return self._call(_control("GET", f"/users/{enc(id)}"), call)

    def create(self, *, email: str, password: str, role: str, **call: Any) -> R:
        return self._call(_control("POST", "/users", {"email": email, "password": password, "role": role}), call)

    def update(self, id: str, *, role: Optional[str] = None, status: Optional[str] = None, **call: Any) -> R:
        return self._call(_control("PATCH", f"/users/{enc(id)}", body(role=role, status=status), safe=True), call)


class ApiKeys(_Family[R]):
    def list(self, **call: Any) -> R:
        return self._call(_control("GET", "/api-keys"), call)

    def get(self, id: str, **call: Any) -> R:
        return self._call(_control("GET", f"/api-keys/{enc(id)}"), call)

    def create(
        self,
        *,
        name: str,
        permissions: Optional[Sequence[str]] = None,
        storage_connection_id: Optional[str] = None,
        **call: Any,
    ) -> R:
        """The full key is in this answer only."""
        perms = list(permissions) if permissions is not None else None
        json = body(name=name, permissions=perms, storage_connection_id=storage_connection_id)
        return self._call(_control("POST", "/api-keys", json), call)

    def update(self, id: str, *, name: Optional[str] = None, permissions: Optional[Sequence[str]] = None, **call: Any) -> R:
        perms = list(permissions) if permissions is not None else None
        return self._call(_control("PATCH", f"/api-keys/{enc(id)}", body(name=name, permissions=perms), safe=True), call)

    def revoke(self, id: str, **call: Any) -> R:
        return self._call(_control("POST", f"/api-keys/{enc(id)}/revoke", safe=True), call)

    def rotate(self, id: str, **call: Any) -> R:
        """A new key with the same settings; the old one is revoked. Not repeated after a lost answer."""
        return self._call(_control("POST", f"/api-keys/{enc(id)}/rotate"), call)

    def attach_storage(self, id: str, *, storage_connection_id: str, **call: Any) -> R:
        json = {"storage_connection_id": storage_connection_id}
        return self._call(_control("PUT", f"/api-keys/{enc(id)}/storage-connection", json, safe=True), call)

    def detach_storage(self, id: str, **call: Any) -> R:
        return self._call(_control("DELETE", f"/api-keys/{enc(id)}/storage-connection", safe=True), call)


class StorageConnections(_Family[R]):
    def list(self, **call: Any) -> R:
        return self._call(_control("GET", "/storage-connections"), call)

    def get(self, id: str, **call: Any) -> R:
        return self._call(_control("GET", f"/storage-connections/{enc(id)}"), call)

    def create(
        self,
        *,
        kind: str,
        name: str,
        settings: Optional[CustomerStorageSettings] = None,
        secret: Optional[str] = None,
        **call: Any,
    ) -> R:
        json = body(kind=kind, name=name, settings=settings, secret=secret)
        return self._call(_control("POST", "/storage-connections", json), call)

    def update(
        self,
        id: str,
        *,
        name: Optional[str] = None,
        status: Optional[str] = None,
        settings: Optional[CustomerStorageSettings] = None,
        secret: Optional[str] = None,
        **call: Any,
    ) -> R:
        json = body(name=name, status=status, settings=settings, secret=secret)
        return self._call(_control("PATCH", f"/storage-connections/{enc(id)}", json, safe=True), call)


class Consent(_Family[R]):
    def get(self, **call: Any) -> R:
        return self._call(_control("GET", "/consent"), call)

    def grant(self, **call: Any) -> R:
        return self._call(_control("POST", "/consent/grant", safe=True), call)

    def revoke(self, **call: Any) -> R:
        return self._call(_control("POST", "/consent/revoke", safe=True), call)

    def events(self, **call: Any) -> R:
        """The audit trail of consent changes, newest first."""
        return self._call(_control("GET", "/consent/events"), call)


class OperatorTokens(_Family[R]):
    def list(self, **call: Any) -> R:
        return self._call(_control("GET", "/operator-tokens"), call)

    def create(self, *, name: str, ttl_hours: Optional[int] = None, **call: Any) -> R:
        """The token is in this answer only."""
        return self._call(_control("POST", "/operator-tokens", body(name=name, ttl_hours=ttl_hours)), call)

    def revoke(self, id: str, **call: Any) -> R:
        return self._call(_control("POST", f"/operator-tokens/{enc(id)}/revoke", safe=True), call)


class Billing(_Family[R]):
    def charges(
        self,
        *,
        state: Optional[str] = None,
        operation: Optional[str] = None,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        **call: Any,
    ) -> R:
        query = {"state": state, "operation": operation, "from": from_, "to": to, "limit": limit, "offset": offset}
        return self._call(_control("GET", "/billing/charges", query=query), call)

    def void_charge(self, id: str, *, reason: str, **call: Any) -> R:
        return self._call(_control("POST", f"/billing/charges/{enc(id)}/void", {"reason": reason}, safe=True), call)

    def invoices(self, **call: Any) -> R:
        return self._call(_control("GET", "/billing/invoices"), call)

    def close_invoice_period(self, *, period: str, **call: Any) -> R:
        """Roll up a closed month (idempotent per month)."""
        return self._call(_control("POST", "/billing/invoices", {"period": period}, safe=True), call)


def _webhooks(method: str, path: str = "", json: Any = None, safe: Optional[bool] = None, query: Optional[Mapping[str, Any]] = None) -> Spec:
    return _control(method, f"/webhook-endpoints{path}", json, safe, query)


class WebhookCalls(_Family[R]):
    """Webhook endpoints and their delivery log (``/api/v1/control/webhook-endpoints``), with
    the session of an owner or admin (others get 403). Repeated after a lost answer: the reads,
    ``update`` (absolute values) and ``redeliver`` (the delivery is pending again either way; receivers
    deduplicate on ``webhook-id``). Not repeated: ``create``, ``rotate_secret`` (a second rotation would
    replace the secret whose answer was lost) and ``delete`` (a repeat would answer 404).
    ``deliveries`` iterates over every page, per client."""

    def list(self, **call: Any) -> R:
        """The tenant's endpoints (never their secrets)."""
        return self._call(_webhooks("GET"), call)

    def get(self, id: str, **call: Any) -> R:
        return self._call(_webhooks("GET", f"/{enc(id)}"), call)

    def create(
        self,
        *,
        url: str,
        events: Sequence[str],
        description: Optional[str] = None,
        include_text: Optional[bool] = None,
        **call: Any,
    ) -> R:
        """Register an endpoint for some event types. The answer's ``secret`` (``whsec_…``) signs every
        delivery and is never shown again."""
        json = body(url=url, events=list(events), description=description, include_text=include_text)
        return self._call(_webhooks("POST", json=json), call)

    def update(
        self,
        id: str,
        *,
        url: Optional[str] = None,
        events: Optional[Sequence[str]] = None,
        description: Optional[str] = None,
        include_text: Optional[bool] = None,
        enabled: Optional[bool] = None,
        **call: Any,
    ) -> R:
        """Change what is given; ``enabled=True`` re-enables a disabled endpoint and clears its
        ``disabled_reason``."""
        json = body(
            url=url,
            events=list(events) if events is not None else None,
            description=description,
            include_text=include_text,
            enabled=enabled,
        )
        return self._call(_webhooks("PATCH", f"/{enc(id)}", json, safe=True), call)

    def delete(self, id: str, **call: Any) -> R:
        """Delete the endpoint with its deliveries and their log."""
        return self._call(_webhooks("DELETE", f"/{enc(id)}", safe=False), call)

    def rotate_secret(self, id: str, **call: Any) -> R:
        """A new signing secret, in this answer only; the previous one also signs until
        ``previous_secret_expires_at`` (24 hours)."""
        return self._call(_webhooks("POST", f"/{enc(id)}/rotate-secret"), call)

    def deliveries_page(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, **call: Any) -> R:
        """One page of the endpoint's delivery log, newest first; ``next_cursor`` (None on the last)
        gives the next (``deliveries`` follows it for you)."""
        return self._call(DeliveryPages(id, limit).page(cursor), call)

    def redeliver(self, id: str, delivery_id: str, **call: Any) -> R:
        """Send a delivery again (any status) with a fresh retry schedule, keeping its attempts; answers
        it pending. 412 ``precondition_failed`` while the endpoint is disabled: enable it first."""
        return self._call(_webhooks("POST", f"/{enc(id)}/deliveries/{enc(delivery_id)}/redeliver", safe=True), call)


class DeliveryPages:
    """The paging of ``control.webhooks.deliveries``: the newest page, then each by the previous page's
    ``next_cursor``, so deliveries made meanwhile are neither repeated nor skipped."""

    def __init__(self, endpoint_id: str, limit: Optional[int]) -> None:
        self._path = f"/{enc(endpoint_id)}/deliveries"
        self._limit = limit

    def page(self, cursor: Optional[str]) -> Spec:
        return _webhooks("GET", self._path, query={"limit": self._limit, "cursor": cursor})

    def next(self, page: Any) -> Optional[Spec]:
        cursor = page.get("next_cursor") if isinstance(page, dict) else None
        return self.page(cursor) if isinstance(cursor, str) and cursor else None

    @staticmethod
    def rows(page: Any) -> List[WebhookDelivery]:
        data = page.get("data") if isinstance(page, dict) else None
        return [WebhookDelivery(row) for row in data] if isinstance(data, list) else []


#: The client's webhooks family: ``WebhookCalls`` with its own ``deliveries`` iterator.
W = TypeVar("W", bound="WebhookCalls[Any]")


class Control(_Family[R], Generic[R, W]):
    """The control plane (``/api/v1/control``), with a session token: ``sessions.login(...)``, or
    ``session_token=`` on the client."""

    def __init__(self, run: Runner[R], keep_session: Callable[[Optional[str]], None], webhooks: W) -> None:
        super().__init__(run)
        self.webhooks = webhooks
        self.sessions = Sessions(run, keep_session)
        self.account = Account(run)
        self.users = Users(run)
        self.api_keys = ApiKeys(run)
        self.storage_connections = StorageConnections(run)
        self.consent = Consent(run)
        self.operator_tokens = OperatorTokens(run)
        self.billing = Billing(run)

    def usage(self, *, window_minutes: Optional[int] = None, bucket_minutes: Optional[int] = None, **call: Any) -> R:
        """The tenant's usage over a lookback window, from the billing ledger."""
        query = {"window_minutes": window_minutes, "bucket_minutes": bucket_minutes}
        return self._call(_control("GET", "/usage", query=query), call)
