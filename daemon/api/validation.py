"""A small typed validation layer for request bodies and query strings (no pydantic).

A :class:`Schema` lists :class:`Field` specs (type, required, enum, max length, bounds). Parsing
rejects unknown fields, wrong types and bad enum values with a 400 that names the field (a
dotted path such as ``messages[3].role``), and returns plain values with timestamps parsed to
aware datetimes. The same specs render the request schemas of the OpenAPI document, so the
document cannot drift from what the handlers accept.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import orjson
from aiohttp import web
from multidict import MultiMapping

from daemon.api.errors import ApiError, invalid

MAX_DEPTH = 32
"""Deepest nesting of a free-form JSON value (``metadata``, content blocks, weights): the log's
encoder stops at 255 levels, and a value that could be stored but not read back would break
every read of its namespace."""
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
"""Integers are stored as 64-bit numbers: a larger one is bad input, not a database error."""
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=UTC)
"""Timestamps keep a day's margin from datetime's limits, so that converting a time zone or
adding a day to an accepted time never overflows."""

Kind = Literal[
    "string", "integer", "number", "boolean", "datetime", "object", "array", "content", "any"
]

_JSON_TYPE: dict[str, str] = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "datetime": "string",
    "object": "object",
    "array": "array",
}


@dataclass(frozen=True, slots=True)
class Field:
    """One accepted field of a body or query string."""

    name: str
    kind: Kind
    required: bool = False
    nullable: bool = False
    enum: tuple[str, ...] | None = None
    max_length: int | None = None
    min_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    pattern: str | None = None
    items: Field | Schema | None = None
    description: str = ""
    one_of: tuple[Field, ...] = ()
    """Alternative forms (kind ``any``): the value must be one of them (the first that fits)."""

    def json_schema(self) -> dict[str, Any]:
        """Return this field's JSON Schema (for the OpenAPI document)."""
        out: dict[str, Any]
        if self.one_of:
            forms = [f.json_schema() for f in self.one_of]
            if self.nullable:
                forms.append({"type": "null"})
            out = {"oneOf": forms}
            if self.description:
                out["description"] = self.description
            return out
        if self.kind == "content":
            out = {
                "oneOf": [
                    {"type": "string"},
                    {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["type"],
                            "properties": {"type": {"type": "string"}},
                        },
                    },
                ]
            }
        elif self.kind == "any":
            out = {}
        else:
            out = {"type": _JSON_TYPE[self.kind]}
        if self.kind == "datetime":
            out["format"] = "date-time"
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.max_length is not None:
            out["maxItems" if self.kind == "array" else "maxLength"] = self.max_length
        if self.min_length is not None:
            out["minItems" if self.kind == "array" else "minLength"] = self.min_length
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.kind == "integer":
            out.setdefault("minimum", INT64_MIN)
            out.setdefault("maximum", INT64_MAX)
        if self.pattern is not None:
            out["pattern"] = anchored(self.pattern)
        if self.kind == "object" and isinstance(self.items, Schema):
            # A nested object's own fields, as JSON Schema says them (not as "items").
            nested = self.items.json_schema()
            nested.pop("type", None)
            out.update(nested)
        elif self.items is not None:
            out["items"] = self.items.json_schema()
        if self.nullable:
            if "type" in out:
                out["type"] = [out["type"], "null"]
            else:
                out = {"oneOf": [out, {"type": "null"}]}
        if self.description:
            out["description"] = self.description
        return out


