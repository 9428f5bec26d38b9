"""The models cannot drift from the API. The committed models are what the OpenAPI snapshot generates;
every body the SDK sends, with every option given, has exactly the fields its route takes, at every
level; every route that takes a body is one the SDK sends; and answers come back as their route's model.
(The snapshot itself is checked against the gateway's document by libs/clients/sdk's snapshot test, and
test_stack.py checks real answers against the served document.)"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import]

from conftest import API_KEY, Script, ok
from text_memory import TextMemory, models
from text_memory._answers import answer_model

PACKAGE = Path(__file__).resolve().parent.parent
SNAPSHOT = json.loads((PACKAGE.parent / "sdk" / "openapi.json").read_text(encoding="utf-8"))
SCHEMAS: Dict[str, Any] = SNAPSHOT["components"]["schemas"]
# Chat is the official `openai` client's job (README): the SDK has no chat call of its own.
NOT_SENT_BY_THE_SDK = {
    ("POST", "/v1/chat/completions"),
    # Webhooks: the control-plane routes are served; the SDK's calls come in a later slice.
    ("POST", "/api/v1/control/webhook-endpoints"),
    ("PATCH", "/api/v1/control/webhook-endpoints/{id}"),
}


def load_generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_models", PACKAGE / "scripts" / "generate_models.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_models_are_what_the_snapshot_generates() -> None:
    generator = load_generator()
    committed = (PACKAGE / "src" / "text_memory" / "models.py").read_text(encoding="utf-8")
    assert committed == generator.render(SNAPSHOT), (
        "src/text_memory/models.py is stale: run `python3 libs/clients/python/scripts/generate_models.py`"
    )


def resolve(schema: Dict[str, Any]) -> Dict[str, Any]:
    ref = schema.get("$ref")
    return resolve(SCHEMAS[ref.split("/")[-1]]) if isinstance(ref, str) else schema


def as_object(schema: Dict[str, Any], value: Any) -> Optional[Dict[str, Any]]:
    """The object schema among a schema's options that the value's constants pick (``kind``), or None
    when it is not an object with properties."""
    schema = resolve(schema)
    for option in schema.get("anyOf", []) + schema.get("oneOf", []):
        found = as_object(option, value)
        constants = {k: p["const"] for k, p in (found or {}).get("properties", {}).items() if "const" in p}
        if found is not None and isinstance(value, dict) and all(value.get(k) == c for k, c in constants.items()):
            return found
    return schema if schema.get("properties") else None


def mismatches(value: Any, schema: Dict[str, Any], where: str) -> List[str]:
    """Fields sent that the schema lacks, and fields the schema has that were not sent (every option
    was given), at every level of named properties (free-form maps such as ``data`` are not compared)."""
    obj = as_object(schema, value)
    if obj is not None and isinstance(value, dict):
        props: Dict[str, Any] = obj["properties"]
        problems = [f"{where}.{k}: sent, not in the API" for k in value if k not in props]
        # A property whose schema is `not: {}` must never be sent (tenant_id: scope comes from the key).
        problems += [f"{where}.{k}: in the API, never sent" for k in props if k not in value and props[k] != {"not": {}}]
        for key in value.keys() & props.keys():
            problems += mismatches(value[key], props[key], f"{where}.{key}")
        return problems
    items = resolve(schema).get("items")
    if isinstance(items, dict) and isinstance(value, list):
        return [p for i, item in enumerate(value) for p in mismatches(item, items, f"{where}[{i}]")]
    return []


def route_of(method: str, path: str) -> Tuple[str, str]:
    bare = path.split("?")[0]
    for template, operations in SNAPSHOT["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if method.lower() in operations and re.match(pattern, bare):
            return method, template
    raise AssertionError(f"{method} {bare} is not a route of the API")


UUID = "0b6f1d6e-3c3a-4f57-9d2e-2f0c4d1a7e55"
PASSWORD = "correct horse battery staple"
SOURCE: models.EventSourceInput = {"type": "direct_user_input", "id": "u1"}
FIELD: models.TemplateField = {"name": "n", "type": "string", "required": True, "description": "d"}
SETTINGS: models.CustomerStorageSettings = {"engine": "postgresql", "host": "db.example.com", "port": 5432, "database": "d", "username": "u", "ssl_mode": "require"}
# An export file as the export route writes one: what `memory.restore` sends as its body.
EXPORT_FILE: Dict[str, Any] = {
    "contract_version": "v1",
    "request_id": "r1",
    "exported_at": "2026-11-27T10:00:00.000Z",
    "selection": {"namespaces": ["ns"]},
    "records": [
        {
            "memory_id": UUID,
            "event_id": "e1",
            "namespace": "ns",
            "occurred_at": "2026-11-27T09:00:00.000Z",
            "retained_at": "2026-11-27T09:00:01.000Z",
            "text": "t",
            "source": None,
            "status": "current",
            "superseded_at": None,
        }
    ],
    "supersession_relations": [],
    "history": [],
    "counts": {"records": 1, "supersession_relations": 0, "history": 0},
    "complete": True,
}
# Every call that sends a body, with every option it has.
CALLS: List[Callable[[TextMemory], Any]] = [
    lambda tm: tm.memory.write(
        namespace="ns", text="t", idempotency_key="k", event_id="e", occurred_at="2026-11-01T00:00:00Z",
        source=SOURCE, supersedes=["e0"],
    ),
    lambda tm: tm.memory.write_batch(
        namespace="ns",
        items=[
            {
                "idempotency_key": "k",
                "event": {
                    "event_id": "e", "occurred_at": "2026-11-01T00:00:00Z", "content": {"text": "t"},
                    "source": SOURCE, "supersedes": ["e0"],
                },
            }
        ],
    ),
    lambda tm: tm.memory.recall(namespace="ns", query="q", top_k=3, as_of="2026-11-01T00:00:00Z", explain=True),
    lambda tm: tm.memory.restore(file=EXPORT_FILE, namespace="ns2", from_namespace="ns", wait=False),
    lambda tm: tm.control.sessions.login(email="a@example.com", password="pw"),
    lambda tm: tm.control.account.change_password(current_password=PASSWORD, new_password=PASSWORD + "!"),
    lambda tm: tm.control.users.create(email="a@example.com", password=PASSWORD, role="developer"),
    lambda tm: tm.control.users.update("u1", role="admin", status="active"),
    lambda tm: tm.control.api_keys.create(name="k", permissions=["memory:write"], storage_connection_id=UUID),
    lambda tm: tm.control.api_keys.update("k1", name="k", permissions=["memory:write"]),
    lambda tm: tm.control.api_keys.attach_storage("k1", storage_connection_id=UUID),
    lambda tm: tm.control.storage_connections.create(kind="customer_owned", name="n", settings=SETTINGS, secret="pw"),
    lambda tm: tm.control.storage_connections.update("s1", name="n", status="active", settings=SETTINGS, secret="pw"),
    lambda tm: tm.control.operator_tokens.create(name="o", ttl_hours=1),
    lambda tm: tm.control.billing.void_charge("c1", reason="r"),
    lambda tm: tm.control.billing.close_invoice_period(period="2026-10"),
    lambda tm: tm.templates.create(template_name="t", fields=[FIELD], description="d", version="1", format="{n}"),
    lambda tm: tm.templates.update(
        "t", fields=[FIELD], template_name="t", description="d", version="2", format="{n}", if_match=1,
    ),
    lambda tm: tm.memories.create(data={"n": "a"}, template_name="t", marketplace_template_id="m", namespace="ns"),
    lambda tm: tm.imports.from_dataset(
        dataset="org/data", split="train", config="c", revision="main", hub_token="hf_x", format="{n}",
        template_name="t", marketplace_template_id="m", namespace="ns",
    ),
]


@pytest.fixture
def sent(server: Script) -> List[Tuple[str, str, Any]]:
    """Each call's request, against a server that answers every request with a 200."""
    server.answers = [ok({"token": "tms_" + "t" * 40})] * len(CALLS)  # login keeps the token it is given
    with TextMemory(server.base_url, api_key=API_KEY, session_token="tms_" + "s" * 40) as tm:
        for call in CALLS:
            call(tm)
    return [(s.method, s.path, json.loads(s.body)) for s in server.seen]


