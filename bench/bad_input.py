"""Scripted bad input against every documented operation: is each answer a JSON 4xx?

Starts ``memoryd serve --data-dir D --socket D/memoryd.sock`` on a fresh data dir (the default
configuration), reads the OpenAPI document it serves, and sends, over raw unix-socket
connections (no client library cleans the bytes up), for every operation:

- each path parameter replaced by a bad id (a space, 201 characters, NUL, non-ASCII, an
  encoded slash or question mark, a byte that is not UTF-8, nothing), the body otherwise
  valid;
- each query parameter with values of the wrong kind or out of range for its schema
  (integers beyond 64 bits, non-ASCII digits, ``1_0``, timestamps at the ends of time,
  unknown enum values, strings past ``maxLength``), an unknown parameter, a repeated one;
- for a JSON body: empty (where one is required), malformed, not an object, not UTF-8,
  ``NaN``, nested 2,000 deep, an unknown field; then each property (and each property of an
  array's items) with the wrong type, ``null``, past its bounds or ``maxLength``, an unknown
  enum value, timestamps at the ends of time, free-form JSON nested 40 deep;
- bad ``X-Memoryd-Namespace`` and ``Idempotency-Key`` headers (not UTF-8, too long, a
  control character);

then bad ``Last-Event-ID`` values on the event stream, and what the HTTP parser refuses
(the cases of ``tests/api/test_connections.py`` and ``tests/api/test_api_bad_input.py``, an unknown
method, an oversized ``Content-Length``, a body over the limit). It reports how many inputs
were sent, the status counts, every 5xx, every error body that is not the documented
``{"error": {"code", "message", "details"}}`` JSON, any input that was accepted (2xx), and
the log's head afterwards (nothing may be written)::

    .venv/bin/python -m bench.bad_input [--json] [--show-accepted]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.kill_trials import serve, stop, until_ready

END_OF_TIME = (
    "0001-01-01T00:00:00Z",
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "9999-12-31T23:00:00Z",
    "2024-13-45T00:00:00Z",
    "yesterday",
)
BAD_IDS = ("a%20b", "x" * 201, "%00", "%C3%A9", "a%2Fb", "a%3Fb", "%FF", "")
BAD_INTEGERS = (
    "abc",
    "1.5",
    "1_0",
    "%C2%B2",
    "123456789012345678901234567890",
    "9223372036854775808",
    "-9223372036854775809",
    "",
)


HOST = b"\r\nHost: memoryd\r\nConnection: close"


@dataclass(frozen=True)
class Case:
    label: str
    raw: bytes


@dataclass
class Answer:
    status: int
    json_error: bool
    code: str


def request(
    method: str,
    target: str,
    body: bytes | None = None,
    headers: tuple[bytes, ...] = (),
    content_type: bytes = b"application/json",
) -> bytes:
    """One HTTP/1.1 request as bytes, closing the connection after it."""
    head = [f"{method} {target} HTTP/1.1".encode(), b"Host: memoryd", *headers]
    if body is not None:
        head += [b"Content-Type: " + content_type, b"Content-Length: %d" % len(body)]
    head.append(b"Connection: close")
    return b"\r\n".join(head) + b"\r\n\r\n" + (body or b"")


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def types_of(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if kind is None and "oneOf" in schema:
        return [t for option in schema["oneOf"] for t in types_of(option)]
    return kind if isinstance(kind, list) else [kind] if kind else []


def valid(doc: dict[str, Any], schema: dict[str, Any]) -> Any:
    """A small value the schema accepts (required properties only)."""
    schema = resolve(doc, schema)
    if "enum" in schema:
        return schema["enum"][0]
    kind = next((t for t in types_of(schema) if t != "null"), "string")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: valid(doc, props[name]) for name in schema.get("required", [])}
    if kind == "array":
        item = valid(doc, schema.get("items", {"type": "string"}))
        return [item] * schema.get("minItems", 0)
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return schema.get("minimum", 0.5)
    if kind == "boolean":
        return False
    if schema.get("format") == "date-time":
        return "2024-01-01T00:00:00Z"
    return "x"


def nested(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def bad_values(schema: dict[str, Any]) -> list[tuple[str, Any]]:
    """Values a property's schema refuses, each with a name."""
    kinds = types_of(schema)
    out: list[tuple[str, Any]] = []
    if "null" not in kinds:
        out.append(("null", None))
    wrong: dict[str, list[tuple[str, Any]]] = {
        "string": [("an integer", 1), ("a boolean", True), ("an object", {})],
        "integer": [("a string", "1"), ("1.5", 1.5), ("a boolean", True), ("2**64", 2**64)],
        "number": [("a string", "x"), ("a boolean", True), ("2**64 squared", 2**128)],
        "boolean": [("a string", "true"), ("1", 1)],
        "array": [("a string", "x"), ("an object", {})],
        "object": [("a string", "x"), ("an array", []), ("nested 40 deep", nested(40))],
    }
    for kind, values in wrong.items():
        if kind in kinds:
            out += [(n, v) for n, v in values if not any(_fits(v, k) for k in kinds)]
            if kind == "array" and "string" in kinds:
                out.append(("blocks nested 40 deep", [{"type": "t", "input": nested(40)}]))
    if "enum" in schema:
        out.append(("not in the enum", "no-such-value"))
    if "maxLength" in schema:
        out.append(("past maxLength", "x" * (schema["maxLength"] + 1)))
    if "minLength" in schema and schema["minLength"] > 0:
        out.append(("empty", ""))
    if "pattern" in schema:
        out.append(("not matching the pattern", "a b/c"))
    if "minimum" in schema:
        out.append(("below minimum", schema["minimum"] - 1))
    if "maximum" in schema:
        out.append(("above maximum", schema["maximum"] + 1))
    if "maxItems" in schema:
        out.append(("past maxItems", [None] * (schema["maxItems"] + 1)))
    if "minItems" in schema and schema["minItems"] > 0:
        out.append(("no items", []))
    if schema.get("format") == "date-time":
        out += [(f"timestamp {t}", t) for t in END_OF_TIME]
    return out