@dataclass(frozen=True, slots=True)
class Schema:
    """A JSON object with a fixed set of fields; anything else is refused."""

    name: str
    fields: tuple[Field, ...]
    by_name: dict[str, Field] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {f.name: f for f in self.fields})

    def json_schema(self) -> dict[str, Any]:
        """Return the object's JSON Schema."""
        return {
            "type": "object",
            "additionalProperties": False,
            "required": [f.name for f in self.fields if f.required],
            "properties": {f.name: f.json_schema() for f in self.fields},
        }

    def parse(self, data: Any, path: str = "") -> dict[str, Any]:
        """Validate a decoded JSON object and return its converted values."""
        if not isinstance(data, dict):
            raise invalid(path or "body", f"expected a JSON object, got {_type_name(data)}")
        by_name = self.by_name
        out: dict[str, Any] = {}
        for key, value in data.items():
            spec = by_name.get(key)
            if spec is None:
                unknown = sorted(k for k in data if k not in by_name)
                raise invalid(_join(path, unknown[0]), "unknown field", unknown=unknown)
            out[key] = check_value(spec, value, f"{path}.{key}" if path else key)
        if len(out) < len(self.fields):
            for spec in self.fields:
                if spec.required and spec.name not in out:
                    raise invalid(_join(path, spec.name), "is required")
        return out


def anchored(pattern: str) -> str:
    """Return ``pattern`` as JSON Schema must have it to match whole values (its patterns
    search, where :func:`re.fullmatch` matches the whole string)."""
    return f"^(?:{pattern})$"


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def parse_timestamp(value: str, name: str) -> datetime:
    """Parse an RFC 3339 / ISO 8601 timestamp; a naive one is taken as UTC."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
        parsed = parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    except ValueError:
        raise invalid(name, f"not an ISO 8601 timestamp: {value!r}") from None
    except OverflowError:
        parsed = None
    if parsed is None or not EARLIEST <= parsed <= LATEST:
        raise invalid(
            name,
            f"{value!r} is out of range: timestamps lie between "
            f"{EARLIEST.date().isoformat()} and {LATEST.date().isoformat()} (UTC)",
        )
    return parsed


def nesting_depth(value: Any, limit: int) -> int:
    """Return how deep ``value`` nests (a scalar is 0), counting no further than ``limit + 1``."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        node, depth = todo.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        todo.extend((child, depth) for child in children)
    return deepest


def _check_depth(value: Any, name: str) -> None:
    if nesting_depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise invalid(name, f"nests deeper than {MAX_DEPTH} levels", max_depth=MAX_DEPTH)


def check_value(spec: Field, value: Any, name: str) -> Any:
    """Check one value against its field spec and return it converted."""
    if value is None:
        if spec.nullable:
            return None
        raise invalid(name, "must not be null")
    if spec.one_of:
        return _check_one_of(spec, value, name)
    kind = spec.kind
    if kind in ("string", "datetime"):
        if not isinstance(value, str):
            raise invalid(name, f"expected a string, got {_type_name(value)}")
        _check_length(spec, len(value), name)
        if spec.enum is not None and value not in spec.enum:
            raise invalid(name, f"must be one of {', '.join(spec.enum)}", allowed=list(spec.enum))
        if spec.pattern is not None and re.fullmatch(spec.pattern, value) is None:
            raise invalid(name, f"must match {spec.pattern}")
        return parse_timestamp(value, name) if kind == "datetime" else value
    if kind == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # 198.0 is the integer 198 in JSON
        if isinstance(value, bool) or not isinstance(value, int):
            raise invalid(name, f"expected an integer, got {_type_name(value)}")
        if not INT64_MIN <= value <= INT64_MAX:
            raise invalid(name, "is out of range (a 64-bit integer)")
        _check_bounds(spec, value, name)
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise invalid(name, f"expected a number, got {_type_name(value)}")
        if not math.isfinite(value):
            raise invalid(name, "must be finite")
        _check_bounds(spec, value, name)
        return float(value)
    if kind == "boolean":
        if not isinstance(value, bool):
            raise invalid(name, f"expected a boolean, got {_type_name(value)}")
        return value
    if kind == "object":
        if isinstance(spec.items, Schema):
            return spec.items.parse(value, name)
        if not isinstance(value, dict):
            raise invalid(name, f"expected an object, got {_type_name(value)}")
        _check_depth(value, name)
        return value
    if kind == "array":
        if not isinstance(value, list):
            raise invalid(name, f"expected an array, got {_type_name(value)}")
        _check_length(spec, len(value), name)
        item = spec.items
        if item is None:
            _check_depth(value, name)
            return value
        if isinstance(item, Schema):
            return [item.parse(v, f"{name}[{i}]") for i, v in enumerate(value)]
        return [check_value(item, v, f"{name}[{i}]") for i, v in enumerate(value)]
    if kind == "content":
        return _check_content(spec, value, name)
    _check_depth(value, name)
    return value