def test_every_body_the_sdk_sends_is_valid_and_has_every_field_its_route_takes(sent: List[Tuple[str, str, Any]]) -> None:
    problems: List[str] = []
    for method, path, body in sent:
        route = route_of(method, path)
        schema = SNAPSHOT["paths"][route[1]][method.lower()]["requestBody"]["content"]["application/json"]["schema"]
        problems += mismatches(body, schema, f"{method} {route[1]}")
        # And every value is of the type, format and range the schema says.
        validator = Draft202012Validator({**schema, "components": SNAPSHOT["components"]})
        problems += [f"{method} {route[1]}: {error.message}" for error in validator.iter_errors(body)]
    assert problems == [], "\n".join(problems)


def test_every_route_that_takes_a_body_is_one_the_sdk_sends(sent: List[Tuple[str, str, Any]]) -> None:
    with_body: Set[Tuple[str, str]] = {
        (method.upper(), path)
        for path, operations in SNAPSHOT["paths"].items()
        for method, operation in operations.items()
        if isinstance(operation, dict) and "application/json" in operation.get("requestBody", {}).get("content", {})
    }
    assert {route_of(m, p) for m, p, _ in sent} == with_body - NOT_SENT_BY_THE_SDK


def test_every_answer_model_is_its_routes_schema() -> None:
    for method, path, answers in models.ROUTES:
        for status, model in answers.items():
            response = SNAPSHOT["paths"][path][method.lower()]["responses"][str(status)]
            name = next(iter(response["content"].values()))["schema"]["$ref"].split("/")[-1]
            assert model.__name__ == name
            assert set(model._fields) == set(SCHEMAS[name]["properties"])
            assert answer_model(method, path.replace("{", "x").replace("}", ""), status) is model


