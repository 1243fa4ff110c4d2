"""The HTTP API: routes, errors, idempotency, namespaces, connections, the OpenAPI document."""