def _fits(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    types = {"string": str, "boolean": bool, "array": list, "object": dict, "null": type(None)}
    return isinstance(value, types.get(kind, ()))


def bad_query_values(schema: dict[str, Any]) -> list[tuple[str, str]]:
    kinds = types_of(schema)
    out: list[tuple[str, str]] = []
    if "integer" in kinds:
        out += [(f"integer {v[:12]!r}", v) for v in BAD_INTEGERS]
    if "number" in kinds:
        out += [(f"number {v!r}", v) for v in ("abc", "nan", "inf", "1e999", "")]
    if "boolean" in kinds:
        out += [("boolean 'maybe'", "maybe"), ("boolean ''", "")]
    if schema.get("format") == "date-time" or "ISO timestamp" in schema.get("description", ""):
        out += [(f"timestamp {t}", t.replace("+", "%2B")) for t in END_OF_TIME]
    if "enum" in schema:
        out.append(("not in the enum", "no-such-value"))
    if "maxLength" in schema:
        out.append(("past maxLength", "x" * (schema["maxLength"] + 1)))
    if "minimum" in schema:
        out.append(("below minimum", str(schema["minimum"] - 1)))
    if "maximum" in schema:
        out.append(("above maximum", str(schema["maximum"] + 1)))
    if "pattern" in schema:
        out.append(("not matching the pattern", "a%20b"))
    return out


class Operation:
    """One documented operation and the valid request the bad inputs are variations of."""

    def __init__(self, doc: dict[str, Any], template: str, method: str, op: Any) -> None:
        self.doc, self.template, self.method = doc, str(template), method.upper()
        self.params: list[dict[str, Any]] = op["parameters"]
        self.ids = {str(p["name"]): "x1" for p in self.params if p["in"] == "path"}
        content = op.get("requestBody", {}).get("content", {})
        self.body_required = bool(op.get("requestBody", {}).get("required"))
        self.body_schema: dict[str, Any] | None = content.get("application/json", {}).get("schema")
        self.body: dict[str, Any] = valid(doc, self.body_schema) if self.body_schema else {}
        # A valid request to the event stream opens a stream that never ends: no body there.
        self.encoded = (
            json.dumps(self.body).encode()
            if self.body_schema and template != "/v1/events/stream"
            else None
        )
        self.cases: list[Case] = []

    def path(self, **given: str) -> str:
        out = self.template
        for name, value in {**self.ids, **given}.items():
            out = out.replace("{" + name + "}", value)
        return out

    def add(
        self,
        what: str,
        target: str | None = None,
        body: bytes | None = None,
        headers: tuple[bytes, ...] = (),
        content_type: bytes = b"application/json",
    ) -> None:
        raw = request(
            self.method,
            target or self.path(),
            self.encoded if body is None else body,
            headers,
            content_type,
        )
        self.cases.append(Case(f"{self.method} {self.template}: {what}", raw))

    def all_cases(self) -> list[Case]:
        for name in self.ids:
            for bad in BAD_IDS:
                self.add(f"{name}={bad[:12]}", self.path(**{name: bad}))
        query = [p for p in self.params if p["in"] == "query"]
        for param in query:
            for what, value in bad_query_values(param["schema"]):
                self.add(f"?{param['name']}: {what}", f"{self.path()}?{param['name']}={value}")
        if query:
            name = query[0]["name"]
            self.add("?zzz: unknown", f"{self.path()}?zzz=1")
            self.add(f"?{name} twice", f"{self.path()}?{name}=1&{name}=2")
        if self.template == "/v1/events/stream":
            for last in ("²".encode(), b"1" * 30, b"-1", b"1.0", b"abc", b"\xb2"):
                self.add(f"Last-Event-ID {last[:12]!r}", headers=(b"Last-Event-ID: " + last,))
        for header in (b"../x", b"a" * 65, "é".encode(), b"\xff\xfe", b""):
            self.add(f"namespace {header[:12]!r}", headers=(b"X-Memoryd-Namespace: " + header,))
        if any(p["name"] == "Idempotency-Key" for p in self.params):
            for key in (b"k\xff\xfe", b"k" * 201, b"\x01k"):
                self.add(f"Idempotency-Key {key[:12]!r}", headers=(b"Idempotency-Key: " + key,))
        if self.body_schema is not None:
            self.body_cases(resolve(self.doc, self.body_schema))
        return self.cases

    def body_cases(self, schema: dict[str, Any]) -> None:
        body = self.body
        raw_bodies = {
            "empty body": b"",
            "malformed JSON": b'{"a": ',
            "an array": b"[]",
            "a number": b"1",
            "null": b"null",
            "a string": b'"x"',
            "not UTF-8": b'{"\xff\xfe": 1}',
            "NaN": b'{"x": NaN}',
            "nested 2000 deep": b"[" * 2000 + b"]" * 2000,
            "an unknown field": json.dumps({**body, "zzz_unknown": 1}).encode(),
        }
        if not self.body_required:
            del raw_bodies["empty body"]  # no body is the defaults
        for what, raw in raw_bodies.items():
            self.add(what, body=raw)
        for prop, prop_schema in schema.get("properties", {}).items():
            prop_schema = resolve(self.doc, prop_schema)
            for what, value in bad_values(prop_schema):
                self.add(f"{prop}: {what}", body=json.dumps({**body, prop: value}).encode())
            item_schema = resolve(self.doc, prop_schema.get("items", {}))
            item = valid(self.doc, item_schema)
            for item_prop, item_prop_schema in item_schema.get("properties", {}).items():
                for what, value in bad_values(resolve(self.doc, item_prop_schema)):
                    raw = json.dumps({**body, prop: [{**item, item_prop: value}]}).encode()
                    self.add(f"{prop}[0].{item_prop}: {what}", body=raw)


def operation_cases(doc: dict[str, Any]) -> list[Case]:
    """The scripted bad inputs for every documented operation."""
    return [
        case
        for template, operations in doc["paths"].items()
        for method, op in operations.items()
        for case in Operation(doc, template, method, op).all_cases()
    ]


def parser_cases(max_body: int) -> list[Case]:
    """What the HTTP parser refuses before any handler runs, and the body limit: each with a
    ``Host`` header (without one, aiohttp refuses every HTTP/1.1 request for that alone)."""
    big = json.dumps({"role": "user", "content": "x" * max_body}).encode()
    heads = {
        "Content-Length with Transfer-Encoding": b"GET /v1/health HTTP/1.1\r\nContent-Length: 5"
        b"\r\nTransfer-Encoding: chunked",
        "bad chunk size": b"POST /v1/search HTTP/1.1\r\nTransfer-Encoding: chunked",
        "URL over 8 KiB": b"GET /" + b"a" * 9000 + b" HTTP/1.1",
        "header over 8 KiB": b"GET /v1/health HTTP/1.1\r\nX-Big: " + b"a" * 9000,
        "NUL in a header": b"GET /v1/health HTTP/1.1\r\nX-Nul: a\x00b",
        "a method that is no token": b"G(T /v1/health HTTP/1.1",
        "an unknown method": b"FROB /v1/health HTTP/1.1",
        "a method not allowed": b"PUT /v1/facts HTTP/1.1",
        "an unknown route": b"GET /v1/nowhere HTTP/1.1",
        "bad percent-encoding": b"GET /v1/events?after=%zz HTTP/1.1",
        "a 10 GB Content-Length": b"POST /v1/conversations/c1/messages HTTP/1.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 10000000000",
        "a negative Content-Length": b"POST /v1/search HTTP/1.1\r\nContent-Length: -1",
        "no Host header": b"GET /v1/health HTTP/1.1\r\nX-No-Host: 1",
        "not HTTP": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
    }
    cases = [
        Case(f"parser: {what}", head + (b"" if what == "no Host header" else HOST) + b"\r\n\r\n")
        for what, head in heads.items()
    ]
    cases[1] = Case(cases[1].label, cases[1].raw + b"zz\r\n")  # the bad chunk
    big_request = request("POST", "/v1/conversations/c1/messages", big)
    return [*cases, Case("parser: a body over the limit", big_request)]


def parse(answer: bytes) -> Answer:
    """Status, and whether the body is the documented JSON error, of one raw answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    pairs = (line.partition(":") for line in lines)
    headers = {name.strip().lower(): value.strip() for name, _, value in pairs}
    if headers.get("transfer-encoding") == "chunked":
        body = dechunk(body)
    code = ""
    json_error = False
    if headers.get("content-type", "").startswith("application/json"):
        try:
            error = json.loads(body).get("error")
            json_error = isinstance(error, dict) and set(error) == {"code", "message", "details"}
            code = error.get("code", "") if isinstance(error, dict) else ""
        except (ValueError, AttributeError):
            pass
    return Answer(int(status_line.split(" ", 2)[1]), json_error, code)


def dechunk(body: bytes) -> bytes:
    out = b""
    while body:
        size, _, body = body.partition(b"\r\n")
        n = int(size.split(b";")[0], 16)
        if n == 0:
            break
        out, body = out + body[:n], body[n + 2 :]
    return out


async def send(socket: Path, case: Case) -> Answer | str:
    """Send one case; return the answer, or what went wrong instead."""
    try:
        reader, writer = await asyncio.open_unix_connection(str(socket))
    except OSError as exc:
        return f"connect: {exc}"
    try:
        writer.write(case.raw)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 15)
    except TimeoutError:
        return "no answer in 15 s"
    except OSError as exc:
        return f"connection: {exc}"
    finally:
        writer.close()
    if not answer:
        return "closed without an answer"
    return parse(answer)


async def get_json(socket: Path, path: str) -> Any:
    reader, writer = await asyncio.open_unix_connection(str(socket))
    try:
        writer.write(request("GET", path))
        return json.loads((await reader.read()).partition(b"\r\n\r\n")[2])
    finally:
        writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show-accepted", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memoryd-bad-") as work:
        data_dir = Path(work) / "data"
        data_dir.mkdir()
        socket = data_dir / "memoryd.sock"
        process = serve(data_dir)
        try:
            await until_ready(socket, process)
            doc = await get_json(socket, "/v1/openapi.json")
            cases = operation_cases(doc) + parser_cases(1024 * 1024)
            statuses: Counter[str] = Counter()
            server_errors: list[str] = []
            not_json: list[str] = []
            accepted: list[str] = []
            parsed: dict[str, str] = {}
            for case in cases:
                answer = await send(socket, case)
                if isinstance(answer, str):
                    statuses[answer] += 1
                    not_json.append(f"{case.label}: {answer}")
                    continue
                statuses[str(answer.status)] += 1
                if case.label.startswith("parser: "):
                    parsed[case.label[8:]] = f"{answer.status} {answer.code}"
                if answer.status >= 500:
                    server_errors.append(f"{case.label}: {answer.status} {answer.code}")
                if answer.status < 400:
                    accepted.append(f"{case.label}: {answer.status}")
                elif not answer.json_error:
                    not_json.append(f"{case.label}: {answer.status} not the JSON error body")
            head = await get_json(socket, "/v1/health")
        finally:
            exit_status = stop(process)
    operations = sum(len(ops) for ops in doc["paths"].values())
    result = {
        "operations": operations,
        "inputs": len(cases),
        "statuses": dict(sorted(statuses.items())),
        "server_errors": server_errors,
        "error_bodies_not_json": not_json,
        "parser": parsed,
        "accepted": len(accepted),
        "log_head_after": head["last_position"],
        "exit_status": exit_status,
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"{len(cases)} scripted bad inputs over {operations} operations")
    print(f"statuses: {result['statuses']}")
    print("what the parser refuses:", *(f"{k}: {v}" for k, v in parsed.items()), sep="\n  ")
    print(f"5xx: {len(server_errors)}", *server_errors[:20], sep="\n  ")
    print(f"error bodies not the JSON error: {len(not_json)}", *not_json[:20], sep="\n  ")
    print(f"accepted (2xx/3xx): {len(accepted)}", *accepted[: None if args.show_accepted else 5])
    print(f"log head after: {head['last_position']} (nothing written is 0)")


if __name__ == "__main__":
    asyncio.run(main())