def test_an_answer_is_its_model_with_typed_nested_objects(server: Script) -> None:
    server.answers = [
        ok({"data": [{"id": "u1", "email": "a@example.com"}]}),
        ok({"request_id": "r1", "related": [{"memory_id": "m1", "score": 0.5}], "provenance": {"request_id": "r1"}}),
    ]
    with TextMemory(server.base_url, api_key=API_KEY, session_token="tms_" + "s" * 40) as tm:
        users = tm.control.users.list()
        recalled = tm.memory.recall(namespace="ns", query="q")
    assert isinstance(users, models.UserList) and isinstance(users.data[0], models.User)
    assert isinstance(recalled, models.RecallResponse)
    assert isinstance(recalled.related[0], models.RelatedResult) and recalled.related[0].score == 0.5
    assert isinstance(recalled.provenance, models.Provenance)
    assert recalled.context is None  # in the schema, not in this answer
    assert recalled.raw["related"] == [{"memory_id": "m1", "score": 0.5}]
    with pytest.raises(AttributeError):
        _ = recalled.not_a_field


def test_a_field_of_several_models_reads_as_the_one_its_value_fits() -> None:
    # A batch item's body is a write's answer or its error envelope (the schema's anyOf).
    envelope = {"contract_version": "v1", "error": "e", "retryable": False, "request_id": "r", "details": {"code": "duplicate_event", "request_id": "r"}}
    answer = {"contract_version": "v1", "operation": "memory.write", "request_id": "r", "retryable": False, "idempotency_outcome": "Accepted", "memory_id": "m"}
    item = models.WriteBatchItemResult({"index": 0, "status": 409, "body": envelope})
    assert isinstance(item.body, models.ErrorEnvelope) and isinstance(item.body.details, models.ErrorEnvelopeDetails)
    written = models.WriteBatchItemResult({"index": 1, "status": 200, "body": answer})
    assert isinstance(written.body, models.WriteResponse) and written.body.usage is None
    # A newer server's extra field keeps the type: the model holding most of the keys wins.
    newer = models.WriteBatchItemResult({"index": 2, "status": 200, "body": {**answer, "added_later": 1}})
    assert isinstance(newer.body, models.WriteResponse) and newer.body.added_later == 1
    # Not an object: as it is.
    assert models.WriteBatchItemResult({"index": 3, "status": 500, "body": "text"}).body == "text"