def _check_one_of(spec: Field, value: Any, name: str) -> Any:
    """The value in the first alternative form that accepts it; else the error of the form
    of the value's JSON type (or the first form's)."""
    errors: list[ApiError] = []
    for form in spec.one_of:
        try:
            return check_value(form, value, name)
        except ApiError as exc:
            errors.append(exc)
    matching = [
        exc
        for form, exc in zip(spec.one_of, errors, strict=True)
        if _JSON_TYPE.get(form.kind) == _type_name(value)
    ]
    raise (matching or errors)[0]


def _check_content(spec: Field, value: Any, name: str) -> Any:
    if isinstance(value, str):
        _check_length(spec, len(value), name)
        return value
    if not isinstance(value, list):
        raise invalid(name, f"expected a string or an array of blocks, got {_type_name(value)}")
    for i, block in enumerate(value):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise invalid(f"{name}[{i}]", 'expected an object with a string "type"')
    _check_depth(value, name)
    return value


def _check_length(spec: Field, length: int, name: str) -> None:
    if spec.max_length is not None and length > spec.max_length:
        raise invalid(name, f"longer than {spec.max_length}", max_length=spec.max_length)
    if spec.min_length is not None and length < spec.min_length:
        raise invalid(name, f"shorter than {spec.min_length}", min_length=spec.min_length)


def _check_bounds(spec: Field, value: float, name: str) -> None:
    if spec.minimum is not None and value < spec.minimum:
        raise invalid(name, f"must be >= {spec.minimum}", minimum=spec.minimum)
    if spec.maximum is not None and value > spec.maximum:
        raise invalid(name, f"must be <= {spec.maximum}", maximum=spec.maximum)


async def read_json(request: web.Request, *, allow_empty: bool = False) -> Any:
    """Read and decode the request body; a malformed body is a 400 ``invalid_json``."""
    raw = await request.read()
    if not raw.strip():
        if allow_empty:
            return {}
        raise ApiError(400, "invalid_json", "request body is empty; expected a JSON object")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiError(
            400, "invalid_json", f"request body is not valid JSON: {exc}", {"field": "body"}
        ) from None


async def parse_body(
    request: web.Request, schema: Schema, *, allow_empty: bool = False
) -> dict[str, Any]:
    """Read, decode and validate a JSON body against ``schema``."""
    return schema.parse(await read_json(request, allow_empty=allow_empty))


def parse_query(query: MultiMapping[str], schema: Schema) -> dict[str, Any]:
    """Validate query parameters (strings) against ``schema``, converting their types."""
    unknown = sorted(set(query) - set(schema.by_name))
    if unknown:
        raise invalid(unknown[0], "unknown query parameter", unknown=unknown)
    out: dict[str, Any] = {}
    for spec in schema.fields:
        if spec.name not in query:
            if spec.required:
                raise invalid(spec.name, "is required")
            continue
        values = query.getall(spec.name)
        if len(values) > 1:
            raise invalid(spec.name, "given more than once")
        out[spec.name] = check_value(spec, _from_query(spec, values[0]), spec.name)
    return out


def _from_query(spec: Field, raw: str) -> Any:
    if spec.kind == "integer":
        # ASCII digits only: int() also takes other scripts' digits and "1_000".
        if re.fullmatch(r"[+-]?[0-9]{1,30}", raw.strip()) is None:
            raise invalid(spec.name, f"expected an integer, got {raw[:40]!r}")
        return int(raw)
    if spec.kind == "number":
        try:
            return float(raw)
        except ValueError:
            raise invalid(spec.name, f"expected a number, got {raw[:40]!r}") from None
    if spec.kind == "boolean":
        lowered = raw.lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        raise invalid(spec.name, f"expected true or false, got {raw!r}")
    return raw
